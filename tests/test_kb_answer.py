"""Answers without an LLM on the bundled demo content: FAQ answers, cited passages, honest None."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from _kb_db import module_storage

from lastline import Confidence, Embedder, Source
from lastline.kb import KBConfig, KnowledgeBase, SearchResult
from lastline.kb._answer import compose_answer, passage_text

DEMO = Path(__file__).resolve().parents[1] / "data" / "demo"


@pytest.fixture(scope="module", params=[("use", "sqlite"), ("use+english", "sqlite"), ("use", "postgresql"),
                                        ("use+english", "postgresql")], ids="-".join)
def kb(
    embedder: Embedder, tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[KnowledgeBase]:
    models, backend = request.param
    english = request.getfixturevalue("english_embedder") if models == "use+english" else None
    with module_storage(request, backend, tmp_path_factory.mktemp("kb_answer")) as storage:
        kb = KnowledgeBase(storage, embedder, english_embedder=english)  # the service default has both spaces
        report = kb.ingest(DEMO)
        assert report.failed == [] and len(report.added) >= 24
        yield kb


@pytest.mark.parametrize("query", ["What is lastline?", "lastline 是什么", "how do I calibrate the threshold",
                                   "Does lastline call an LLM or the internet when it falls back"])
def test_a_matching_faq_question_gives_its_answer_with_medium_confidence(kb: KnowledgeBase, query: str) -> None:
    answer = kb.answer(query)
    assert answer is not None and answer.layer == "faq"
    assert answer.source == Source.KB and answer.confidence == Confidence.MEDIUM
    assert answer.degradation_depth == 3
    assert answer.citations[0].doc_id.startswith("faq.csv#")
    assert answer.notice


@pytest.mark.parametrize(
    "query", ["为什么写请求会被拒绝", "how are tenants isolated", "which rungs does the ladder have"]
)
def test_paraphrased_questions_are_answered_with_citations(kb: KnowledgeBase, query: str) -> None:
    answer = kb.answer(query)
    assert answer is not None and answer.answer
    assert answer.confidence in (Confidence.MEDIUM, Confidence.LOW)
    citation = answer.citations[0]
    assert citation.span is not None and citation.source


def test_passage_answers_quote_the_document_at_the_cited_span(kb: KnowledgeBase) -> None:
    answer = kb.answer("what happens at L4 when there is no default")
    assert answer is not None and answer.layer == "passage"
    citation = answer.citations[0]
    doc = kb.get_document(citation.doc_id)
    assert doc is not None and citation.span is not None
    quoted = doc["text"][citation.span[0] : citation.span[1]]
    assert quoted.strip() in answer.answer
    assert citation.heading


@pytest.mark.parametrize("query", ["what is the capital of France", "天气怎么样", "who wrote hamlet", "如何做红烧肉",
                                   "recommend a good movie"])
def test_off_topic_questions_get_no_answer(kb: KnowledgeBase, query: str) -> None:
    assert kb.answer(query) is None


def test_notice_follows_the_question_language(kb: KnowledgeBase) -> None:
    zh = kb.answer("降级阶梯是什么？")
    en = kb.answer("What is lastline?")
    assert zh is not None and en is not None
    assert "知识库" in zh.notice and "knowledge base" in en.notice


def test_long_or_empty_prompts_never_raise(kb: KnowledgeBase) -> None:
    long_prompt = "You are a helpful agent. " * 2000 + "How do I calibrate the cache threshold?"
    kb.answer(long_prompt)  # longer than search() accepts: the tail is used instead of a 422
    assert kb.answer("   ") is None


def test_docs_quickstart_example_runs(tmp_path: Path) -> None:
    import subprocess
    import sys

    example = Path(__file__).resolve().parents[1] / "docs" / "examples" / "kb_quickstart.py"
    done = subprocess.run([sys.executable, str(example), str(tmp_path / "kb.db")], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert "'added': " in done.stdout and "Hotels up to 150 euros" in done.stdout


def test_the_readme_ladder_question_gets_one_faq_answer_alone(kb: KnowledgeBase) -> None:
    answer = kb.answer("lastline 的降级顺序是什么？")
    assert answer is not None and answer.layer == "faq" and answer.confidence == Confidence.MEDIUM
    assert len(answer.citations) == 1 and "\n\n" not in answer.answer
    assert answer.answer.startswith("POST /v1/fallback 依次尝试五级")


def _result(kind: str, text: str, *, similarity: float, keyword_rank: int | None = 1, question: str | None = None,
            answer: str | None = None, doc_id: str = "d") -> SearchResult:
    return SearchResult(doc_id=doc_id, chunk_id=f"{doc_id}:0", title="T", text=text, score=1.0, source="s",
                        span=(10, 10 + len(text)), kind=kind, similarity=similarity, keyword_rank=keyword_rank,
                        question=question, answer=answer)


def test_an_faq_entry_that_is_the_best_result_is_answered_alone_and_never_joined() -> None:
    faq = _result("faq", "Q?\nA one.", similarity=0.7, question="Unrelated wording?", answer="A one.", doc_id="f1")
    other = _result("faq", "Q2?\nA two.", similarity=0.65, question="Other wording?", answer="A two.", doc_id="f2")
    got = compose_answer("a question", [faq, other], KBConfig())
    assert got is not None and got.answer == "A one." and [c.doc_id for c in got.citations] == ["f1"]
    passage = _result("doc", "Refunds take five days.", similarity=0.6, doc_id="p")
    got = compose_answer("a question", [passage, other], KBConfig())
    assert got is not None and got.answer == "Refunds take five days." and len(got.citations) == 1


def test_a_passage_answer_stops_before_a_trailing_link_list() -> None:
    text = ("Run npm install to add a package.\n\n### See Also\n\n* [npm ci](/commands/npm-ci)\n"
            "* [package.json](/configuring-npm/package-json)\n- https://docs.npmjs.com/cli")
    got = compose_answer("how to add a package", [_result("doc", text, similarity=0.6)], KBConfig())
    assert got is not None and got.answer == "Run npm install to add a package."
    assert got.citations[0].span == (10, 10 + len("Run npm install to add a package."))
    assert passage_text("[only](a)\n[links](b)") == "[only](a)\n[links](b)"  # nothing else: keep it whole
    assert passage_text("Use [npm ci](/ci) in CI builds.") == "Use [npm ci](/ci) in CI builds."  # prose with a link


@pytest.mark.parametrize(
    ("result", "confidence"),
    [
        (_result("faq", "Q?\nA.", similarity=0.85, question="Q?", answer="A."), Confidence.MEDIUM),  # FAQ match
        (_result("doc", "A passage.", similarity=0.9), Confidence.LOW),  # passages are low, however close
        (_result("faq", "Q?\nA.", similarity=0.6, question="Other?", answer="A."), Confidence.LOW),  # no FAQ match
    ],
)
def test_confidence_follows_the_documented_rule(result: SearchResult, confidence: Confidence) -> None:
    got = compose_answer("Q?" if result.similarity == 0.85 else "something else", [result], KBConfig())
    assert got is not None and got.confidence == confidence
