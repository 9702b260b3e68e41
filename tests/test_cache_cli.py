"""`lastline cache …`: import, lookup, stats, and calibrate scoring pairs the way lookups judge them."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from lastline import Embedder, PostgresStorage, SQLiteStorage
from lastline.api.cli import app
from lastline.cache import SemanticCache
from lastline.cache.calibration import min_negatives
from lastline.cache.pairs import LabelledPairs, read_pairs, score_pairs

runner = CliRunner()

PLACES = ["library", "museum", "post office", "bank", "swimming pool", "pharmacy", "zoo", "bakery",
          "train station", "gym", "cinema", "city hall", "dentist", "supermarket", "bookshop"]
TOPICS = ["bake sourdough bread", "learn Python", "fix a flat tyre", "train a puppy", "grow tomatoes",
          "write a cover letter", "save for retirement", "tie a bowline knot", "clean a cast iron pan",
          "start running", "meditate", "reduce stress", "paint a wall", "install Linux", "brew coffee"]


def _pairs_csv(path: Path, n_neg: int) -> Path:
    """Duplicates that paraphrase, non-duplicates that share a template but not a topic."""
    rows = []
    for place in PLACES:
        rows.append((f"What time does the {place} open?", f"When does the {place} open?", 1))
        rows.append((f"Where is the nearest {place}?", f"How do I find the closest {place}?", 1))
    # every non-duplicate question2 is a distinct question with no duplicate stored: calibration judges
    # served decisions, so each is one lookup that should miss
    combos = [(a, b) for a in TOPICS for b in TOPICS if a != b]
    for a, b in combos[:n_neg]:
        rows.append((f"How do I {a}?", f"Is it hard to {b} after I {a}?", 0))
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["question1", "question2", "is_duplicate"])
        writer.writerows(rows)
    return path


def _rows(path: Path) -> list[tuple[str, str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return [(r["question1"], r["question2"], r["is_duplicate"]) for r in csv.DictReader(handle)]


def _invoke(*args: str) -> object:
    result = runner.invoke(app, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


def test_calibrate_stores_the_threshold_and_stats_then_says_calibrated(tmp_path: Path, embedder: Embedder) -> None:
    db = str(tmp_path / "c.db")
    pairs = _pairs_csv(tmp_path / "pairs.csv", n_neg=min_negatives(0.05) + 20)
    before = json.loads(_invoke("cache", "stats", "--db", db, "--json").stdout)
    assert before["calibrated"] is False
    out = json.loads(_invoke("cache", "calibrate", str(pairs), "--target-false-hit", "0.05", "--tenant", "acme",
                             "--db", db, "--json").stdout)
    assert out["stored"] is True and out["bound"] <= 0.05 and out["n_negatives"] == min_negatives(0.05) + 20
    assert out["n_positives"] == 2 * len(PLACES) and out["curve"]
    after = json.loads(_invoke("cache", "stats", "--tenant", "acme", "--db", db, "--json").stdout)
    assert after["calibrated"] is True
    stored = after["threshold_by_language"]["en"]["intercept"]  # English pairs calibrate English lookups
    assert stored["language"] == out["language"] == "en" and stored["value"] == pytest.approx(out["threshold"])
    assert stored["partition_size"] == out["partition_size"] == len({q for q, _, _ in _rows(pairs)})
    assert stored["recalibrate_above"] == 2 * stored["partition_size"]
    assert after["threshold_by_language"]["zh"]["intercept"]["calibrated"] is False
    assert stored["n_negatives"] == out["n_negatives"] and stored["bound"] == pytest.approx(out["bound"])
    other = json.loads(_invoke("cache", "stats", "--tenant", "globex", "--db", db, "--json").stdout)
    assert other["calibrated"] is False  # per tenant


def test_calibrate_prints_the_curve_bound_and_sample_size(tmp_path: Path, embedder: Embedder) -> None:
    n_neg = min_negatives(0.05, "clopper-pearson") + 5
    pairs = _pairs_csv(tmp_path / "pairs.csv", n_neg=n_neg)
    text = _invoke("cache", "calibrate", str(pairs), "--target-false-hit", "0.05", "--dry-run",
                   "--method", "clopper-pearson", "--db", str(tmp_path / "c.db")).stdout
    assert "false-hit curve" in text and "clopper-pearson upper bound" in text
    assert f"on {n_neg} labelled non-duplicates" in text and "Not stored" in text


def test_calibrate_refuses_too_few_negatives_with_a_clear_error(tmp_path: Path) -> None:
    pairs = _pairs_csv(tmp_path / "pairs.csv", n_neg=30)
    result = subprocess.run(
        [sys.executable, "-m", "lastline.api", "cache", "calibrate", str(pairs), "--target-false-hit", "0.02",
         "--db", str(tmp_path / "c.db")], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert result.returncode == 2
    assert f"needs at least {min_negatives(0.02)} labelled non-duplicates" in result.stderr
    assert "got 30" in result.stderr


def test_calibrate_names_a_missing_column(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("q1,q2,label\na,b,1\n", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "lastline.api", "cache", "calibrate", str(bad), "--db", str(tmp_path / "c.db")],
        capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert result.returncode == 2 and "missing column(s) is_duplicate, question1, question2" in result.stderr


@pytest.mark.backends("sqlite", "postgresql")
def test_pair_scores_are_what_lookups_compare_with_the_threshold(
        storage: SQLiteStorage | PostgresStorage, embedder: Embedder) -> None:
    cache = SemanticCache(storage, embedder)
    first = ["What time does the museum open?", "Refund order 123", "How do I learn Python?",
             "借五千元利息多少", "How do I reset my password", "Is the pool open on Sunday?",
             "what time does the MUSEUM open", "Can I pay 2 invoices at once?",
             "How do I reset my pasword?", "What are the main exports of Chile?"]
    second = ["When does the museum open?", "Refund order 456", "How can I start learning Python?",
              "借六千元利息多少", "How do I reset my password?", "Is the swimming pool open on Sundays?",
              "What time does the museum open?", "Can I pay two invoices at once?",
              "How do I reset my password?", "What are the main exports of Chad?"]
    pairs = LabelledPairs(first, second, np.zeros(len(first), dtype=np.int8))
    scores = score_pairs(cache, pairs)
    for i, (a, b) in enumerate(zip(first, second, strict=True)):
        cache.put(a, f"answer {i}", context=f"pair-{i}")
        for t in (0.5, 0.8, 0.9, 0.97):
            result = cache.lookup(b, context=f"pair-{i}", threshold=t)
            assert result.hit == bool(scores[i] >= t), (a, b, t, scores[i], result)
    assert scores[1] == -np.inf and scores[3] == -np.inf  # slot guard: values differ
    assert scores[4] == np.inf and scores[6] == np.inf    # exact layer after normalization
    assert scores[8] == np.inf                            # a typo: the fuzzy layer
    assert scores[9] == -np.inf                           # another country: the name guard, never a typo hit


def test_read_pairs_accepts_shared_dev_files(shared_data: Path) -> None:
    pairs = read_pairs(shared_data / "cache" / "lcqmc_dev.csv", limit=50)
    assert len(pairs) == 50 and set(np.unique(pairs.labels)) <= {0, 1}


def test_import_then_lookup_and_stats(tmp_path: Path, embedder: Embedder) -> None:
    db = str(tmp_path / "c.db")
    jsonl = tmp_path / "faq.jsonl"
    jsonl.write_text("\n".join(json.dumps(r) for r in [
        {"prompt": "What are your opening hours?", "response": "9 to 5", "tags": ["hours"]},
        {"prompt": "How do I reset my password?", "response": "Use the reset link"},
    ]) + "\n", encoding="utf-8")
    csv_file = tmp_path / "more.csv"
    csv_file.write_text("prompt,response,tags\n退款需要多久？,三个工作日,refund;zh\n", encoding="utf-8")
    assert json.loads(_invoke("cache", "import", str(jsonl), "--db", db, "--json").stdout)["imported"] == 2
    assert json.loads(_invoke("cache", "import", str(csv_file), "--db", db, "--json").stdout)["imported"] == 1
    hit = json.loads(_invoke("cache", "lookup", "what are your opening hours", "--db", db, "--json").stdout)
    assert hit["hit"] is True and hit["answer"] == "9 to 5" and hit["layer"] == "exact"
    zh = json.loads(_invoke("cache", "lookup", "退款需要多久", "--db", db, "--json").stdout)
    assert zh["answer"] == "三个工作日"
    miss = runner.invoke(app, ["cache", "lookup", "Do you sell gift cards?", "--db", db, "--json"])
    assert miss.exit_code == 1 and json.loads(miss.stdout)["hit"] is False
    stats = json.loads(_invoke("cache", "stats", "--db", db, "--json").stdout)
    assert stats["entries"] == 3 and stats["hits"]["exact"] == 2 and stats["misses_total"] == 1


def test_put_then_lookup(tmp_path: Path, embedder: Embedder) -> None:
    db = str(tmp_path / "c.db")
    entry = json.loads(_invoke("cache", "put", "Where is the bank?", "Main street 4", "--db", db,
                               "--json").stdout)
    assert entry["id"]
    assert "Main street 4" in _invoke("cache", "lookup", "where is the bank", "--db", db).stdout


def test_import_rejects_a_row_without_response(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"prompt": "hi"}\n', encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "lastline.api", "cache", "import", str(bad), "--db", str(tmp_path / "c.db")],
        capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert result.returncode == 2 and "bad.jsonl:1: needs a non-empty 'prompt' and a 'response'" in result.stderr


def test_calibrate_from_feedback_uses_served_semantic_hits(tmp_path: Path, embedder: Embedder) -> None:
    from lastline import open_storage

    db = tmp_path / "fb.db"
    storage = open_storage(db)
    cache = SemanticCache(storage, embedder)
    need = min_negatives(0.05)
    topics = [f"{a} {b}" for a in ("red", "blue", "green", "black", "white", "yellow", "pink", "grey")
              for b in ("shoes", "hats", "bags", "coats", "scarves", "gloves", "socks", "belts")][:need + 5]
    cache.put_many([{"prompt": f"Do you sell {t}?", "response": f"yes, {t}"} for t in topics])
    served = 0
    for t in topics:
        res = cache.lookup(f"Can I buy {t} from you?", threshold=0.3)
        if res.hit and res.layer == "semantic":
            cache.feedback(correct=res.answer == f"yes, {t}", lookup_id=res.lookup_id)
            served += 1
    storage.close()
    assert served >= need
    out = json.loads(_invoke("cache", "calibrate", "--from-feedback", "--target-false-hit", "0.05",
                             "--db", str(db), "--json").stdout)
    assert out["basis"] == "feedback" and out["stored"] is True and out["bound"] <= 0.05
    stats = json.loads(_invoke("cache", "stats", "--db", str(db), "--json").stdout)
    assert stats["calibrated"] is True and stats["threshold"]["intercept"]["source"] == "feedback"
