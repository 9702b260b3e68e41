"""bench/_recognizers_text.py: Recognizers-Text's results in lastline's form, scored by the bench's own code.

The library runs for real (it is in the test extra); a wrong conversion would move its column in
docs/benchmarks.md, and a leaked decimal context would change lastline's own figures in that process.
"""

from __future__ import annotations

import decimal
import json
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import _recognizers_text as recognizers_text  # noqa: E402
import rules_accuracy  # noqa: E402

REF = datetime(2018, 6, 1)  # a Friday


def _found(text: str, zh: bool = False) -> list[tuple[str, str, object]]:
    return [(e.type, e.text, e.value) for e in recognizers_text.find(text, REF, zh=zh)]


def test_a_datetime_reads_as_an_iso_value_with_lastlines_offsets() -> None:
    text = "let us meet next Friday at 3pm"
    [entity] = [e for e in recognizers_text.find(text, REF) if e.type == "datetime"]
    assert entity.value == "2018-06-08T15:00:00"
    assert text[entity.start:entity.end].lower() == entity.text == "next friday at 3pm"


def test_a_range_of_dates_reads_as_start_slash_end() -> None:
    assert ("daterange", "next week", "2018-06-04/2018-06-11") in _found("we ship next week")


def test_cents_read_in_the_currencys_unit_and_percent_loses_its_sign() -> None:
    found = _found("gum for 99 cents, 15% off")
    assert ("money", "99 cents", {"amount": "0.99", "currency": None}) in found
    assert ("percent", "15%", "15") in found


def test_chinese_reading_leaves_the_callers_decimal_context_alone() -> None:
    before = decimal.getcontext().prec
    assert ("money", "五千元", {"amount": "5000", "currency": "CNY"}) in _found("我想借五千元", zh=True)
    assert decimal.getcontext().prec == before


def test_a_fresh_process_keeps_its_decimal_context_after_building_and_timing_the_library() -> None:
    script = ("import decimal, sys; sys.path.insert(0, 'bench'); import _recognizers_text as rt; "
              "c = rt.cost(['我想借五千元', 'pay 5 dollars'], {'x_zh': '合同金额五千元'}, seconds=0.05); "
              "print(decimal.getcontext().prec, sorted(c))")
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.split()[0] == "28", out


@pytest.mark.parametrize(("entity_type", "want", "got_type", "got", "same"), [
    ("daterange", "2024-W23", "daterange", "2024-06-03/2024-06-10", True),      # a week is its Monday … Monday
    ("date", "2024-06-15", "datetime", "2024-06-15T00:00:00", False),
    ("duration", "P1D", "duration", "PT86400S", True),
    ("money", {"amount": "5", "currency": "USD"}, "money", {"amount": "5.00", "currency": None}, True),
    ("money", {"amount": "5", "currency": "USD"}, "money", {"amount": "5", "currency": "EUR"}, False),
    ("number", "0.5", "percent", "0.5", False),                                  # another kind is no match
])
def test_values_compare_across_the_two_readers_conventions(entity_type: str, want: object, got_type: str,
                                                           got: object, same: bool) -> None:
    assert rules_accuracy.same_value(entity_type, want, got_type, got) is same


def test_the_library_column_is_scored_by_the_benchs_own_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "rules" / "recognizers_en"
    folder.mkdir(parents=True)
    cases = [{"Input": text, "Results": [{"Text": gold, "TypeName": "number", "Start": text.index(gold),
                                          "End": text.index(gold) + len(gold) - 1,
                                          "Resolution": {"subtype": "integer", "value": value}}]}
             for text, gold, value in (("we counted seven crates", "seven", "7"),
                                       ("we counted eleven crates", "eleven", "9002"))]
    (folder / "number.json").write_text(json.dumps(cases), encoding="utf-8")
    monkeypatch.setattr(rules_accuracy, "DATA", tmp_path)
    result = rules_accuracy.score(("recognizers_en",), libraries=False, reader=recognizers_text.find)
    row = result["types"][("recognizers_en", "number")]
    assert (row["value"], row["value_n"]) == (1, 2)
    assert [m["gold"] for m in result["misses"]] == ["eleven"]
