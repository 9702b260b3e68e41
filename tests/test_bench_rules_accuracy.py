"""bench/rules_accuracy.py keeps its held-out half unread: misses of half b are scored, never shown.

Each file of the specs splits by case parity (half a = even cases, tuned on; half b = odd cases,
only measured). Whatever half is scored, the miss table written to docs/benchmarks.md and the
``--misses`` list show half a's misses only; asking for half b's misses is refused.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import rules_accuracy  # noqa: E402


def _case(text: str, gold: str, value: str) -> dict[str, object]:
    start = text.index(gold)
    return {"Input": text, "Results": [{"Text": gold, "TypeName": "number", "Start": start,
                                        "End": start + len(gold) - 1,
                                        "Resolution": {"subtype": "integer", "value": value}}]}


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Four number cases whose gold values no reader gives: every one is a miss, two per half."""
    folder = tmp_path / "rules" / "recognizers_en"
    folder.mkdir(parents=True)
    cases = [_case("we counted seven crates", "seven", "9001"),   # half a
             _case("we counted eleven crates", "eleven", "9002"),  # half b
             _case("we counted twelve crates", "twelve", "9003"),  # half a
             _case("we counted forty crates", "forty", "9004")]    # half b
    (folder / "number.json").write_text(json.dumps(cases), encoding="utf-8")
    monkeypatch.setattr(rules_accuracy, "DATA", tmp_path)
    return tmp_path


def test_every_case_is_scored_but_only_half_a_misses_are_listed(data: Path) -> None:
    result = rules_accuracy.score(("recognizers_en",), libraries=False)
    assert result["types"][("recognizers_en", "number")]["value_n"] == 4
    assert sorted(m["half"] for m in result["misses"]) == ["a", "a", "b", "b"]
    table = rules_accuracy.miss_table(result, examples=10)
    lines = "\n".join(rules_accuracy.miss_lines(result, 10))
    for shown in (table, lines):
        assert "seven" in shown and "twelve" in shown
        assert "eleven" not in shown and "forty" not in shown


def test_half_b_alone_is_measured_and_lists_no_miss(data: Path) -> None:
    result = rules_accuracy.score(("recognizers_en",), libraries=False, half="b")
    assert result["types"][("recognizers_en", "number")]["value_n"] == 2
    assert rules_accuracy.miss_lines(result, 10) == []
    assert "eleven" not in rules_accuracy.miss_table(result, examples=10)


def test_asking_for_half_b_misses_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        rules_accuracy.main(["--half", "b", "--misses", "3"])
    assert "held out" in capsys.readouterr().err


def test_a_folder_without_spec_files_stops_the_bench_instead_of_scoring_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rules_accuracy, "DATA", tmp_path)
    with pytest.raises(SystemExit, match="LASTLINE_EVAL_DATA"):
        rules_accuracy.score(("recognizers_en",), libraries=False)
