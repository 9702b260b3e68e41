"""Each file format parses from a real small file; broken files become ParseError, never a crash."""

from __future__ import annotations

from pathlib import Path

import pytest
from _kb_files import BEIR_JSONL, FAQ_CSV, FAQ_JSONL, HTML, MARKDOWN, make_docx, make_pdf, write_folder
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lastline.kb import ParsedDocument, ParseError, chunk_document, parse_bytes, parse_file


def _headings(doc: ParsedDocument) -> list[tuple[str, ...]]:
    return [s.heading for s in doc.sections]


def test_markdown_headings_become_heading_paths(tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_text(MARKDOWN, encoding="utf-8")
    [doc] = parse_file(path)
    assert doc.title == "Service handbook"
    assert ("Service handbook", "Refunds", "Exceptions") in _headings(doc)
    assert ("Service handbook", "退款") in _headings(doc)
    section = next(s for s in doc.sections if s.heading[-1] == "Exceptions")
    assert doc.text[section.start : section.end].strip() == "Gift cards are never refunded."


def test_html_drops_scripts_and_keeps_headings(tmp_path: Path) -> None:
    path = tmp_path / "a.html"
    path.write_text(HTML, encoding="utf-8")
    [doc] = parse_file(path)
    assert doc.title == "Shipping guide"
    assert "var x" not in doc.text and "menu" not in doc.text
    assert ("Shipping", "Costs") in _headings(doc)
    assert "Express: 15 euros" in doc.text


def test_pdf_pages_become_sections(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "a.pdf", [["Warranty terms", "Two year warranty."], ["Batteries: one year."]],
                    title="Warranty")
    [doc] = parse_file(path)
    assert doc.title == "Warranty"
    assert _headings(doc) == [("p. 1",), ("p. 2",)]
    assert "Two year warranty." in doc.text and "Batteries" in doc.text


def test_docx_heading_styles_become_heading_paths(tmp_path: Path) -> None:
    [doc] = parse_file(make_docx(tmp_path / "a.docx"))
    assert doc.title == "Refund policy"
    assert ("Refund policy", "Eligibility", "Exceptions") in _headings(doc)
    section = next(s for s in doc.sections if s.heading[-1] == "Exceptions")
    assert doc.text[section.start : section.end] == "Gift cards are never refunded."


def test_txt_is_one_plain_document(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("Support hours\n\nNine to five.", encoding="utf-8")
    [doc] = parse_file(path)
    assert doc.title == "Support hours" and doc.text.endswith("Nine to five.")


def test_faq_csv_rows_are_entries_with_metadata_and_tags(tmp_path: Path) -> None:
    path = tmp_path / "faq.csv"
    path.write_text(FAQ_CSV, encoding="utf-8")
    docs = parse_file(path)
    assert [d.kind for d in docs] == ["faq", "faq"]
    assert docs[0].question == "How long do refunds take?"
    assert docs[0].metadata == {"topic": "billing"} and docs[0].tags == ["money", "refund"]
    assert docs[1].answer == "在订单详情页点击修改地址即可。"
    assert len(chunk_document(docs[0])) == 1


def test_faq_jsonl_and_beir_corpus_are_told_apart(tmp_path: Path) -> None:
    faq = tmp_path / "faq.jsonl"
    faq.write_text(FAQ_JSONL, encoding="utf-8")
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(BEIR_JSONL, encoding="utf-8")
    assert [d.metadata for d in parse_file(faq)] == [{"channel": "web"}, {"channel": "app"}]
    docs = parse_file(corpus)
    assert [d.doc_id for d in docs] == ["d1", "d2"] and docs[0].title == "Vitamin D"


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("broken.pdf", b"%PDF-1.4 this is not really a pdf", "PDF"),
        ("broken.docx", b"PK\x03\x04 not a zip", "DOCX"),
        ("broken.jsonl", b'{"question": "q", "answer": "a"}\n{not json\n', "line 2"),
        ("plain.csv", b"name,age\nann,3\n", "question/answer"),
        ("empty.txt", b"   \n\n", "no extractable text"),
        ("binary.txt", b"\x00\x01\x02binary", "binary"),
        ("image.png", b"\x89PNG", "unsupported"),
    ],
)
def test_broken_files_raise_parse_error_with_a_reason(tmp_path: Path, name: str, content: bytes, reason: str) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(ParseError, match=reason):
        parse_file(path)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=2000))
def test_markdown_of_any_text_parses_or_reports_and_spans_stay_inside(tmp_path: Path, text: str) -> None:
    path = tmp_path / "any.md"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    try:
        docs = parse_file(path)
    except ParseError:
        return
    for doc in docs:
        for chunk in chunk_document(doc, max_chars=200, overlap=40):
            assert doc.text[chunk.start : chunk.end] == chunk.text
            assert len(chunk.text) <= 200


def test_bytes_parse_exactly_as_the_file_they_came_from(tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "docs")
    for path in sorted(folder.iterdir()):
        assert parse_bytes(path.read_bytes(), path.name) == parse_file(path), path.name


@settings(max_examples=60, deadline=None)
@given(data=st.binary(max_size=600),
       suffix=st.sampled_from([".md", ".html", ".txt", ".csv", ".jsonl", ".pdf", ".docx"]))
def test_any_bytes_parse_or_raise_parse_error(data: bytes, suffix: str) -> None:
    try:
        docs = parse_bytes(data, "upload" + suffix)
    except ParseError:
        return
    assert docs and all(d.text.strip() for d in docs)
