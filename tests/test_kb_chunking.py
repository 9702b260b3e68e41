"""Chunks follow sections and paragraphs, respect the size cap, overlap, and are exact spans."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from lastline.kb import ParsedDocument, Section, chunk_document


def test_short_sections_are_one_chunk_each_with_their_heading() -> None:
    text = "Intro.\n\nBody of A.\n\nBody of B."
    doc = ParsedDocument(text=text, title="T", sections=[
        Section((), 0, 6), Section(("A",), 8, 18), Section(("B",), 20, len(text))])
    chunks = chunk_document(doc)
    assert [(c.heading, c.text) for c in chunks] == [((), "Intro."), (("A",), "Body of A."), (("B",), "Body of B.")]
    assert [c.ord for c in chunks] == [0, 1, 2]


def test_long_section_is_cut_at_paragraphs_with_overlap() -> None:
    paragraphs = [f"Paragraph {i} says something useful about topic {i}." for i in range(40)]
    text = "\n\n".join(paragraphs)
    chunks = chunk_document(ParsedDocument.plain(text, "T"), max_chars=300, overlap=80)
    assert len(chunks) > 5
    for chunk in chunks:
        assert len(chunk.text) <= 300
        assert text[chunk.start : chunk.end] == chunk.text
    assert all(b.start < a.end for a, b in itertools.pairwise(chunks))  # windows overlap
    assert chunks[-1].end == len(text)


def test_chinese_text_without_spaces_is_cut_at_sentence_ends() -> None:
    text = "退款会在五个工作日内原路退回。" * 40
    chunks = chunk_document(ParsedDocument.plain(text, "T"), max_chars=100, overlap=20)
    assert all(c.text.endswith("。") for c in chunks[:-1])


def test_faq_entry_is_always_one_chunk() -> None:
    doc = ParsedDocument.plain("Q?\n" + "long answer " * 500, "Q?", kind="faq", question="Q?", answer="x")
    assert len(chunk_document(doc, max_chars=100)) == 1


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(list("ab c.\n。中文")), max_size=3000),
       max_chars=st.integers(50, 400), overlap=st.integers(0, 200))
def test_every_chunk_is_an_exact_capped_span_and_all_text_is_covered(text: str, max_chars: int, overlap: int) -> None:
    chunks = chunk_document(ParsedDocument.plain(text, "T"), max_chars=max_chars, overlap=overlap)
    covered = set()
    for chunk in chunks:
        assert text[chunk.start : chunk.end] == chunk.text
        assert 0 < len(chunk.text) <= max_chars
        covered.update(range(chunk.start, chunk.end))
    assert {i for i, ch in enumerate(text) if not ch.isspace()} <= covered
