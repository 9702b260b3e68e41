"""FAISS is derived from the database: flat and HNSW both answer, deletions reach it, restarts rebuild it."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from _cache_questions import PARAPHRASES, QUESTIONS
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz

from lastline import Embedder, PostgresStorage, SQLiteStorage, normalize_text
from lastline.cache import CacheConfig, SemanticCache
from lastline.cache._fuzzy import length_window, typo_key, typo_similarity
from lastline.cache._index import PartitionIndex, VectorIndex

pytest_plugins = ["_storages"]  # the reopen fixture
pytestmark = pytest.mark.backends("sqlite", "postgresql")

Storage = SQLiteStorage | PostgresStorage


def _unit(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    v = rng.standard_normal((n, d)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


@pytest.mark.parametrize("hnsw_threshold", [1_000_000, 4], ids=["flat", "hnsw"])
def test_lookups_answer_the_same_with_flat_and_hnsw(storage: Storage, embedder: Embedder, hnsw_threshold: int) -> None:
    cache = SemanticCache(storage, embedder, CacheConfig(hnsw_threshold=hnsw_threshold))
    ids = cache.put_many([{"prompt": q, "response": f"answer {i}"} for i, q in enumerate(QUESTIONS)])
    key = ("default", "-")
    assert cache.index.kind(key) == ("hnsw" if hnsw_threshold == 4 else "flat")
    for i, para in enumerate(PARAPHRASES):
        res = cache.lookup(para, threshold=0.85)
        assert res.hit and res.entry_id == ids[i], para
    assert cache.delete(ids[0])
    assert cache.lookup(PARAPHRASES[0], threshold=0.85).entry_id != ids[0]


def test_hnsw_partition_skips_tombstones_in_search_and_purges_them() -> None:
    rng = np.random.default_rng(0)
    vecs = _unit(rng, 300, 16)
    index = VectorIndex(16, hnsw_threshold=50, hnsw_m=16, fuzzy_scan_limit=10)
    key = ("t", "-")
    index.add(key, list(range(300)), vecs, ["p"] * 300)
    part = index._parts[key]
    assert part.hnsw and part.prompts is None and not part.tombstones
    assert index.search(key, vecs[7], 1)[0][0] == 7
    index.remove([7])
    assert 7 in part.tombstones
    found = index.search(key, vecs[7], 5)
    assert len(found) == 5 and all(seq != 7 for seq, _ in found)  # filtered inside the graph walk
    index.remove(list(range(100, 200)))  # past a quarter: rebuilt without tombstones
    assert not part.tombstones and part.index.ntotal == 199
    assert index.search(key, vecs[250], 1)[0][0] == 250
    index.remove(list(range(0, 60)) + list(range(200, 300)))  # below the threshold again: flat
    assert not part.hnsw and len(part) == 40 and index.search(key, vecs[80], 1)[0][0] == 80


@pytest.mark.parametrize("hnsw_threshold", [1_000_000, 50], ids=["flat", "hnsw"])
def test_one_search_for_many_vectors_finds_what_a_search_for_each_finds(hnsw_threshold: int) -> None:
    """``nearest_many`` (a round of lookups) returns, vector by vector, what ``nearest`` returns: the
    same entries and the same scores to the last bit, so a lookup decides alike in a round or alone;
    tombstones are skipped as well, and a missing partition answers every vector with nothing."""
    rng = np.random.default_rng(5)
    vecs = _unit(rng, 400, 32)
    index = VectorIndex(32, hnsw_threshold=hnsw_threshold, hnsw_m=16, fuzzy_scan_limit=10)
    key = ("t", "-")
    index.add(key, list(range(400)), vecs, ["p"] * 400)
    index.remove([5, 17, 230])
    queries = np.vstack([vecs[:70], _unit(rng, 30, 32)])  # stored vectors (deleted ones too) and others
    many = index.nearest_many(key, queries, 8)
    assert many == [index.nearest(key, q, 8) for q in queries]
    assert all(n.exhaustive == (hnsw_threshold > 400) and len(n.hits) == 8 for n in many)
    assert many[3].hits[0] == (3, pytest.approx(1.0, abs=1e-5))
    assert all(seq not in (5, 17, 230) for n in many for seq, _ in n.hits)
    assert index.nearest_many(("t", "other"), queries[:3], 8) == [index.nearest(("t", "other"), queries[0], 8)] * 3


def test_rebuild_replays_writes_made_while_it_was_building() -> None:
    rng = np.random.default_rng(4)
    vecs = _unit(rng, 40, 8)
    part = PartitionIndex(8, hnsw_threshold=10, hnsw_m=16, ef_search=64, ef_construction=80, fuzzy_scan_limit=5)
    part.add(np.arange(20, dtype=np.int64), vecs[:20], ["x"] * 20)
    ids, snap = part.snapshot()
    built = part.build(ids, snap, hnsw=True)
    part.add(np.arange(20, 30, dtype=np.int64), vecs[20:30], ["y"] * 10)  # meanwhile: adds and a delete
    part.remove([3])
    part.install(ids, snap, hnsw=True, built=built)
    assert part.hnsw and part.tombstones == {3} and part.index.ntotal == 30
    assert part.search(vecs[25:26], 1)[0][0][0] == 25
    assert all(seq != 3 for seq, _ in part.search(vecs[3:4], 5)[0])


def test_flat_partition_removes_ids_in_place() -> None:
    rng = np.random.default_rng(1)
    vecs = _unit(rng, 20, 8)
    part = PartitionIndex(8, hnsw_threshold=100, hnsw_m=16, ef_search=64, ef_construction=80, fuzzy_scan_limit=100)
    part.add(np.arange(20, dtype=np.int64), vecs, [str(i) for i in range(20)])
    part.remove([3, 4])
    assert part.index.ntotal == 18 and not part.hnsw
    assert part.prompts is not None and 3 not in part.prompts


def test_hnsw_recall_on_synthetic_vectors_stays_high() -> None:
    rng = np.random.default_rng(2)
    base = _unit(rng, 3000, 64)
    index = VectorIndex(64, hnsw_threshold=500)
    index.add(("t", "c"), list(range(3000)), base, ["x"] * 3000)
    assert index.kind(("t", "c")) == "hnsw"
    queries = base[:200] + 0.05 * _unit(rng, 200, 64)
    found = [index.search(("t", "c"), q / np.linalg.norm(q), 1)[0][0] for q in queries]
    assert np.mean(np.array(found) == np.arange(200)) >= 0.95


def test_partitions_never_return_another_partitions_vectors() -> None:
    rng = np.random.default_rng(3)
    v = _unit(rng, 4, 8)
    index = VectorIndex(8, hnsw_threshold=100)
    index.add(("a", "-"), [1, 2], v[:2], ["x", "y"])
    index.add(("b", "-"), [3, 4], v[2:], ["z", "w"])
    assert {seq for seq, _ in index.search(("a", "-"), v[3], 10)} == {1, 2}
    assert index.search(("c", "-"), v[0], 10) == []


@pytest.mark.parametrize("hnsw_threshold", [1_000_000, 4], ids=["flat", "hnsw"])
def test_restart_rebuilds_the_index_with_identical_answers(reopen: Callable[[], Storage], embedder: Embedder,
                                                          hnsw_threshold: int) -> None:
    config = CacheConfig(hnsw_threshold=hnsw_threshold)
    probes = [*PARAPHRASES, *QUESTIONS, "完全无关的问题", "Something else entirely"]
    storage = reopen()
    cache = SemanticCache(storage, embedder, config)
    ids = cache.put_many([{"prompt": q, "response": f"answer {i}", "context": "c" if i % 2 else None}
                          for i, q in enumerate(QUESTIONS)])
    cache.delete(ids[2])
    before = [(r.entry_id, r.layer, r.best_similarity) for p in probes
              for r in (cache.lookup(p, threshold=0.8), cache.lookup(p, context="c", threshold=0.8))]
    stats_before = cache.index.stats()
    storage.close()

    again = SemanticCache(reopen(), embedder, config)
    after = [(r.entry_id, r.layer, r.best_similarity) for p in probes
             for r in (again.lookup(p, threshold=0.8), again.lookup(p, context="c", threshold=0.8))]
    assert again.index.stats() == stats_before
    for (id_a, layer_a, sim_a), (id_b, layer_b, sim_b) in zip(before, after, strict=True):
        assert (id_a, layer_a) == (id_b, layer_b)
        assert (sim_a is None) == (sim_b is None)
        if sim_a is not None:
            assert sim_a == pytest.approx(sim_b, abs=1e-5)


def test_rows_of_another_model_are_re_embedded_never_mixed(storage: Storage, embedder: Embedder) -> None:
    cache = SemanticCache(storage, embedder)
    entry = cache.put("How do I reset my password?", "x")
    if isinstance(storage, PostgresStorage):  # as if written by another model with another dimension
        with storage.maintenance() as conn:
            conn.execute("UPDATE cache_entries SET model_id = 'other-model', embedding = '[0,0,0,0]'")
    else:
        with storage.atomic() as conn:
            conn.execute("UPDATE cache_entries SET model_id = 'other-model', vector = ?", (b"\0" * 16,))
    again = SemanticCache(storage, embedder)
    rows = [r for batch in again.store.vectors(embedder.model_id) for r in batch]
    assert [(r.seq, len(r.vector)) for r in rows] == [(again.store.by_id("default", entry).seq,  # type: ignore[union-attr]
                                                       embedder.dim * 4)]
    assert again.store.foreign_model_rows(embedder.model_id, 10) == []
    assert again.lookup("How can I reset my password?", threshold=0.9).entry_id == entry
    assert normalize_text("How do I reset my password?") in again.index.fuzzy_choices(
        ("default", "-"), normalize_text("How do I reset my password?"), 90.0).texts  # type: ignore[union-attr]


def test_every_thread_that_searches_runs_faiss_on_one_openmp_thread() -> None:
    """OpenMP's thread count is per thread: a request thread must not search with one thread per core.

    Setting it at import covered only the importing thread; request threads searched with the
    default (every core), whose spinning workers made one flat search 40x slower on a busy host.
    """
    import threading

    import faiss

    rng = np.random.default_rng(7)
    vecs = _unit(rng, 64, 32)
    index = VectorIndex(32, hnsw_threshold=1_000_000)
    index.add(("t", "-"), list(range(64)), vecs, [f"q{i}" for i in range(64)])
    seen: dict[str, int] = {}

    def search_in_a_new_thread() -> None:
        seen["before"] = faiss.omp_get_max_threads()
        assert index.search(("t", "-"), vecs[3], 1)[0][0] == 3
        seen["after"] = faiss.omp_get_max_threads()

    worker = threading.Thread(target=search_in_a_new_thread)
    worker.start()
    worker.join()
    assert seen["after"] == 1
    if seen["before"] == 1:
        pytest.skip("one core: a new thread already defaults to one OpenMP thread, nothing to limit")


def test_nearest_says_a_flat_search_is_exhaustive_and_an_hnsw_one_is_not() -> None:
    """The lookup path skips value candidates only after an exhaustive search (``_unseen_may_pass``)."""
    rng = np.random.default_rng(4)
    vecs = _unit(rng, 60, 16)
    key = ("t", "-")
    flat = VectorIndex(16, hnsw_threshold=1_000)
    flat.add(key, list(range(60)), vecs, [""] * 60)
    graph = VectorIndex(16, hnsw_threshold=10)
    graph.add(key, list(range(60)), vecs, [""] * 60)
    assert graph.kind(key) == "hnsw"
    exact = flat.nearest(key, vecs[5], 8)
    assert exact.exhaustive and exact.hits == flat.search(key, vecs[5], 8) and exact.hits[0][0] == 5
    assert not graph.nearest(key, vecs[5], 8).exhaustive
    assert flat.nearest(("other", "-"), vecs[5], 8) == ([], True)  # an empty partition: nothing left out


def test_the_store_hands_back_each_vector_bit_for_bit_as_embedded(storage: Storage, embedder: Embedder) -> None:
    """The index a replica rebuilds from the store must hold the vectors the writer embedded (binary read)."""
    cache = SemanticCache(storage, embedder)
    prompts = ["How do I reset my password?", "我的快递到哪里了？", "What is 2.5% of 1,200 EUR?"]
    for prompt in prompts:
        cache.put(prompt, "x")
    rows = [r for batch in cache.store.vectors(embedder.model_id, batch=2) for r in batch]
    expected = np.concatenate([embedder.encode([normalize_text(p)]) for p in prompts]).astype(np.float32)
    got = np.stack([np.frombuffer(r.vector, dtype=np.float32) for r in rows])
    assert [r.prompt_norm for r in rows] == [normalize_text(p) for p in prompts]
    assert np.array_equal(got, expected)


@given(st.text(max_size=60), st.text(max_size=60), st.sampled_from([50.0, 80.0, 90.0, 95.0, 99.0]))
@settings(max_examples=300, deadline=None)
def test_a_text_outside_the_length_window_never_reaches_the_fuzzy_ratio(a: str, b: str, min_ratio: float) -> None:
    lo, hi = length_window(len(a), min_ratio)
    if fuzz.ratio(a, b) >= min_ratio:
        assert lo <= len(b) <= hi


#: Characters of Chinese and English questions: CJK, Latin letters, digits, spaces and punctuation.
_MIXED = st.text(alphabet=st.sampled_from("借款花呗还不了吗qQvip ab abcd iphone0125  ,?？。-"), max_size=24)


@st.composite
def _near(draw: st.DrawFn) -> tuple[str, str]:
    """A text and a variant of it: whitespace moved, a character changed, or another text."""
    a = normalize_text(draw(_MIXED)) or "借款"
    how = draw(st.sampled_from(["spaces", "edit", "other"]))
    if how == "spaces":
        at = draw(st.integers(0, len(a)))
        b = (a[:at] + " " + a[at:]) if draw(st.booleans()) else a.replace(" ", "", 1)
    elif how == "edit":
        at = draw(st.integers(0, len(a) - 1))
        b = a[:at] + draw(st.sampled_from("借还qv1 a")) + a[at + 1:]
    else:
        b = draw(_MIXED)
    return a, normalize_text(b) or "还款"


@given(_near(), st.sampled_from([80.0, 90.0, 95.0]))
@settings(max_examples=500, deadline=None)
def test_a_typo_level_match_of_a_text_with_a_typo_key_shares_it(pair: tuple[str, str], min_ratio: float) -> None:
    """The typo key is complete: a query with one finds every prompt that could be its typo-level match."""
    a, b = pair
    if typo_key(a) is not None and typo_similarity(a, b, min_ratio) is not None:
        assert typo_key(b) == typo_key(a)


def test_a_query_without_a_latin_word_gets_the_prompts_of_its_typo_key_through_adds_and_removes() -> None:
    index = VectorIndex(4, hnsw_threshold=1_000, fuzzy_scan_limit=100)
    key = ("default", "-")
    rng = np.random.default_rng(9)
    prompts = {1: "qq 12怎么办", 2: "qq12怎么办", 3: "qq1 2怎么办", 4: "qq12怎么 办理", 5: "iphone 12怎么办"}
    index.add(key, list(prompts), rng.normal(size=(5, 4)).astype(np.float32), list(prompts.values()))

    def filed(text: str) -> set[int] | None:
        choices = index.fuzzy_choices(key, text, 90.0)
        return None if choices is None else set(choices.seqs)

    assert filed("qq12 怎么办") == {1, 2, 3}
    index.remove([2])
    assert filed("qq12 怎么办") == {1, 3}
    index.remove([1, 3])
    assert filed("qq12 怎么办") == set() and filed("qq12怎么办理") == {4}
    assert filed("iphone 12怎么办") == {4, 5}  # a Latin word: the length window, scanned


def test_fuzzy_choices_are_the_prompts_of_the_length_window_through_adds_and_removes() -> None:
    index = VectorIndex(4, hnsw_threshold=1_000, fuzzy_scan_limit=100)
    key = ("default", "-")
    rng = np.random.default_rng(7)
    prompts = {seq: "x" * (5 + (seq * 7) % 40) for seq in range(1, 60)}
    index.add(key, list(prompts), rng.normal(size=(len(prompts), 4)).astype(np.float32), list(prompts.values()))
    index.remove([3, 10, 11, 40])
    for seq in (3, 10, 11, 40):
        del prompts[seq]
    index.add(key, [10], rng.normal(size=(1, 4)).astype(np.float32), ["y" * 20])  # back, with another prompt
    prompts[10] = "y" * 20
    for text in ("q" * 5, "q" * 20, "q" * 44, "q" * 80):
        lo, hi = length_window(len(text), 90.0)
        choices = index.fuzzy_choices(key, text, 90.0)
        assert choices is not None
        assert dict(zip(choices.seqs, choices.texts, strict=True)) == {
            s: p for s, p in prompts.items() if lo <= len(p) <= hi}
    lengths, seqs, texts = index._parts[key].by_length
    assert lengths == sorted(lengths)
    assert sorted(zip(seqs, texts, strict=True)) == sorted(prompts.items())
    assert lengths == [len(t) for t in texts]


def test_a_length_window_past_the_fuzzy_scan_limit_offers_no_choices() -> None:
    """The limit counts the prompts a scan would read (one length window), not the partition."""
    index = VectorIndex(4, hnsw_threshold=1_000, fuzzy_scan_limit=10)
    key = ("default", "-")
    prompts = ["same length"] * 11 + ["a much longer prompt than those"] * 3
    index.add(key, list(range(1, 15)), np.ones((14, 4), dtype=np.float32), prompts)
    assert index.fuzzy_choices(key, "same length", 90.0) is None
    longer = index.fuzzy_choices(key, "a much longer prompt than these", 90.0)
    assert longer is not None and sorted(longer.seqs) == [12, 13, 14]
    index.remove([1])  # ten left in the window: scanned again
    window = index.fuzzy_choices(key, "same length", 90.0)
    assert window is not None and sorted(window.seqs) == list(range(2, 12))


def test_a_partition_keeps_its_prompts_until_it_holds_four_times_the_scan_limit() -> None:
    index = VectorIndex(4, hnsw_threshold=1_000, fuzzy_scan_limit=5)
    key = ("default", "-")
    rng = np.random.default_rng(8)
    prompts = [f"prompt {i:02d}" for i in range(21)]
    index.add(key, list(range(1, 21)), rng.normal(size=(20, 4)).astype(np.float32), prompts[:20])
    assert index._parts[key].prompts is not None and index.fuzzy_choices(key, "prompt 00", 90.0) is None
    index.add(key, [21], rng.normal(size=(1, 4)).astype(np.float32), prompts[20:])
    assert index._parts[key].prompts is None and index._parts[key].by_length == ([], [], [])
    assert index.fuzzy_choices(key, "a different length", 90.0) is None


def test_a_warm_up_reads_the_newest_prompts_of_every_tenant_first(storage: Storage, embedder: Embedder) -> None:
    cache = SemanticCache(storage, embedder)
    for i, question in enumerate(QUESTIONS[:4]):
        cache.put(question, "x", tenant="default" if i % 2 else "other")
    cache.put(QUESTIONS[0], "y", tenant="other")  # replaced: its key moves to the newest row
    assert cache.store.recent_prompts(3) == [normalize_text(q) for q in (QUESTIONS[0], QUESTIONS[3], QUESTIONS[2])]
    assert cache.store.recent_prompts(10) == [normalize_text(q) for q in (QUESTIONS[0], *QUESTIONS[3:0:-1])]
