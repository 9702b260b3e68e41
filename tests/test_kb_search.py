"""Search: English and Chinese queries, modes, filters inside the search, syntax-proof input, tenant isolation.

Every test runs on SQLite (FTS5 + sqlite-vec) and PostgreSQL (tsvector + pgvector) alike.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from _kb_db import module_storage
from _kb_files import write_folder
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lastline import Embedder, InvalidInput
from lastline.kb import KnowledgeBase


@pytest.fixture(scope="module", params=[("use", "sqlite"), ("use+english", "sqlite"), ("use", "postgresql"),
                                        ("use+english", "postgresql")], ids="-".join)
def kb(
    embedder: Embedder, tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[KnowledgeBase]:
    """One KB per model set and backend: the searches below only read (the tenant test writes its own tenant)."""
    tmp = tmp_path_factory.mktemp("kb_search")
    models, backend = request.param
    english = request.getfixturevalue("english_embedder") if models == "use+english" else None
    with module_storage(request, backend, tmp) as storage:
        kb = KnowledgeBase(storage, embedder, english_embedder=english)  # the service default has both spaces
        kb.ingest(write_folder(tmp / "docs"), collection="support")
        kb.add_document(title="Careers", text="We are hiring engineers in Berlin.", source="careers.txt",
                        collection="company", tags=["jobs"], metadata={"lang": "en"}, doc_id="careers")
        yield kb


@pytest.mark.parametrize("mode", ["hybrid", "keyword", "vector"])
def test_english_query_finds_the_passage_with_heading_and_span(kb: KnowledgeBase, mode: str) -> None:
    top = kb.search("gift cards refunded?", k=3, mode=mode)[0]  # type: ignore[arg-type]
    assert top.doc_id in {"handbook.md", "refunds.docx"}
    assert top.heading[-1] == "Exceptions"
    doc = kb.get_document(top.doc_id)
    assert doc is not None and doc["text"][top.span[0] : top.span[1]] == top.text


def test_english_stemming_matches_other_word_forms(kb: KnowledgeBase) -> None:
    assert kb.search("shipped worldwide", k=1, mode="keyword")[0].doc_id == "shipping.html"


@pytest.mark.parametrize("mode", ["hybrid", "keyword", "vector"])
def test_chinese_query_finds_chinese_faq(kb: KnowledgeBase, mode: str) -> None:
    results = kb.search("收货地址怎么改", k=3, mode=mode)  # type: ignore[arg-type]
    assert results[0].answer == "在订单详情页点击修改地址即可。"


def test_exact_faq_question_ranks_first(kb: KnowledgeBase) -> None:
    top = kb.search("how long do refunds take", k=3)[0]
    assert top.kind == "faq" and top.answer == "Refunds take five working days."


def test_collection_tag_and_metadata_filters_apply_inside_the_search(kb: KnowledgeBase) -> None:
    for mode in ("hybrid", "keyword", "vector"):
        only = kb.search("refund hiring", k=10, filters={"collection": "company"}, mode=mode)  # type: ignore[arg-type]
        assert {r.doc_id for r in only} == {"careers"}
        tagged = kb.search("refund", k=10, filters={"tags": ["refund"]}, mode=mode)  # type: ignore[arg-type]
        assert [r.doc_id for r in tagged] and all("refund" in r.tags for r in tagged)
        meta = kb.search("cancel order 取消订单", k=10, filters={"metadata": {"channel": "app"}}, mode=mode)  # type: ignore[arg-type]
        assert [r.metadata for r in meta] == [{"channel": "app"}]


def test_unknown_filter_and_bad_arguments_are_invalid_input(kb: KnowledgeBase) -> None:
    with pytest.raises(InvalidInput, match="unknown key"):
        kb.search("x", filters={"colour": "red"})
    with pytest.raises(InvalidInput):
        kb.search("   ")
    with pytest.raises(InvalidInput):
        kb.search("x", k=0)


HOSTILE = ['"', '"unbalanced', "*", "NEAR(a b)", "-refund", "a AND OR NOT b", "(refund", "refund)", "col:refund",
           "^start", '退款"*', "{}[]", "NEAR/3", '"a" OR b* NEAR(refund gift, 3)', "&|!:*()", "refund & !gift | card:*",
           "'refund'", "'''", "refund' | 'gift", "<-> <2> !!", "\\' OR 1=1 --", "gift\x00card",
           "x" * 4000, "退" * 4000, "refund " * 570, '"' * 4000]


@pytest.mark.parametrize("query", HOSTILE, ids=lambda q: q[:24])
def test_query_syntax_in_user_text_is_plain_words_and_never_errors(kb: KnowledgeBase, query: str) -> None:
    for mode in ("keyword", "hybrid"):
        results = kb.search(query, k=5, mode=mode)  # type: ignore[arg-type]
        assert isinstance(results, list)


def test_operators_in_user_text_are_searched_as_words(kb: KnowledgeBase) -> None:
    """``&``, ``|``, ``!``, quotes and ``NEAR`` around real words change nothing: the words are found."""
    def ranked(query: str) -> list[tuple[float, str]]:  # ties in any order: sums of floats may differ in the ulp
        return sorted((-round(r.score, 6), r.chunk_id) for r in kb.search(query, k=5, mode="keyword"))

    plain = ranked("gift cards refunded")
    assert plain
    for hostile in ('"gift" OR cards* NEAR(refunded)', "!gift & cards | 'refunded':*", "(gift) -cards ^refunded"):
        assert ranked(hostile) == plain


def test_a_prompt_far_longer_than_a_query_is_answered_from_its_tail(kb: KnowledgeBase) -> None:
    prompt = "NEAR(" * 2000 + "&|!:*()" * 500 + " how long do refunds take"  # 13k characters of operators
    kb.answer(prompt)  # the last MAX_QUERY_CHARS are used: no 422, no error
    [top] = kb.search(prompt[-4000:], k=1, mode="keyword")  # the operators there are no words at all
    assert top.answer == "Refunds take five working days."


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=st.text(min_size=1, max_size=120).filter(str.strip))
def test_any_text_is_a_safe_keyword_query(kb: KnowledgeBase, query: str) -> None:
    kb.search(query, k=3, mode="keyword")


def test_tenants_never_see_each_others_chunks(kb: KnowledgeBase) -> None:
    kb.add_document(tenant="acme", title="Acme secret", text="The acme launch code is swordfish.", doc_id="secret")
    for mode in ("hybrid", "keyword", "vector"):
        leaked = kb.search("acme launch code swordfish", k=50, mode=mode)  # type: ignore[arg-type]
        assert all(r.doc_id != "secret" for r in leaked)
        own = kb.search("acme launch code swordfish", tenant="acme", k=50, mode=mode)  # type: ignore[arg-type]
        assert [r.doc_id for r in own] == ["secret"]
    assert kb.get_document("secret") is None and kb.get_document("secret", tenant="acme") is not None
    assert kb.delete_document("secret") is False
    assert kb.answer("what is the acme launch code?") is None or "swordfish" not in (
        kb.answer("what is the acme launch code?").answer or "")


def test_results_past_a_vector_list_still_carry_their_cosines(kb: KnowledgeBase) -> None:
    """A chunk the kNN list did not reach (a keyword-only hit) reports its cosine from its stored vector."""
    from dataclasses import replace

    shallow = KnowledgeBase(kb.storage, kb.embedder, replace(kb.config, candidates=1),
                            english_embedder=kb.english_embedder)
    past_the_list = 0
    for query in ("how long does delivery take", "gift cards refunded?", "refund policy for gift cards"):
        deep = {r.chunk_id: r for r in kb.search(query, k=100, mode="vector")}
        for r in shallow.search(query, k=5):
            past_the_list += r.vector_rank is None
            assert r.similarity == pytest.approx(deep[r.chunk_id].similarity, abs=1e-5)
            if kb.english_embedder is not None and deep[r.chunk_id].english_similarity is not None:
                assert r.english_similarity == pytest.approx(deep[r.chunk_id].english_similarity, abs=1e-5)
    assert past_the_list >= 1
