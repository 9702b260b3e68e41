"""Entity extraction accuracy on Microsoft Recognizers-Text Chinese specs, beside the libraries.

Run: ``python bench/rules_accuracy.py`` (``--markdown`` prints the docs table, ``--misses N`` lists
misses). Data: ``../shared/data/rules/recognizers_zh/{datetime,number,percent,currency,phone}.json``.

Scoring, per gold item (a ``Results`` entry):
- *span*: some lastline entity of the matching kind has exactly the gold text (both width-folded).
- *value*: some entity of that kind overlapping the gold span has the gold value, compared as:
  number/percent → equal decimals (relative 1e-9; ``50%`` → 50); currency → equal amount and ISO code
  (code ignored when gold has none, e.g. ``$`` "Dollar"; items without an amount are not value-scored);
  phone → equal digit strings (``+``/``x`` dropped); date → any listed ``value`` (gold lists past and
  future readings of ``29日``); datetime → ``YYYY-MM-DD HH:MM:SS``; time → any listed value;
  daterange/timerange → equal start and end, where a reduced-precision end is the start of that period
  (``2015/2018`` → 2015-01-01 … 2018-01-01, the gold convention) and ``..`` is an open end; a single
  ``2009`` / ``2018-10`` / ``2017-W14`` is expanded to its period; duration → equal seconds (year 365
  days, month 30 days, as the gold); ``set`` items can never score (not supported).
- *given span*: the value our normalizer gives the gold text alone (isolates normalization).
Libraries: cn2an (numbers, percent and money normalization of the gold text: it does not extract),
dateparser ``search_dates`` (end-to-end, dates/datetimes only) and phonenumbers ``PhoneNumberMatcher``
(end-to-end, region CN). Spurious = our entities of the kind on inputs whose gold list is empty.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
import warnings
from collections import defaultdict
from collections.abc import Callable
from datetime import date, datetime, timedelta
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import DATA, machine

from lastline.rules import find_entities
from lastline.rules._types import fold

KINDS = {"number": ("number",), "percentage": ("percent",), "currency": ("money",), "phonenumber": ("phone",),
         "datetime": ("date", "datetime", "time", "daterange", "timerange", "duration", "set")}
FILES = {"datetime": "datetime", "number": "number", "percent": "percentage", "currency": "currency",
         "phone": "phonenumber"}
_UNIT_S = {"Y": 365 * 86400, "M": 30 * 86400, "W": 7 * 86400, "D": 86400}
_TUNIT_S = {"H": 3600, "M": 60, "S": 1}


def _kind(type_name: str) -> str:
    return "datetime" if type_name.startswith("datetimeV2") else type_name


def _dec(s: Any) -> Decimal | None:
    try:
        return Decimal(str(s).replace(",", "").rstrip("%"))
    except (InvalidOperation, ValueError):
        return None


def _close(a: Decimal | None, b: Decimal | None) -> bool:
    if a is None or b is None:
        return False
    return abs(a - b) <= abs(b) * Decimal("1e-9") + Decimal("1e-12")


def _iso_seconds(value: str) -> float | None:
    m = re.fullmatch(r"P(?:([\d.]+)Y)?(?:([\d.]+)M)?(?:([\d.]+)W)?(?:([\d.]+)D)?"
                     r"(?:T(?:([\d.]+)H)?(?:([\d.]+)M)?(?:([\d.]+)S)?)?", value)
    if not m or value in ("P", "PT"):
        return None
    parts = [float(g) if g else 0.0 for g in m.groups()]
    return (parts[0] * _UNIT_S["Y"] + parts[1] * _UNIT_S["M"] + parts[2] * _UNIT_S["W"] + parts[3] * _UNIT_S["D"]
            + parts[4] * 3600 + parts[5] * 60 + parts[6])


def _period(value: str, end: bool) -> str | None:
    """Start of the period ``value`` names (its start, as the gold writes range ends too)."""
    if value == "..":
        return None
    if re.fullmatch(r"\d{4}", value):
        return f"{value}-01-01"
    if re.fullmatch(r"\d{4}-\d{2}", value):
        return f"{value}-01"
    m = re.fullmatch(r"(\d{4})-W(\d{2})", value)
    if m:
        return date.fromisocalendar(int(m.group(1)), int(m.group(2)), 1).isoformat()
    return value.replace("T", " ")


def _expand(value: str) -> tuple[str | None, str | None] | None:
    """A single reduced-precision date as the interval [start, next period start)."""
    if re.fullmatch(r"\d{4}", value):
        return f"{value}-01-01", f"{int(value) + 1}-01-01"
    if re.fullmatch(r"\d{4}-\d{2}", value):
        y, m = int(value[:4]), int(value[5:])
        ny, nm = (y + 1, 1) if m == 12 else (y, m + 1)
        return f"{value}-01", f"{ny:04d}-{nm:02d}-01"
    m = re.fullmatch(r"(\d{4})-W(\d{2})", value)
    if m:
        start = date.fromisocalendar(int(m.group(1)), int(m.group(2)), 1)
        return start.isoformat(), (start + timedelta(days=7)).isoformat()
    return None


def _datetime_value_ok(gold: dict[str, Any], entity_type: str, value: Any) -> bool:
    sub = gold["TypeName"].split(".", 1)[1]
    values = gold["Resolution"].get("values", [])
    if not isinstance(value, str):
        return False
    if sub == "set":
        timex = [v.get("timex") for v in values]
        return value.startswith("R/") and value[2:] in timex
    if sub == "duration":
        secs = _iso_seconds(value)
        return secs is not None and any(abs(float(v.get("value", "nan")) - secs) < 1 for v in values
                                        if v.get("value") not in (None, "not resolved"))
    if sub in ("date", "datetime", "time"):
        flat = value.replace("T", " ")
        return any(v.get("value") == flat for v in values)
    if sub in ("daterange", "timerange", "datetimerange"):
        if "/" in value:
            a, b = value.split("/", 1)
            mine = (_period(a, False), _period(b, True))
        else:
            expanded = _expand(value)
            if expanded is None:
                return False
            mine = expanded
        for v in values:
            gold_pair = (v.get("start"), v.get("end"))
            if tuple(x.replace("T", " ") if x else None for x in mine) == gold_pair:
                return True
        return False
    return False


def _value_ok(kind: str, gold: dict[str, Any], entity_type: str, value: Any) -> bool | None:
    res = gold.get("Resolution") or {}
    if kind == "number":
        return _close(_dec(value), _dec(res.get("value")))
    if kind == "percentage":
        return _close(_dec(value), _dec(res.get("value")))
    if kind == "currency":
        if res.get("value") is None:
            return None
        if not isinstance(value, dict):
            return False
        code_ok = res.get("isoCurrency") in (None, value.get("currency"))
        return code_ok and _close(_dec(value.get("amount")), _dec(res.get("value")))
    if kind == "phonenumber":
        return _phone_key(str(value)) == _phone_key(str(res.get("value")))
    return _datetime_value_ok(gold, entity_type, value)


def _phone_key(raw: str) -> str:
    """One number however written: digits, no extension, no ``(0)`` trunk digit, no ``00``/``+86`` prefix."""
    digits = re.sub(r"\D", "", raw.split("x")[0].replace("(0)", ""))
    if digits.startswith("00"):
        digits = digits[2:]
    if digits.startswith("86") and len(digits) == 13:
        digits = digits[2:]
    return digits


def _gold_span(case: dict[str, Any], gold: dict[str, Any]) -> tuple[int, int]:
    text = fold(case["Input"])
    if "Start" in gold and "End" in gold:
        return int(gold["Start"]), int(gold["End"]) + 1
    i = text.find(fold(gold["Text"]))
    return (i, i + len(gold["Text"])) if i >= 0 else (0, len(text))


def _reference(case: dict[str, Any]) -> datetime:
    ref = (case.get("Context") or {}).get("ReferenceDateTime")
    return datetime.fromisoformat(ref) if ref else datetime(2018, 1, 1)


# -- libraries --------------------------------------------------------------------------------
def _cn2an_value(kind: str, text: str) -> Any:
    import cn2an

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            converted = cn2an.transform(text.replace(" ", ""), "cn2an")
        except Exception:
            return None
    m = re.search(r"-?\d+(?:\.\d+)?", converted.replace(",", ""))
    if not m:
        return None
    if kind == "currency":
        return {"amount": m.group(), "currency": None}
    return m.group()


def _dateparser_ok(case: dict[str, Any], gold: dict[str, Any]) -> tuple[bool, bool]:
    from dateparser.search import search_dates

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            found = search_dates(case["Input"], languages=["zh"],
                                 settings={"RELATIVE_BASE": _reference(case), "PREFER_DATES_FROM": "future"}) or []
        except Exception:
            found = []
    span = any(fold(t) == fold(gold["Text"]) for t, _ in found)
    sub = gold["TypeName"].split(".", 1)[1]
    ok = False
    for _, dt in found:
        for v in gold["Resolution"].get("values", []):
            gv = v.get("value")
            if (sub == "date" and gv == dt.date().isoformat()) or (
                    sub == "datetime" and gv == dt.strftime("%Y-%m-%d %H:%M:%S")):
                ok = True
            if sub == "time" and gv == dt.strftime("%H:%M:%S"):
                ok = True
    return span, ok


def _phonenumbers_ok(case: dict[str, Any], gold: dict[str, Any]) -> tuple[bool, bool]:
    import phonenumbers

    found = [m.raw_string for m in phonenumbers.PhoneNumberMatcher(case["Input"], "CN")]
    span = any(fold(r) == fold(gold["Text"]) for r in found)
    want = _phone_key(str(gold["Resolution"].get("value")))
    return span, any(_phone_key(r) == want for r in found)


def score(misses: int = 0) -> list[dict[str, Any]]:
    rows = []
    for file, kind in FILES.items():
        cases = json.loads((DATA / "rules" / "recognizers_zh" / f"{file}.json").read_text(encoding="utf-8"))
        types = KINDS[kind]
        n = span_ok = value_ok = value_n = given_ok = lib_span = lib_ok = lib_n = spurious = 0
        shown = 0
        for case in cases:
            ref = _reference(case)
            found = [e for e in find_entities(case["Input"], reference_time=ref) if e.type in types]
            if not case["Results"]:
                spurious += len(found)
                continue
            for gold in case["Results"]:
                if _kind(gold["TypeName"]) != kind:
                    continue
                n += 1
                gs, ge = _gold_span(case, gold)
                if any(fold(e.text) == fold(gold["Text"]) for e in found):
                    span_ok += 1
                verdicts = [_value_ok(kind, gold, e.type, e.value) for e in found if e.start < ge and e.end > gs]
                if _value_ok(kind, gold, "", None) is None and kind == "currency":
                    pass
                scorable = kind != "currency" or (gold.get("Resolution") or {}).get("value") is not None
                if scorable:
                    value_n += 1
                    hit = any(v for v in verdicts)
                    value_ok += hit
                    alone = [e for e in find_entities(gold["Text"], reference_time=ref) if e.type in types]
                    given_ok += any(_value_ok(kind, gold, e.type, e.value) for e in alone)
                    if not hit and shown < misses:
                        shown += 1
                        print(f"MISS {kind}: {case['Input'][:60]!r} gold={gold['Text']!r} "
                              f"{json.dumps(gold.get('Resolution'), ensure_ascii=False)[:120]} "
                              f"ours={[(e.type, e.text, e.value) for e in found]}", file=sys.stderr)
                    lib_n += 1
                    if kind in ("number", "percentage", "currency"):
                        lib_ok += bool(_value_ok(kind, gold, "", _cn2an_value(kind, gold["Text"])))
                    elif kind == "datetime":
                        s, ok = _dateparser_ok(case, gold)
                        lib_span += s
                        lib_ok += ok
                    else:
                        s, ok = _phonenumbers_ok(case, gold)
                        lib_span += s
                        lib_ok += ok
        library = {"number": "cn2an (gold span)", "percentage": "cn2an (gold span)",
                   "currency": "cn2an (gold span)", "datetime": "dateparser", "phonenumber": "phonenumbers"}[kind]
        rows.append({"type": file, "cases": len(cases), "items": n,
                     "span": span_ok / n, "value": value_ok / max(value_n, 1), "given": given_ok / max(value_n, 1),
                     "spurious": spurious, "library": library,
                     "lib_span": (lib_span / lib_n) if kind in ("datetime", "phonenumber") else None,
                     "lib_value": lib_ok / max(lib_n, 1)})
    return rows


def throughput() -> dict[str, float]:
    """Docs/s for a ≈2 KB Chinese contract through contract_zh, and find_entities on short questions.

    Both wall time and process CPU time are reported: on a shared machine CPU time is the steadier.
    """
    from lastline.rules import RuleEngine

    engine = RuleEngine()
    contract = (Path(__file__).resolve().parents[1] / "tests" / "data" / "contracts" / "throughput_zh.txt").read_text(
        encoding="utf-8")
    engine.extract(contract, pack="contract_zh")
    n, start, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - start < 3.0:
        engine.extract(contract, pack="contract_zh")
        n += 1
    docs_s = n / (time.perf_counter() - start)
    docs_cpu_s = n / (time.process_time() - cpu)
    questions = ["我想借五千元，下周三还可以吗？", "How do I refund order 123456 placed on June 15?",
                 "信用卡额度能提高到两万吗", "What is the late fee if I pay 3 days after the due date?"]
    m, start, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - start < 2.0:
        for q in questions:
            find_entities(q)
        m += len(questions)
    return {"contract_chars": len(contract), "docs_per_s": docs_s, "docs_per_cpu_s": docs_cpu_s,
            "question_ms": (time.perf_counter() - start) / m * 1000,
            "question_cpu_ms": (time.process_time() - cpu) / m * 1000}


def contracts_accuracy(holdout: bool = False) -> dict[str, Any]:
    """Field accuracy on the hand-written contract snippets in tests/data/contracts."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from contract_cases import load_cases, score_case

    from lastline.rules import RuleEngine

    engine = RuleEngine()
    per_lang: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for case in load_cases(holdout):
        good, total = score_case(engine, case)
        row = per_lang[case["lang"]]
        row[0] += good
        row[1] += total
        row[2] += good == total
        row[3] += 1
    return dict(per_lang)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--misses", type=int, default=0, help="print up to N value misses per type")
    args = parser.parse_args(argv)
    rows = score(args.misses)
    pct: Callable[[float | None], str] = lambda x: "—" if x is None else f"{100 * x:.1f}%"  # noqa: E731
    print(f"Machine: {machine()}\n")
    print("| type | gold items | lastline span exact | lastline value | lastline value, gold span given "
          "| spurious on negatives | library | library span | library value |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['type']} | {r['items']} | {pct(r['span'])} | {pct(r['value'])} | {pct(r['given'])} "
              f"| {r['spurious']} | {r['library']} | {pct(r['lib_span'])} | {pct(r['lib_value'])} |")
    print("\n| contract snippets | cases | fields correct | cases fully correct |")
    print("|---|---|---|---|")
    for holdout in (False, True):
        for lang, (good, total, full, cases) in sorted(contracts_accuracy(holdout).items()):
            name = f"{lang}, held out (never tuned on)" if holdout else f"{lang} (packs tuned on these)"
            print(f"| {name} | {cases} | {good}/{total} ({100 * good / total:.1f}%) | {full}/{cases} |")
    t = throughput()
    print(f"\nThroughput (one thread): contract_zh extraction of a {t['contract_chars']}-character contract: "
          f"{t['docs_per_s']:.0f} docs/s wall, {t['docs_per_cpu_s']:.0f} docs per CPU-second; "
          f"find_entities on a short question: {t['question_ms']:.3f} ms wall, {t['question_cpu_ms']:.3f} ms CPU; "
          f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
