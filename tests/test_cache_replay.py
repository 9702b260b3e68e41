"""Replaying a traffic log: per-layer hits, false hits from labels, the sweep, the table and the PNG."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lastline import Embedder, InvalidInput, PostgresStorage, SQLiteStorage
from lastline.api.cli import app
from lastline.cache import SemanticCache
from lastline.cache.replay import read_log, replay, write_png

pytestmark = pytest.mark.backends("sqlite", "postgresql")

LOG = [
    {"id": "hours", "prompt": "What are your opening hours?", "response": "9 to 5"},
    {"id": "refund", "prompt": "How do I get a refund for order 123?", "response": "Form R for order 123"},
    {"id": "loan", "prompt": "借五千元一个月利息多少？", "response": "25元"},
    # exact repeat (case and punctuation differ): should hit the hours entry
    {"prompt": "what are your opening hours", "expected_entry": "hours"},
    # same question, other order number: any hit would be wrong
    {"prompt": "How do I get a refund for order 456?", "response": "Form R for order 456",
     "expected_entry": None},
    # other amount in Chinese numerals
    {"prompt": "借六千元一个月利息多少？", "response": "30元", "label": False},
    # a paraphrase, labelled by the simpler field
    {"prompt": "When are you open?", "label": True},
    # unrelated
    {"prompt": "Do you sell gift cards?", "response": "Yes", "label": False},
]


@pytest.fixture
def log_file(tmp_path: Path) -> Path:
    path = tmp_path / "traffic.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in LOG) + "\n\n", encoding="utf-8")
    return path


def test_replay_counts_layers_puts_and_labelled_false_hits(
        log_file: Path, storage: SQLiteStorage | PostgresStorage, embedder: Embedder) -> None:
    cache = SemanticCache(storage, embedder)
    report = replay(cache, read_log(log_file), threshold=0.9)
    assert report.lookups == len(LOG)
    assert report.hits_by_layer["exact"] == 1 and report.right_hits >= 1
    assert report.puts == 6  # every miss that carried a response
    assert report.should_hit == 2 and report.should_miss == 3 and report.labelled == 5
    assert report.false_hits_on_negatives == 0 and report.false_hit_rate == 0.0
    assert report.misses_by_reason.get("slot_mismatch", 0) >= 1  # order 456 / 六千 blocked by values
    assert report.threshold == 0.9
    data = report.to_dict()
    assert data["hit_rate_by_layer"]["exact"] == pytest.approx(1 / len(LOG))


def test_sweep_is_monotone_and_keeps_threshold_free_layers(
        log_file: Path, storage: SQLiteStorage | PostgresStorage, embedder: Embedder) -> None:
    report = replay(SemanticCache(storage, embedder), read_log(log_file), threshold=0.95,
                    sweep=[0.0, 0.5, 0.8, 0.95, 1.0])
    hits = [p.hits for p in report.sweep]
    assert hits == sorted(hits, reverse=True)
    assert report.sweep[-1].hits >= report.hits_by_layer["exact"]  # exact hits do not depend on it
    assert all(p.false_hit_rate is not None and 0 <= p.false_hit_rate <= 1 for p in report.sweep)


def test_replay_cli_prints_tables_and_writes_a_png(log_file: Path, tmp_path: Path, embedder: Embedder) -> None:
    png = tmp_path / "replay.png"
    db = tmp_path / "main.db"
    result = CliRunner().invoke(app, ["cache", "replay", str(log_file), "--png", str(png), "--db", str(db)],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    for title in ("replay:", "labels:", "threshold sweep", "semantic", "chart written"):
        assert title in result.stdout
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    # scratch by default: the database given with --db got no entries
    stats = CliRunner().invoke(app, ["cache", "stats", "--db", str(db), "--json"], catch_exceptions=False)
    assert json.loads(stats.stdout)["entries"] == 0


def test_replay_cli_json_and_no_scratch_writes_into_the_database(
        log_file: Path, tmp_path: Path, embedder: Embedder) -> None:
    db = tmp_path / "main.db"
    result = CliRunner().invoke(app, ["cache", "replay", str(log_file), "--no-scratch", "--db", str(db),
                                      "--json", "--threshold", "0.9"], catch_exceptions=False)
    data = json.loads(result.stdout)
    assert data["lookups"] == len(LOG) and data["threshold"] == 0.9 and data["sweep"]
    stats = CliRunner().invoke(app, ["cache", "stats", "--db", str(db), "--json"], catch_exceptions=False)
    assert json.loads(stats.stdout)["entries"] == data["puts"]


def test_write_png_from_an_empty_report(tmp_path: Path) -> None:
    from lastline.cache.replay import ReplayReport

    assert write_png(ReplayReport(), tmp_path / "empty.png").stat().st_size > 0


@pytest.mark.parametrize(("line", "message"), [
    ('{"response": "x"}', "'prompt' must be a non-empty string"),
    ('{"prompt": "x", "label": "maybe"}', "'label' must be true/false or 0/1"),
    ("not json", "not JSON"),
    ('["prompt"]', "expected a JSON object"),
])
def test_bad_log_lines_are_named(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"prompt": "fine"}\n' + line + "\n", encoding="utf-8")
    with pytest.raises(InvalidInput, match=message) as err:
        list(read_log(path))
    assert "2" in err.value.detail
