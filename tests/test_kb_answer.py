"""Answers without an LLM on the bundled demo content: FAQ answers, cited passages, honest None."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from lastline import Confidence, Embedder, Source, open_storage
from lastline.kb import KnowledgeBase

DEMO = Path(__file__).resolve().parents[1] / "data" / "demo"


@pytest.fixture(scope="module", params=["use", "use+english"])
def kb(
    embedder: Embedder, tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[KnowledgeBase]:
    storage = open_storage(tmp_path_factory.mktemp("kb_answer") / "kb.db")
    english = request.getfixturevalue("english_embedder") if request.param == "use+english" else None
    kb = KnowledgeBase(storage, embedder, english_embedder=english)  # the service default has both spaces
    report = kb.ingest(DEMO)
    assert report.failed == [] and len(report.added) >= 24
    yield kb
    storage.close()


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
