"""Microsoft Recognizers-Text's Python port read as lastline entities: the bench's second reader.

The spec files in ``../shared/data/rules/`` are this library's own test cases, so its score there
says how well the Python port follows its specs, not how it reads text it was not written against;
``bench/rules_accuracy.py`` also runs it on sentences of our own (the construction tests, the contract
snippets) for that. It is a bench dependency only, not a reader inside lastline (why, in figures:
the Rules section of docs/benchmarks.md): it reads fewer of our own sentences than lastline, costs
tens of milliseconds of CPU per short English sentence for dates and money, and sets the process's
decimal precision to 15 when its Chinese number parser is imported.

Every import and call here runs inside a local decimal context, so lastline's figures computed in
the same process are not changed by that. Each of its recognizers runs alone, as its own specs call
them: digits inside a phone number are numbers too (no overlap is resolved between recognizers).
"""

from __future__ import annotations

import decimal
import functools
import importlib.metadata
import os
import time
from datetime import datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from lastline.rules import Entity

#: The distribution whose version names the reader in tables.
DISTRIBUTION = "ms-recognizers-text-date-time"
#: Recognizers-Text sub-types as lastline entity types (a datetime range is a daterange here).
_SUB_TYPES = {"date": "date", "datetime": "datetime", "time": "time", "daterange": "daterange",
              "timerange": "timerange", "datetimerange": "daterange", "duration": "duration", "set": "set"}
_CENTS = frozenset({"cent", "penny", "pence"})


def available() -> bool:
    """Whether the library is installed (the ``bench`` extra)."""
    try:
        importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def label() -> str:
    return f"Recognizers-Text {importlib.metadata.version(DISTRIBUTION)} (Python port)"


#: CPU seconds and resident megabytes each culture's models took to build (the first one's include
#: importing the library), once built.
BUILD_SECONDS: dict[str, float] = {}
BUILD_MEGABYTES: dict[str, float] = {}


def _resident_mb() -> float:
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):  # not Linux: no figure
        return float("nan")
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


@functools.cache
def _models(culture: str) -> dict[str, Any]:
    """Its models for one culture, built once (≈2 s for English): ``kind`` → model."""
    start, resident = time.process_time(), _resident_mb()
    try:
        return _build(culture)
    finally:
        BUILD_SECONDS[culture] = time.process_time() - start
        BUILD_MEGABYTES[culture] = _resident_mb() - resident


def _build(culture: str) -> dict[str, Any]:
    with decimal.localcontext():  # its Chinese number parser sets getcontext().prec = 15 on import
        from ms_recognizers_date_time.date_time.date_time_recognizer import DateTimeRecognizer
        from ms_recognizers_number.number.number_recognizer import NumberRecognizer
        from ms_recognizers_number_with_unit.number_with_unit.number_with_unit_recognizer import (
            NumberWithUnitRecognizer,
        )
        from ms_recognizers_sequence.sequence.sequence_recognizer import SequenceRecognizer

        return {"datetime": DateTimeRecognizer(culture).get_datetime_model(),
                "number": NumberRecognizer(culture).get_number_model(),
                "ordinal": NumberRecognizer(culture).get_ordinal_model(),
                "percent": NumberRecognizer(culture).get_percentage_model(),
                "money": NumberWithUnitRecognizer(culture).get_currency_model(),
                "phone": SequenceRecognizer(culture).get_phone_number_model()}


def _temporal_value(sub: str, value: dict[str, Any]) -> str | None:
    """One resolution value in lastline's form (ISO 8601; ranges ``start/end`` with ``..`` open)."""
    if sub == "set":
        return "R/" + value["timex"] if value.get("timex") else None
    if sub == "duration":
        seconds = value.get("value")
        return f"PT{seconds}S" if seconds not in (None, "not resolved") else None
    if sub in ("date", "datetime", "time"):
        point = value.get("value")
        return point.replace(" ", "T") if point and point != "not resolved" else None
    start, end = value.get("start"), value.get("end")
    if not start and not end:
        return None
    return f"{(start or '..').replace(' ', 'T')}/{(end or '..').replace(' ', 'T')}"


def convert(kind: str, result: Any) -> Entity | None:
    """One of its results (``ModelResult``, end inclusive) as a lastline :class:`Entity`.

    A date it reads two ways (past and future) gives one value, the last it lists (the future one),
    as lastline gives one. Money in cents or pence is read in the currency's unit (``99 cents`` → 0.99).
    """
    res = result.resolution or {}
    start, end = result.start, result.end + 1
    if kind == "datetime":
        sub = result.type_name.split(".", 1)[1]
        if sub not in _SUB_TYPES:
            return None  # time zones: not a lastline type
        value = next((v for v in map(functools.partial(_temporal_value, sub), reversed(res.get("values") or []))
                      if v), None)
        return Entity(_SUB_TYPES[sub], result.text, start, end, value)
    value: Any = res.get("value")
    if kind == "percent" and isinstance(value, str):
        value = value.rstrip("%")
    elif kind == "money":
        amount = value
        if amount is not None and str(res.get("unit") or "").lower() in _CENTS:
            try:
                amount = str(Decimal(amount) / 100)
            except InvalidOperation:
                amount = None
        value = {"amount": amount, "currency": res.get("isoCurrency")}
    return Entity(kind, result.text, start, end, value)


def find(text: str, reference_time: datetime | None = None, zh: bool = False) -> list[Entity]:
    """Every result of its date, number, ordinal, percent, currency and phone models, in lastline's form."""
    from ms_recognizers_text.culture import Culture

    ref = reference_time or datetime.now()
    out: list[Entity] = []
    with decimal.localcontext():
        for kind, model in _models(Culture.Chinese if zh else Culture.English).items():
            try:
                results = model.parse(text, ref) if kind == "datetime" else model.parse(text)
            except Exception:  # a reader that fails on one input scores a miss there, as lastline would
                continue
            out.extend(e for e in (convert(kind, r) for r in results) if e is not None)
    return out


def cost(questions: list[str], contracts: dict[str, str], seconds: float = 2.0) -> dict[str, float]:
    """CPU seconds to build its English and Chinese models, ms CPU per short question (all its
    recognizers, language by the question, over ``seconds`` of CPU) and s CPU per contract text
    (name → text; a name ending ``_zh`` is read as Chinese)."""
    from ms_recognizers_text.culture import Culture

    out: dict[str, float] = {}
    for name, culture in (("en", Culture.English), ("zh", Culture.Chinese)):
        _models(culture)
        out[f"build_{name}_s"] = BUILD_SECONDS[culture]
        out[f"build_{name}_mb"] = BUILD_MEGABYTES[culture]
    start, n = time.process_time(), 0
    while time.process_time() - start < seconds:
        for q in questions:
            find(q, zh=any("\u4e00" <= c <= "\u9fff" for c in q))
            n += 1
    out["question_ms"] = (time.process_time() - start) / n * 1000
    for name, text in contracts.items():
        start = time.process_time()
        find(text, datetime(2024, 6, 1), zh=name.endswith("_zh"))
        out[f"contract_{name}_s"] = time.process_time() - start
    return out
