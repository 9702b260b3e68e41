"""Calibration on served decisions, and thresholds per (model, language)."""

from __future__ import annotations

import numpy as np
import pytest

from lastline import Embedder, InvalidInput, PostgresStorage, SQLiteStorage, open_storage
from lastline.cache import SemanticCache, Threshold, default_threshold
from lastline.cache.calibration import min_negatives
from lastline.cache.pairs import pairs_from_rows
from lastline.cache.served import duplicate_classes

pytestmark = pytest.mark.backends("sqlite", "postgresql")

TOPICS = ["bake sourdough bread", "learn Python", "fix a flat tyre", "train a puppy", "grow tomatoes",
          "write a cover letter", "save for retirement", "tie a bowline knot", "clean a cast iron pan",
          "start running", "meditate", "reduce stress", "paint a wall", "install Linux", "brew coffee"]
PLACES = ["library", "museum", "post office", "bank", "swimming pool", "pharmacy", "zoo", "bakery"]


def _pairs(n_neg: int) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for place in PLACES:
        rows.append({"question1": f"What time does the {place} open?", "question2": f"When does the {place} open?",
                     "is_duplicate": 1})
    combos = [(a, b) for a in TOPICS for b in TOPICS if a != b]
    for a, b in combos[:n_neg]:
        rows.append({"question1": f"How do I {a}?", "question2": f"Is it hard to {b} after I {a}?",
                     "is_duplicate": 0})
    return rows


def test_duplicate_classes_are_transitive() -> None:
    pairs = pairs_from_rows([
        {"question1": "a b", "question2": "c d", "is_duplicate": 1},
        {"question1": "c d", "question2": "e f", "is_duplicate": 1},
        {"question1": "e f", "question2": "g h", "is_duplicate": 0},
    ])
    classes = duplicate_classes(pairs)
    assert classes["a b"] == classes["c d"] == classes["e f"] != classes["g h"]


def test_a_served_calibration_predicts_what_a_cache_of_that_size_serves(
        storage: SQLiteStorage | PostgresStorage, embedder: Embedder) -> None:
    """The false-hit rate calibration reports is what a real cache holding the question1s serves."""
    rows = _pairs(min_negatives(0.05) + 40)
    pairs = pairs_from_rows(rows)
    cache = SemanticCache(storage, embedder)
    cal = cache.calibrate(pairs, target=0.05, store=False)
    assert cal.basis == "served" and cal.language == "en" and cal.bound <= 0.05
    assert cal.partition_size == len({r["question1"] for r in rows})
    cache.put_many([{"prompt": q, "response": q} for q in dict.fromkeys(str(r["question1"]) for r in rows)])
    negatives = [str(r["question2"]) for r in rows if not r["is_duplicate"]]
    served = [cache.lookup(q, threshold=cal.threshold).hit for q in negatives]
    assert cal.n_negatives == len(negatives)
    assert np.mean(served) == pytest.approx(cal.false_hit_rate)
    positives = [(str(r["question2"]), str(r["question1"])) for r in rows if r["is_duplicate"]]
    right = [cache.lookup(q2, threshold=cal.threshold).answer == q1 for q2, q1 in positives]
    assert np.mean(right) == pytest.approx(cal.hit_rate)


def test_a_stated_partition_size_is_used_and_recorded(
        storage: SQLiteStorage | PostgresStorage, embedder: Embedder) -> None:
    cache = SemanticCache(storage, embedder)
    pairs = pairs_from_rows(_pairs(min_negatives(0.05) + 40))
    cache.calibrate(pairs, target=0.05, partition_size=10, tenant="acme")
    stored = cache.get_threshold(tenant="acme", language="en")
    assert stored.partition_size == 10 and stored.recalibrate_above == 20 and stored.source == "pairs"
    with pytest.raises(InvalidInput, match="partition_size"):
        cache.calibrate(pairs, target=0.05, partition_size=0)


def test_stats_say_when_the_tenant_outgrew_its_calibration(
        storage: SQLiteStorage | PostgresStorage, embedder: Embedder) -> None:
    cache = SemanticCache(storage, embedder)
    cache.set_threshold(tenant="t", threshold=Threshold(0.9, calibrated=True, language="en", partition_size=2,
                                                        recalibrate_above=4))
    cache.put_many([{"prompt": f"How do I {t}?", "response": t} for t in TOPICS[:4]], tenant="t")
    assert cache.stats(tenant="t")["recalibration_due"] == []
    cache.put("How do I paint a fence?", "brush", tenant="t")
    assert cache.stats(tenant="t")["recalibration_due"] == ["en:intercept"]


def test_lookups_use_the_threshold_of_their_language(
        storage: SQLiteStorage | PostgresStorage, embedder: Embedder) -> None:
    cache = SemanticCache(storage, embedder)
    cache.set_threshold(threshold=Threshold(0.5, calibrated=True, language="en"))
    cache.put("How do I reset my password?", "Settings → Security")
    cache.put("我想借五千元怎么操作？", "在首页点击借款。")
    english = cache.lookup("Where can I change my login password?")
    chinese = cache.lookup("借款怎么还？")
    assert english.threshold == 0.5
    assert chinese.threshold == default_threshold(cache.model_id, "intercept", language="zh").value
    cache.set_threshold(threshold=Threshold(0.6, calibrated=True, language="*"))
    assert cache.lookup("借款怎么还？").threshold == 0.6  # '*' stands in for a language with none of its own
    assert cache.lookup("Where can I change my login password?").threshold == 0.5
    assert cache.reset_threshold(language="en") == 1
    assert cache.lookup("Where can I change my login password?").threshold == 0.6


def test_an_unknown_language_is_refused_by_name(
        storage: SQLiteStorage | PostgresStorage, embedder: Embedder) -> None:
    cache = SemanticCache(storage, embedder)
    with pytest.raises(InvalidInput, match="language"):
        cache.get_threshold(language="fr")
    with pytest.raises(InvalidInput, match="language"):
        Threshold(0.9, language="fr")


def test_thresholds_stored_before_languages_existed_apply_to_every_language(
        db_path: object, embedder: Embedder) -> None:
    """Migration cache_0007 keeps an old row under '*' (SQLite only: PostgreSQL's schema starts with languages)."""
    from lastline.cache._schema import MIGRATIONS

    storage = open_storage(db_path)  # type: ignore[arg-type]
    storage.migrate(MIGRATIONS[:6])
    with storage.atomic() as conn:
        conn.execute("INSERT INTO cache_thresholds (tenant, model_id, mode, value, calibrated, target, bound,"
                     " n_negatives, source, updated_at) VALUES ('default', ?, 'intercept', 0.91, 1, 0.02, 0.019,"
                     " 4000, 'pairs', 0)", (embedder.model_id,))
    cache = SemanticCache(storage, embedder)
    for language in ("en", "zh", "*"):
        got = cache.get_threshold(language=language)
        assert got.value == 0.91 and got.calibrated and got.language == "*" and got.n_negatives == 4000
    storage.close()


def test_an_english_paraphrase_hits_with_the_english_default(
        storage: SQLiteStorage | PostgresStorage, embedder: Embedder) -> None:
    """Cosine ≈0.97 with the bundled model: above the English default, below the one Chinese sets need."""
    cache = SemanticCache(storage, embedder)
    entry = cache.put("How do I reset my password?", "Settings → Security → Reset password.")
    res = cache.lookup("How can I reset my password?")
    assert res.hit and res.layer == "semantic" and res.entry_id == entry and res.confidence == "high"
    english = default_threshold(cache.model_id, "intercept", language="en").value
    chinese = default_threshold(cache.model_id, "intercept", language="zh").value
    assert res.threshold == english and english <= res.similarity < chinese  # type: ignore[operator]
    assert not cache.lookup("How do I delete my account?").hit
