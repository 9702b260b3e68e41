"""bench/rules_accuracy.py keeps a held-out half unread: misses of half b are scored, never shown.

Each file of the specs splits by case parity (half a = even cases, tuned on; half b = odd cases,
only measured). Whatever half is scored, the miss table written to docs/benchmarks.md and the
``--misses`` list show half a's misses only; asking for half b's misses is refused — except in a
folder whose half b was opened (``OPENED_HALF_B``), where both halves are read.
And a gold item without a value to compare (``Feb 30`` "not resolved", a bare ``%``) is span-scored only.
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
    cases = [_case("we counted seven crates", "seven", "9001"),   # half a
             _case("we counted eleven crates", "eleven", "9002"),  # half b
             _case("we counted twelve crates", "twelve", "9003"),  # half a
             _case("we counted forty crates", "forty", "9004")]    # half b
    for name in ("recognizers_zh", "recognizers_en"):
        folder = tmp_path / "rules" / name
        folder.mkdir(parents=True)
        (folder / "number.json").write_text(json.dumps(cases), encoding="utf-8")
    monkeypatch.setattr(rules_accuracy, "DATA", tmp_path)
    return tmp_path


HELD = "recognizers_zh"


def test_the_folders_are_as_this_file_assumes() -> None:
    assert HELD not in rules_accuracy.OPENED_HALF_B
    assert "recognizers_en" in rules_accuracy.OPENED_HALF_B


def test_every_case_is_scored_but_only_half_a_misses_are_listed(data: Path) -> None:
    result = rules_accuracy.score((HELD,), libraries=False)
    assert result["types"][(HELD, "number")]["value_n"] == 4
    assert sorted(m["half"] for m in result["misses"]) == ["a", "a", "b", "b"]
    table = rules_accuracy.miss_table(result, examples=10)
    lines = "\n".join(rules_accuracy.miss_lines(result, 10))
    for shown in (table, lines):
        assert "seven" in shown and "twelve" in shown
        assert "eleven" not in shown and "forty" not in shown


def test_half_b_alone_is_measured_and_lists_no_miss(data: Path) -> None:
    result = rules_accuracy.score((HELD,), libraries=False, half="b")
    assert result["types"][(HELD, "number")]["value_n"] == 2
    assert rules_accuracy.miss_lines(result, 10) == []
    assert "eleven" not in rules_accuracy.miss_table(result, examples=10)


def test_an_opened_folder_lists_the_misses_of_both_halves(data: Path) -> None:
    result = rules_accuracy.score(("recognizers_en",), libraries=False)
    lines = "\n".join(rules_accuracy.miss_lines(result, 10))
    assert all(word in lines for word in ("seven", "eleven", "twelve", "forty"))
    assert "forty" in rules_accuracy.miss_table(result, examples=10)


def test_asking_for_half_b_misses_of_a_held_folder_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        rules_accuracy.main(["--half", "b", "--misses", "3", "--folders", HELD])
    assert "held out" in capsys.readouterr().err


def _gold(kind: str, type_name: str, resolution: dict[str, object]) -> dict[str, object]:
    return {"kind": kind, "TypeName": type_name, "Resolution": resolution}


def test_a_gold_item_is_value_scored_only_when_it_states_a_value() -> None:
    has_value = rules_accuracy._gold_has_value
    unresolved = {"values": [{"timex": "XXXX-02-30", "type": "date", "value": "not resolved"}]}
    assert not has_value("datetime", _gold("datetime", "datetimeV2.date", unresolved))
    assert has_value("datetime", _gold("datetime", "datetimeV2.date",
                                       {"values": [{"timex": "2016-11-08", "value": "2016-11-08"}]}))
    assert has_value("datetime", _gold("datetime", "datetimeV2.daterange",
                                       {"values": [{"timex": "2016", "start": "2016-01-01", "end": "2017-01-01"}]}))
    weekly = {"values": [{"timex": "P1W", "type": "set", "value": "not resolved"}]}
    assert has_value("datetime", _gold("datetime", "datetimeV2.set", weekly))
    assert not has_value("percentage", _gold("percentage", "percentage", {"value": "null"}))
    assert has_value("percentage", _gold("percentage", "percentage", {"value": "12%"}))
    assert not has_value("currency", _gold("currency", "currency", {"unit": "Dollar"}))
    assert not has_value("number", _gold("number", "number", None))  # type: ignore[arg-type]


def test_a_folder_without_spec_files_stops_the_bench_instead_of_scoring_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rules_accuracy, "DATA", tmp_path)
    with pytest.raises(SystemExit, match="LASTLINE_EVAL_DATA"):
        rules_accuracy.score(("recognizers_en",), libraries=False)
