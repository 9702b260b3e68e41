"""Entity extraction accuracy on the Microsoft Recognizers-Text specs (Chinese and English), beside libraries.

Run: ``python bench/rules_accuracy.py`` (``--misses N`` lists up to N misses per construction: half a's,
and half b's in an opened folder; ``--folders`` picks folders, ``--write`` replaces the Rules section of
docs/benchmarks.md, ``--against REV``
also times the contract packs at an earlier revision in the same process, ``--speed-only`` skips the
scoring: the check before a commit that a grammar change kept ``contract_zh`` and ``contract_en`` fast). Data:
every file of ``../shared/data/rules/{recognizers_zh,recognizers_zh_extra,recognizers_en}/``.

Three file layouts are read into one gold form: the model specs (``Results[{Text, TypeName, Start,
End, Resolution}]``, End inclusive), the extractor specs of ``recognizers_zh_extra``
(``Results[{Text, Type, Start, Length}]``: span only, no value) and its parser specs (``Value`` with
``Timex`` and ``Future``/``PastResolution``, turned into the model specs' resolution: either
reading counts).

Scoring, per gold item:
- *span*: some lastline entity of the matching kind has exactly the gold text (both width-folded).
- *value*: some entity of that kind overlapping the gold span has the gold value, compared as:
  number/percent/ordinal → equal decimals (relative 1e-9; ``50%`` → 50); currency → equal amount and ISO code
  (code ignored when gold has none, e.g. ``$`` "Dollar"; the spec's ``Cent`` unit counts in cents);
  phone → equal digit strings (``+``/``x`` dropped); date → any listed ``value`` (gold lists past and
  future readings of ``29日``); datetime → ``YYYY-MM-DD HH:MM:SS``; time → any listed value;
  daterange/timerange → equal start and end, where a reduced-precision end is the start of that period
  (``2015/2018`` → 2015-01-01 … 2018-01-01, the gold convention) and ``..`` is an open end; a single
  ``2009`` / ``2018-10`` / ``2017-W14`` is expanded to its period; duration → equal seconds (year 365
  days, month 30 days, as the gold); ``set`` → its period (``R/P1W`` ↔ timex ``P1W``).
  An item whose gold states no value (a currency without an amount, a bare ``%``, a date the spec
  leaves "not resolved": ``Feb 30``, ``fiscal year``) is span-scored only (``_gold_has_value``).
- *given span*: the value our normalizer gives the gold text alone (isolates normalization).
- *spurious*: our entities of the file's kind on inputs whose gold list is empty.
Types lastline does not produce (age, dimension, number ranges, time zones) are counted, not scored.
Libraries: cn2an (Chinese numbers, percent and money normalization of the gold text: it does not
extract), dateparser ``search_dates`` (end-to-end, dates/datetimes/times only) and phonenumbers
``PhoneNumberMatcher`` (end-to-end, region CN for Chinese, US for English); beside them Microsoft
Recognizers-Text's Python port, the specs' own library, scored by the same code as lastline
(``bench/_recognizers_text.py``) and also run on text of our own, where its spec score says little.
Misses are listed by *construction* — the kind of expression (``下下周三``, ``2015年第三季度``,
"two weeks from today", "$1.5 million") — not by case, so the grammar is widened by kind.
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
import _recognizers_text as recognizers_text
from _common import DATA, machine

from lastline.rules import Entity, find_entities
from lastline.rules._types import fold

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


def _gold_has_value(kind: str, gold: dict[str, Any]) -> bool:
    """Whether the gold states a value to compare with: a currency without an amount, a bare ``%``
    (``"null"``) and a date the spec leaves ``not resolved`` (``Feb 30``, ``fiscal year``, ``summer``)
    have none, so they are span-scored only, whatever the type (a set is compared by its timex)."""
    res = gold.get("Resolution")
    if res is None:
        return False
    if kind == "datetime":
        readings = res.get("values") or []
        if gold["TypeName"].endswith(".set"):  # a set is compared by its timex (its value is never resolved)
            return any(v.get("timex") for v in readings)
        return any(v.get("value") not in (None, "not resolved") or v.get("start") or v.get("end")
                   for v in readings)
    return res.get("value") not in (None, "null", "not resolved")


def _value_ok(kind: str, gold: dict[str, Any], entity_type: str, value: Any) -> bool | None:
    res = gold.get("Resolution") or {}
    if kind in ("number", "ordinal"):
        return _close(_dec(value), _dec(res.get("value")))
    if kind == "percentage":
        return _close(_dec(value), _dec(res.get("value")))
    if kind == "currency":
        if res.get("value") is None:
            return None
        if not isinstance(value, dict):
            return False
        code_ok = res.get("isoCurrency") in (None, value.get("currency"))
        gold_amount = _dec(res.get("value"))
        if res.get("unit") == "Cent" and gold_amount is not None:
            gold_amount /= 100  # the spec counts "12-cent" in cents; lastline in the dollar they divide
        return code_ok and _close(_dec(value.get("amount")), gold_amount)
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


def _dateparser_ok(case: dict[str, Any], gold: dict[str, Any], lang: str) -> tuple[bool, bool]:
    from dateparser.search import search_dates

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            found = search_dates(case["Input"], languages=[lang],
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


def _phonenumbers_ok(case: dict[str, Any], gold: dict[str, Any], region: str) -> tuple[bool, bool]:
    import phonenumbers

    found = [m.raw_string for m in phonenumbers.PhoneNumberMatcher(case["Input"], region)]
    span = any(fold(r) == fold(gold["Text"]) for r in found)
    want = _phone_key(str(gold["Resolution"].get("value")))
    return span, any(_phone_key(r) == want for r in found)


FOLDERS = ("recognizers_zh", "recognizers_zh_extra", "recognizers_en")
#: Gold kind → the lastline entity types that may answer it (kinds absent here are not lastline types).
KINDS = {"number": ("number",), "ordinal": ("ordinal",), "percentage": ("percent",), "currency": ("money",),
         "phonenumber": ("phone",),
         "datetime": ("date", "datetime", "time", "daterange", "timerange", "duration", "set")}
#: The issue's names for the kinds (rows of the per-type table).
TYPE_NAMES = {"datetime": "datetime", "number": "number", "ordinal": "ordinal", "percentage": "percent",
              "currency": "currency", "phonenumber": "phone"}
_RANGE_KEYS = {"daterange": ("startDate", "endDate"), "timerange": ("startTime", "endTime"),
               "datetimerange": ("startDateTime", "endDateTime")}
_POINT_KEYS = {"date": "date", "datetime": "dateTime", "time": "time", "duration": "duration"}


def _parser_resolution(sub: str, value: dict[str, Any]) -> dict[str, Any] | None:
    """A parser spec's ``Value`` (Timex + Future/Past resolutions) in the model specs' ``Resolution`` form."""
    values: list[dict[str, Any]] = []
    for res in (value.get("FutureResolution") or {}, value.get("PastResolution") or {}):
        if sub == "set":
            values.append({"timex": value.get("Timex")})
        elif sub in _RANGE_KEYS:
            a, b = _RANGE_KEYS[sub]
            if res.get(a) or res.get(b):
                values.append({"start": res.get(a), "end": res.get(b)})
        elif sub in _POINT_KEYS and res.get(_POINT_KEYS[sub]):
            values.append({"value": res[_POINT_KEYS[sub]]})
    return {"values": values} if values else None


def _golds(case: dict[str, Any]) -> list[dict[str, Any]]:
    """The case's gold items as ``{Text, TypeName, kind, sub, Start, End (exclusive), Resolution|None}``."""
    out = []
    for r in case["Results"]:
        if "TypeName" in r:
            type_name = r["TypeName"]
            resolution = r.get("Resolution")
        else:  # the extra folder's extractor / parser specs
            type_name = "datetimeV2." + r["Type"]
            resolution = _parser_resolution(r["Type"], r["Value"]) if "Value" in r else None
        kind = _kind(type_name)
        gold = {"Text": r["Text"], "TypeName": type_name, "kind": kind,
                "sub": type_name.split(".", 1)[1] if "." in type_name else "", "Resolution": resolution}
        if "Length" in r:
            gold["Start"], gold["End"] = int(r["Start"]), int(r["Start"]) + int(r["Length"])
        elif "Start" in r and "End" in r:
            gold["Start"], gold["End"] = int(r["Start"]), int(r["End"]) + 1
        out.append(gold)
    return out


def _span(case: dict[str, Any], gold: dict[str, Any]) -> tuple[int, int]:
    if "Start" in gold:
        return gold["Start"], gold["End"]
    text = fold(case["Input"])
    i = text.find(fold(gold["Text"]))
    return (i, i + len(gold["Text"])) if i >= 0 else (0, len(text))


# -- constructions ------------------------------------------------------------------------------
#: (label, kinds, pattern on the gold text): the first that matches names a miss's construction.
_ZH_HOLIDAY = ("元旦|春节|除夕|中秋|端午|清明|圣诞|国庆|劳动节|五一|情人节|儿童节|"
               "重阳|七夕|元宵|母亲节|父亲节|感恩节|[^\\s]{1,4}节")
_CONSTRUCTIONS: list[tuple[str, tuple[str, ...], str]] = [
    # Chinese temporal
    ("zh holiday (元旦, 中秋节)", ("datetime",), _ZH_HOLIDAY),
    ("zh lunar date (农历, 初五, 腊月)", ("datetime",), "农历|農曆|初[一二三四五六七八九十]|正月|腊月|廿"),
    ("zh era year (康熙三年)", ("datetime",), "康熙|乾隆|民国|光绪|嘉庆|道光|雍正|咸丰|同治"),
    ("zh quarter (第三季度)", ("datetime",), "季度|季"),
    ("zh decade / century (九十年代)", ("datetime",), "年代|世纪"),
    ("zh start/end of a period (月底, 最后一天)", ("datetime",),
     "最后|最後|月底|月初|年底|年初|月末|年末|周末|週末|上旬|中旬|下旬"),
    ("zh two-step week shift (下下周三)", ("datetime",), "上上|下下"),
    ("zh set (每周一)", ("datetime",), "每"),
    ("zh worded year (两千零五年)", ("datetime",), "[零〇○一二两三四五六七八九]{2,}\\s*年|千.*年"),
    ("zh weekday range (周一到周五)", ("datetime",), "(?:周|星期|礼拜).{0,3}(?:到|至|-|~).{0,3}(?:周|星期|礼拜)?"),
    ("zh date range (从…到…, …之间)", ("datetime",), "到|至|~|～|之间|从|—|-"),
    ("zh open range (…之前, …以来)", ("datetime",), "之前|之后|以前|以后|以来|起|截止|截至|直到"),
    ("zh offset / window (三天后, 过去两周)", ("datetime",),
     "[天年月周时分秒]\\s*(?:前|后|後)|过去|未来|最近|之后|还剩"),
    ("zh clock time (下午3点, 9:30)", ("datetime",),
     "\\d:\\d|点|點|[0-9零一二三四五六七八九十]时|刻|分|秒|凌晨|早上|上午|中午|下午|晚上|傍晚|夜"),
    ("zh weekday (周三, 星期五)", ("datetime",), "周|星期|礼拜|週"),
    ("zh relative day/year (明天, 去年)", ("datetime",), "今|明|昨|前天|后天|去年|前年|本月|上个月|下个月"),
    ("zh now words (马上, 现在)", ("datetime",), "马上|现在|刚刚|立刻|目前|当前"),
    ("zh calendar date (2016年1月10日)", ("datetime",), "年|月|日|号"),
    # English temporal
    ("en holiday (christmas, thanksgiving)", ("datetime",),
     "(?i)christmas|thanksgiving|new year|easter|halloween|independence|memorial|labor day|valentine|mother'?s|"
     "father'?s|holiday"),
    ("en set (every monday, weekly)", ("datetime",), "(?i)\\b(?:every|each|daily|weekly|monthly|annually|yearly|"
     "nightly)\\b"),
    ("en offset (two weeks from today, 3 days ago)", ("datetime",),
     "(?i)\\b(?:ago|from now|from today|from tomorrow|later|hence|before|after|earlier)\\b"),
    ("en range (from … to …, between, -)", ("datetime",), "(?i)\\b(?:to|until|till|through|thru|between)\\b|"
     "\\d\\s*-\\s*\\d|\\s-\\s"),
    ("en part of day / time (at 5pm, this morning)", ("datetime",),
     "(?i)\\d\\s*(?:a\\.?m|p\\.?m)|o'?clock|noon|midnight|morning|afternoon|evening|night|tonight|\\d:\\d\\d|"
     "half past|quarter"),
    ("en relative period (next week, last month, this year)", ("datetime",),
     "(?i)\\b(?:next|last|this|coming|previous|past|upcoming|current)\\s+(?:week|month|year|quarter|weekend|decade)"),
    ("en relative weekday (next Tuesday)", ("datetime",), "(?i)\\b(?:next|last|this|coming|previous|past|upcoming)\\b"),
    ("en quarter / half / season", ("datetime",), "(?i)quarter|\\bq[1-4]\\b|\\bh[12]\\b|half|summer|winter|spring|"
     "fall|autumn"),
    ("en day of month ('the 3rd of May')", ("datetime",), "(?i)\\d(?:st|nd|rd|th)?\\s+of\\b|\\bthe\\s+\\d"),
    ("en weekday (on Friday)", ("datetime",), "(?i)monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
     "\\b(?:mon|tue|wed|thu|fri|sat|sun)\\b"),
    ("en duration (3 hours, two weeks)", ("datetime",), "(?i)\\b(?:years?|months?|weeks?|days?|hours?|hrs?|minutes?|"
     "mins?|seconds?|secs?)\\b"),
    ("en month-name date (June 15, 2024)", ("datetime",),
     "(?i)jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec"),
    ("en relative day (tomorrow, today)", ("datetime",), "(?i)today|tomorrow|yesterday|now|tonight"),
    ("numeric date (1/2/2020, 2016-11-07)", ("datetime",), "\\d+[/.\\-]\\d+"),
    ("year / decade alone (2009, the 90s)", ("datetime",), "\\d{2,4}s?"),
    # money
    ("scaled amount (1.5 million, 36亿)", ("currency",), "(?i)[万亿千百]|million|billion|thousand|trillion|"
     "\\d\\s*[mkb]n?\\b"),
    ("worded amount (五十元, fifty dollars)", ("currency",),
     "(?i)[零一二两三四五六七八九十]|\\b(?:one|two|three|four|five|six|"
     "seven|eight|nine|ten|twenty|hundred|a )"),
    ("currency code (USD 100, CNY)", ("currency",), "\\b[A-Z]{3}\\b"),
    ("cents / small units (5 cents, 角, 分)", ("currency",), "(?i)cent|penny|pence|角|分|毛"),
    ("symbol + digits ($100, ¥30)", ("currency",), "[$¥￥€£₩₹]"),
    ("named unit (15元, 100 dollars)", ("currency",), ".*"),
    # percent
    ("worded percent (百分之十五, fifteen percent)", ("percentage",), "(?i)百分之|千分之|万分之|percent|per cent|pct"),
    ("discount (打八折, 七成)", ("percentage",), "折|成"),
    ("symbol percent (15%)", ("percentage",), ".*"),
    # numbers
    ("fraction (三分之一, 1/2, a half)", ("number", "ordinal"),
     "(?i)分之|\\d\\s*/\\s*\\d|half|quarter|thirds?|fifths?"),
    ("power / scientific (2^-1, 1e5)", ("number",), "\\^|\\de[+-]?\\d|×10"),
    ("dozen / pair (一打)", ("number",), "(?i)打|dozen|pair|对|双"),
    ("full-width digits (１９９１)", ("number", "ordinal"), "[０-９]"),
    ("decimal (两百点两, 1.5)", ("number",), "点|點|\\d\\.\\d|(?i:point)"),
    ("suffix scale (1k, 3M, 5万)", ("number",), "(?i)\\d\\s*[kmb]\\b|\\d\\s*[万亿千百]"),
    ("grouped digits (1,234,567)", ("number",), "\\d,\\d{3}"),
    ("negative (-5, 负五)", ("number",), "负|負|^-|minus|negative"),
    ("worded Chinese (三百五十, 两万)", ("number", "ordinal"),
     "[零〇一二两兩三四五六七八九十百千万萬亿億壹贰叁肆伍陆柒捌玖拾佰仟]"),
    ("worded English (one hundred twenty)", ("number", "ordinal"), "(?i)[a-z]"),
    ("digits (192)", ("number", "ordinal"), ".*"),
    # phones
    ("international prefix (+86, 00 44)", ("phonenumber",), "^\\+|^00|^\\(\\+"),
    ("extension (x123, ext)", ("phonenumber",), "(?i)x\\s*\\d|ext|分机|转"),
    ("area code in parentheses ((010) 1234)", ("phonenumber",), "\\("),
    ("dotted groups (555.123.4567)", ("phonenumber",), "\\d\\.\\d"),
    ("spaced / dashed groups (000 111 82-2100)", ("phonenumber",), "\\d[\\s\\-]\\d"),
    ("plain digit run (13912345678)", ("phonenumber",), ".*"),
]
_COMPILED_CONSTRUCTIONS = [(label, kinds, re.compile(pat)) for label, kinds, pat in _CONSTRUCTIONS]


def construction(gold: dict[str, Any]) -> str:
    """The kind of expression a gold item is, for the miss list (``en …`` / ``zh …`` for dates)."""
    text, kind = gold["Text"], gold["kind"]
    han = bool(re.search(r"[\u4e00-\u9fff]", text))
    for label, kinds, rx in _COMPILED_CONSTRUCTIONS:
        if kind not in kinds:
            continue
        if kind == "datetime" and label.startswith(("zh ", "en ")) and label.startswith("zh ") != han:
            continue
        if rx.search(text):
            return f"{gold['sub'] or kind}: {label}" if kind == "datetime" else label
    return f"{kind}: other"


# -- scoring ----------------------------------------------------------------------------------
def _library_ok(folder: str, kind: str, case: dict[str, Any], gold: dict[str, Any]) -> tuple[bool, bool] | None:
    """(span, value) of the library for this kind, or None when no library is run for it."""
    zh = folder.startswith("recognizers_zh")
    if kind in ("number", "percentage", "currency") and zh:
        return False, bool(_value_ok(kind, gold, "", _cn2an_value(kind, gold["Text"])))
    if kind == "datetime" and gold["sub"] in ("date", "datetime", "time"):
        return _dateparser_ok(case, gold, "zh" if zh else "en")
    if kind == "phonenumber":
        return _phonenumbers_ok(case, gold, "CN" if zh else "US")
    return None


def _new_row() -> dict[str, Any]:
    return defaultdict(int)


#: A reader of entities: (text, reference time, Chinese folder?) → entities in lastline's form.
Reader = Callable[[str, datetime, bool], list[Entity]]


def lastline_reader(text: str, ref: datetime, zh: bool) -> list[Entity]:
    """lastline's own :func:`find_entities` (it guesses the language itself)."""
    return find_entities(text, reference_time=ref)


def score(folders: tuple[str, ...] = FOLDERS, libraries: bool = True, half: str = "all",
          reader: Reader = lastline_reader) -> dict[str, Any]:
    """Per file and per (folder, type) counts, and every value miss with its construction.

    ``half`` = ``"a"`` / ``"b"`` keeps the even / odd cases of each file: tuning looks at the misses of
    one half only, and the other half is the check that the widening generalized. ``reader`` is scored
    (lastline's by default; :func:`recognizers_text.find` for the library column).
    """
    per_file: dict[tuple[str, str], dict[str, Any]] = {}
    per_type: dict[tuple[str, str], dict[str, Any]] = defaultdict(_new_row)
    misses: list[dict[str, Any]] = []
    for folder in folders:
        zh = folder.startswith("recognizers_zh")
        files = sorted((DATA / "rules" / folder).glob("*.json"))
        if not files:  # a table of zeros would read as a measurement
            raise SystemExit(f"no spec files in {DATA / 'rules' / folder}: point LASTLINE_EVAL_DATA at the "
                             "evaluation data (../shared/data)")
        for path in files:
            cases = json.loads(path.read_text(encoding="utf-8"))
            # Each case keeps the half it belongs to (its parity in the file), whichever half is scored.
            halves = ["a" if i % 2 == 0 else "b" for i in range(len(cases))]
            if half != "all":
                cases, halves = cases[(half == "b")::2], halves[(half == "b")::2]
            golds_of = [_golds(c) for c in cases]
            kinds = [g["kind"] for gs in golds_of for g in gs]
            file_kind = max(set(kinds), key=kinds.count) if kinds else "datetime"
            row = per_file[(folder, path.stem)] = _new_row()
            row["kind"] = file_kind
            row["cases"] = len(cases)
            for case, golds, case_half in zip(cases, golds_of, halves, strict=True):
                ref = _reference(case)
                entities = reader(case["Input"], ref, zh)
                if not golds:
                    if file_kind in KINDS:
                        n = sum(e.type in KINDS[file_kind] for e in entities)
                        row["spurious"] += n
                        row["negatives"] += 1
                        per_type[(folder, file_kind)]["spurious"] += n
                        per_type[(folder, file_kind)]["negatives"] += 1
                    continue
                for gold in golds:
                    kind = gold["kind"]
                    trow = per_type[(folder, kind)]
                    row["items"] += 1
                    trow["items"] += 1
                    if kind not in KINDS:
                        row["unsupported"] += 1
                        trow["unsupported"] += 1
                        continue
                    types = KINDS[kind]
                    found = [e for e in entities if e.type in types]
                    gs, ge = _span(case, gold)
                    span_hit = any(fold(e.text) == fold(gold["Text"]) for e in found)
                    row["span"] += span_hit
                    trow["span"] += span_hit
                    if not _gold_has_value(kind, gold):
                        continue
                    hit = any(_value_ok(kind, gold, e.type, e.value) for e in found if e.start < ge and e.end > gs)
                    alone = [e for e in reader(gold["Text"], ref, zh) if e.type in types]
                    given = any(_value_ok(kind, gold, e.type, e.value) for e in alone)
                    for r in (row, trow):
                        r["value_n"] += 1
                        r["value"] += hit
                        r["given"] += given
                    if not hit:
                        misses.append({"folder": folder, "file": path.stem, "half": case_half,
                                       "construction": construction(gold),
                                       "input": case["Input"], "gold": gold["Text"],
                                       "resolution": gold["Resolution"],
                                       "ours": [(e.type, e.text, e.value) for e in found]})
                    if libraries:
                        lib = _library_ok(folder, kind, case, gold)
                        if lib is not None:
                            for r in (row, trow):
                                r["lib_n"] += 1
                                r["lib_span"] += lib[0]
                                r["lib_value"] += lib[1]
    return {"files": per_file, "types": dict(per_type), "misses": misses}


def _pct(n: int, d: int) -> str:
    return "—" if not d else f"{100 * n / d:.1f}%"


_LIBRARY = {("zh", "number"): "cn2an (gold span)", ("zh", "percentage"): "cn2an (gold span)",
            ("zh", "currency"): "cn2an (gold span)", ("zh", "datetime"): "dateparser (zh; points only)",
            ("en", "datetime"): "dateparser (en; points only)", ("zh", "phonenumber"): "phonenumbers (CN)",
            ("en", "phonenumber"): "phonenumbers (US)"}


#: The development-split targets: value accuracy per type (ordinals have none).
TARGETS = {"phonenumber": 0.97, "datetime": 0.92, "currency": 0.92, "percentage": 0.92, "number": 0.92}


def _target(kind: str, r: dict[str, Any]) -> str:
    goal = TARGETS.get(kind)
    if goal is None or not r["value_n"]:
        return "—"
    return f"≥ {100 * goal:.0f}%: " + ("met" if r["value"] / r["value_n"] >= goal else "**not met**")


def type_table(result: dict[str, Any], rt: dict[str, Any] | None = None) -> str:
    """The per-type table; ``rt`` (the library scored by the same code, :func:`recognizers_text.find`)
    adds its value column: on its own spec files, so an upper bound on what it does elsewhere."""
    extra = " | Recognizers-Text value (its own specs) |" if rt else " |"
    lines = ["| folder | type | gold items | span exact | value | target | value, gold span given "
             "| spurious / negatives | library | library value" + extra,
             "|---|---|---|---|---|---|---|---|---|---|" + ("---|" if rt else "")]
    for (folder, kind), r in sorted(result["types"].items(), key=lambda kv: (FOLDERS.index(kv[0][0]), kv[0][1])):
        name = TYPE_NAMES.get(kind, kind)
        if kind not in KINDS:
            lines.append(f"| {folder} | {name} | {r['items']} | not a lastline type | — | — | — | — | — | —"
                         + (" | — |" if rt else " |"))
            continue
        lib = _LIBRARY.get(("zh" if folder.startswith("recognizers_zh") else "en", kind), "—") if r["lib_n"] else "—"
        line = (f"| {folder} | {name} | {r['items']} | {_pct(r['span'], r['items'])} "
                f"| **{_pct(r['value'], r['value_n'])}** ({r['value']}/{r['value_n']}) | {_target(kind, r)} "
                f"| {_pct(r['given'], r['value_n'])} | {r['spurious']} / {r['negatives']} | {lib} "
                f"| {_pct(r['lib_value'], r['lib_n'])} |")
        if rt:
            o = rt["types"].get((folder, kind)) or _new_row()
            line += f" {_pct(o['value'], o['value_n'])} ({o['value']}/{o['value_n']}), spurious {o['spurious']} |"
        lines.append(line)
    return "\n".join(lines)


def file_table(result: dict[str, Any]) -> str:
    lines = ["| folder | file | cases | gold items | span exact | value | spurious / negatives |",
             "|---|---|---|---|---|---|---|"]
    for (folder, file), r in sorted(result["files"].items(), key=lambda kv: (FOLDERS.index(kv[0][0]), kv[0][1])):
        value = _pct(r["value"], r["value_n"]) + (f" ({r['value']}/{r['value_n']})" if r["value_n"] else "")
        span = "not a lastline type" if r["unsupported"] == r["items"] and r["items"] else _pct(r["span"], r["items"])
        lines.append(f"| {folder} | {file} | {r['cases']} | {r['items']} | {span} | {value} "
                     f"| {r['spurious']} / {r['negatives']} |")
    return "\n".join(lines)


#: Folders whose half b is read too. Half b was the held-out check of seven tuning rounds; the English
#: folder's was opened in the eighth (the development targets are on the whole folder, and the outside
#: held-out half of the same sources is the generalization check that remains). Its last held-out
#: figures stay in the tuning record.
OPENED_HALF_B = frozenset({"recognizers_en"})


def tuning_misses(result: dict[str, Any]) -> list[dict[str, Any]]:
    """The misses one may read: half **a**'s, and half b's only in :data:`OPENED_HALF_B`. Elsewhere half
    b is the held-out check of each tuning round, so its misses are never printed or written."""
    return [m for m in result["misses"] if m["half"] == "a" or m["folder"] in OPENED_HALF_B]


def miss_lines(result: dict[str, Any], per_construction: int) -> list[str]:
    """Up to ``per_construction`` readable misses (:func:`tuning_misses`) per (folder, construction), a line
    each (``--misses``)."""
    shown: dict[tuple[str, str], int] = defaultdict(int)
    out = []
    for m in tuning_misses(result):
        key = (m["folder"], m["construction"])
        if shown[key] < per_construction:
            shown[key] += 1
            out.append(f"MISS {m['folder']}/{m['file']} [{m['construction']}] {m['input'][:70]!r} gold={m['gold']!r} "
                       f"{json.dumps(m['resolution'], ensure_ascii=False)[:140]} ours={m['ours']}")
    return out


def miss_table(result: dict[str, Any], examples: int) -> str:
    """The readable misses (:func:`tuning_misses`) grouped by folder and construction, most frequent first."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for m in tuning_misses(result):
        groups[(m["folder"], m["construction"])].append(m)
    lines = ["| folder | construction | misses | e.g. |", "|---|---|---|---|"]
    for (folder, label), ms in sorted(groups.items(), key=lambda kv: (FOLDERS.index(kv[0][0]), -len(kv[1]), kv[0][1])):
        eg = "; ".join(f"`{m['gold']}`" for m in ms[:examples]).replace("|", "\\|")
        lines.append(f"| {folder} | {label} | {len(ms)} | {eg} |")
    return "\n".join(lines)


# -- the library on text of our own ----------------------------------------------------------------
#: Test modules whose parametrized ``(text, span, value)`` cases are sentences written for one construction.
OWN_SENTENCE_MODULES = ("test_rules_dates_en", "test_rules_numbers_en", "test_rules_constructions",
                        "test_rules_entities")
_TEMPORAL = frozenset(KINDS["datetime"])
#: Contract fields read as one entity each, by kind.
_FIELD_TYPES = {"effective_date": "date", "sign_date": "date", "amount": "money", "penalty_rate": "percent"}


def _family(entity_type: str) -> str:
    return "date/time" if entity_type in _TEMPORAL else entity_type


def _canonical(entity_type: str, value: Any) -> Any:
    """A value in one form per kind, so two readers' conventions compare: a range as its two ends
    (``2024-W23`` = its Monday … next Monday), a duration in seconds, an amount as a decimal."""
    if value is None:
        return None
    if entity_type in ("number", "percent", "ordinal"):
        return _dec(value)
    if entity_type == "money":
        return (_dec(value.get("amount")), value.get("currency")) if isinstance(value, dict) else None
    if entity_type == "phone":
        return _phone_key(str(value))
    if entity_type not in _TEMPORAL:
        return value
    text = str(value)
    if text.startswith("R/"):
        return ("set", text[2:])
    if text.startswith("P"):
        return ("duration", _iso_seconds(text))
    if "/" in text:
        a, b = text.split("/", 1)
        return ("range", _period(a, False), _period(b, True))
    expanded = _expand(text)
    return ("range", *expanded) if expanded else ("point", text.replace("T", " "))


def same_value(entity_type: str, want: Any, got_type: str, got: Any) -> bool:
    """Whether an entity (``got_type``, ``got``) has the value ``want`` of an ``entity_type`` entity."""
    if _family(entity_type) != _family(got_type):
        return False
    a, b = _canonical(entity_type, want), _canonical(got_type, got)
    if a is None or b is None:
        return False
    if entity_type == "money":  # a currency either side leaves unsaid is not a disagreement
        return _close(b[0], a[0]) and (None in (a[1], b[1]) or a[1] == b[1])
    if isinstance(a, Decimal):
        return _close(b, a)
    return bool(a == b)


def own_sentences() -> list[tuple[str, datetime, str, Any]]:
    """``(text, reference, type, value)`` of each English case of :data:`OWN_SENTENCE_MODULES` that
    lastline reads with its span and value at its module's reference time (a case its test checks at
    another reference, or through another call, is left out): lastline passes every one by construction."""
    import importlib

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from lastline.text import is_cjk_dominant

    out = []
    for name in OWN_SENTENCE_MODULES:
        module = importlib.import_module(name)
        ref = getattr(module, "REF", datetime(2024, 6, 12, 10))
        for test in vars(module).values():
            for mark in getattr(test, "pytestmark", []):
                names = mark.args[0] if mark.name == "parametrize" else ""
                names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
                if "text" not in names or "span" not in names:
                    continue
                for values in mark.args[1]:
                    case = dict(zip(names, getattr(values, "values", values), strict=False))
                    want = case.get("value", {"amount": case.get("amount"), "currency": case.get("currency")})
                    if is_cjk_dominant(case["text"]):
                        continue
                    hit = next((e for e in find_entities(case["text"], reference_time=ref)
                                if e.text == case["span"] and same_value(e.type, want, e.type, e.value)), None)
                    if hit is not None:
                        out.append((case["text"], ref, hit.type, hit.value))
    return out


def beside_on_own_text() -> dict[str, dict[str, list[int]]]:
    """Cases read right by lastline and by Recognizers-Text on text neither was written against,
    per source and kind: ``{source: {kind: [cases, lastline right, library right]}}``. Sources: the
    English construction tests' sentences (:func:`own_sentences`) and the date, amount and rate fields
    of the contract snippets (found anywhere in the snippet's text, by each reader's entities)."""
    rows: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0, 0]))
    for text, ref, entity_type, value in own_sentences():
        row = rows["construction tests, English"][_family(entity_type)]
        row[0] += 1
        row[1] += 1
        row[2] += any(same_value(entity_type, value, e.type, e.value) for e in recognizers_text.find(text, ref))
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from contract_cases import load_cases

    for holdout in (False, True):
        for case in load_cases(holdout):
            zh, ref = case["lang"] == "zh", datetime(2024, 6, 1)
            ours = find_entities(case["text"], reference_time=ref, lang=case["lang"])
            theirs = recognizers_text.find(case["text"], ref, zh=zh)
            for field, want in case["expected"].items():
                entity_type = _FIELD_TYPES.get(field)
                if entity_type is None or want is None:
                    continue
                row = rows[f"contract snippets, {case['lang']}"][_family(entity_type)]
                row[0] += 1
                row[1] += any(same_value(entity_type, want, e.type, e.value) for e in ours)
                row[2] += any(same_value(entity_type, want, e.type, e.value) for e in theirs)
    return rows


_RT_PROSE = """**Recognizers-Text's Python port, beside lastline.** The spec files are this library's own test
cases, so its column in the per-type table says how far the Python port follows its specs, not how it
reads other text (the specs themselves mark a share of their cases "not supported" by the Python port).
Each of its recognizers runs alone, as its specs call them: digits inside a phone number are numbers for
it, where lastline gives the span to the phone. On text neither was written against — the English
sentences of lastline's construction tests (lastline passes every one of these by construction: they
are its tests; conventions differ in a few, e.g. pence) and the date, amount and rate fields of the
contract snippets (found anywhere in the text by each reader's entities; lastline reads `as of March 15,
2024` as an open range from that day, where the field wants the day, which the pack itself gives):"""


def rt_lines() -> list[str]:
    """The library's section: its reading of text of our own, and what it costs."""
    lines = ["", _RT_PROSE, "", f"| text | kind | cases | lastline | {recognizers_text.label()} |",
             "|---|---|---|---|---|"]
    for source, kinds in beside_on_own_text().items():
        for kind, (n, ours, theirs) in sorted(kinds.items()):
            lines.append(f"| {source} | {kind} | {n} | {_pct(ours, n)} | {_pct(theirs, n)} |")
    questions = ["我想借五千元，下周三还可以吗？", "How do I refund order 123456 placed on June 15?",
                 "信用卡额度能提高到两万吗", "What is the late fee if I pay 3 days after the due date?"]
    c = recognizers_text.cost(questions, {f"throughput_{lang}": _contract(f"throughput_{lang}.txt")
                                          for lang in ("en", "zh")})
    lines += ["", f"Its cost (one thread, `time.process_time`): building its English models {c['build_en_s']:.1f} s "
              f"of CPU and {c['build_en_mb']:.0f} MB resident (its import included), its Chinese models "
              f"{c['build_zh_s']:.1f} s and {c['build_zh_mb']:.0f} MB; **{c['question_ms']:.1f} ms CPU** per short "
              f"question "
              f"(the four of the throughput line; lastline's figure is below); on the 2 KB contracts "
              f"**{c['contract_throughput_en_s']:.2f} s** (English) and **{c['contract_throughput_zh_s']:.2f} s** "
              f"(Chinese) of CPU each, where the budget is 2 ms per contract for everything; load average "
              f"{os.getloadavg()[0]:.1f}."]
    return lines


#: The ≈2 KB contracts timed, one per built-in contract pack: (pack, file under tests/data/contracts).
THROUGHPUT_CONTRACTS = (("contract_zh", "throughput_zh.txt"), ("contract_en", "throughput_en.txt"))


def _contract(name: str) -> str:
    return (Path(__file__).resolve().parents[1] / "tests" / "data" / "contracts" / name).read_text(encoding="utf-8")


def throughput() -> dict[str, Any]:
    """Docs/s for each ≈2 KB contract through its pack, and find_entities on short questions.

    Both wall time and process CPU time are reported: on a shared machine CPU time is the steadier.
    """
    from lastline.rules import RuleEngine

    engine = RuleEngine()
    packs: dict[str, dict[str, float]] = {}
    for pack, name in THROUGHPUT_CONTRACTS:
        contract = _contract(name)
        engine.extract(contract, pack=pack)
        n, start, cpu = 0, time.perf_counter(), time.process_time()
        while time.perf_counter() - start < 3.0:
            engine.extract(contract, pack=pack)
            n += 1
        packs[pack] = {"chars": len(contract), "docs_per_s": n / (time.perf_counter() - start),
                       "docs_per_cpu_s": n / (time.process_time() - cpu)}
    questions = ["我想借五千元，下周三还可以吗？", "How do I refund order 123456 placed on June 15?",
                 "信用卡额度能提高到两万吗", "What is the late fee if I pay 3 days after the due date?"]
    m, start, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - start < 2.0:
        for q in questions:
            find_entities(q)
        m += len(questions)
    return {"packs": packs, "question_ms": (time.perf_counter() - start) / m * 1000,
            "question_cpu_ms": (time.process_time() - cpu) / m * 1000}


def load_rules_at(rev: str) -> Any:
    """The ``lastline.rules`` package as it was at git revision ``rev``, importable beside today's.

    Its ``rules/`` and ``core/text.py`` are taken with ``git archive`` into a temporary folder and
    loaded as ``lastline.rules_at_<rev>`` (relative imports stay inside it); its language guess is
    that revision's too. Both run in one process, so a ratio of the two is fair on a loaded machine.
    """
    import importlib.util
    import io
    import subprocess
    import tarfile
    import tempfile

    root = Path(__file__).resolve().parents[1]
    folder = Path(tempfile.mkdtemp(prefix="lastline-rules-"))
    archive = subprocess.run(["git", "-C", str(root), "archive", rev, "rules", "core/text.py"], check=True,
                             capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    tag = re.sub(r"\W", "_", rev)

    def load(name: str, path: Path, package: bool) -> Any:
        spec = importlib.util.spec_from_file_location(name, path / "__init__.py" if package else path,
                                                      submodule_search_locations=[str(path)] if package else None)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module

    text = load(f"lastline.text_at_{tag}", folder / "core" / "text.py", False)
    rules = load(f"lastline.rules_at_{tag}", folder / "rules", True)
    sys.modules[f"lastline.rules_at_{tag}.extract"].language_of = text.language_of  # type: ignore[attr-defined]
    sys.modules[f"lastline.rules_at_{tag}.entities"].is_cjk_dominant = text.is_cjk_dominant  # type: ignore[attr-defined]
    return rules


def throughput_against(rev: str, rounds: int = 6) -> dict[str, dict[str, float]]:
    """CPU docs/s of each contract pack at ``rev`` and now, in interleaved one-second rounds (medians)."""
    import statistics

    from lastline.rules import RuleEngine

    engines = {"before": load_rules_at(rev).RuleEngine(), "after": RuleEngine()}
    out: dict[str, dict[str, float]] = {}
    for pack, name in THROUGHPUT_CONTRACTS:
        contract = _contract(name)
        rates: dict[str, list[float]] = {k: [] for k in engines}
        for engine in engines.values():
            engine.extract(contract, pack=pack)
        for _ in range(rounds):
            for label, engine in engines.items():
                n, cpu = 0, time.process_time()
                while time.process_time() - cpu < 1.0:
                    engine.extract(contract, pack=pack)
                    n += 1
                rates[label].append(n / (time.process_time() - cpu))
        before, after = statistics.median(rates["before"]), statistics.median(rates["after"])
        out[pack] = {"before": before, "after": after, "ratio": after / before}
    return out


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


_PROSE = """Entity extraction on the Microsoft Recognizers-Text specs in `../shared/data/rules/`: the
Chinese model specs (`recognizers_zh`), the Chinese extractor and parser specs (`recognizers_zh_extra`:
span-only extractor files, value-scored parser files) and the English model specs (`recognizers_en`),
every file scored, per type and per file. All three are development splits; a held-out half of the
same sources is scored from outside. "Value" = an entity of the right kind overlapping the gold span
has the gold value; "gold span given" = our normalizer on the gold text alone (the fair comparison with
cn2an, which normalizes but does not extract); an item whose gold states no value (`Feb 30` "not
resolved", a bare `%`, a currency without an amount) counts for the span only. The value mapping is
documented in the script."""


#: What this script printed at two earlier moments (value accuracy, correct/scored; spurious on
#: negatives), kept so that the tuning order stays on record: the untouched baseline (commit 44de223
#: code, this scorer from 5ad9e18), and the two other folders right after tuning on
#: ``recognizers_zh`` only (c681afd) — held out at that moment.
_TUNING_RECORD = """How the grammars were tuned (the order matters: a folder used as a held-out check is reported
before it was tuned on). 1. `recognizers_zh` first; 2. then `recognizers_zh_extra`, 3. then
`recognizers_en`, each only after its held-out figure below was recorded. The same script printed:

| folder | type | untouched baseline | after tuning on recognizers_zh only (held out) |
|---|---|---|---|
| recognizers_zh | currency | 90.0% (18/20), spurious 0 | (tuned) |
| recognizers_zh | datetime | 90.3% (130/144), spurious 0 | (tuned) |
| recognizers_zh | number | 90.6% (174/192), spurious 16 | (tuned) |
| recognizers_zh | percent | 100.0% (78/78), spurious 2 | (tuned) |
| recognizers_zh | phone | 100.0% (181/181), spurious 4 | (tuned) |
| recognizers_zh_extra | datetime | 59.4% (120/202), spurious 2 | 61.9% (125/202), spurious 2 |
| recognizers_zh_extra | ordinal | 40.0% (4/10) | 40.0% (4/10) |
| recognizers_en | currency | 54.8% (51/93), spurious 0 | 54.8% (51/93), spurious 0 |
| recognizers_en | datetime | 11.2% (58/519), spurious 0 | 11.2% (58/519), spurious 0 |
| recognizers_en | number | 16.4% (21/128), spurious 4 | 20.3% (26/128), spurious 4 |
| recognizers_en | percent | 33.3% (3/9), spurious 0 | 33.3% (3/9), spurious 0 |
| recognizers_en | phone | 96.1% (171/178), spurious 9 | 96.1% (171/178), spurious 9 |

All three folders are tuned on now, so the figures above the record are development figures; only
the outside held-out half of the same sources says how far they generalize.

Second round (English and `recognizers_zh_extra`): each file split by case parity with `--half`; the
misses of half **a** (even cases) were read and widened by construction, half **b** (odd cases) was
only measured — before the round ("untouched") and after it:

| folder | type | half a before | half a after (tuned on) | half b before | half b after (measured only) |
|---|---|---|---|---|---|
| recognizers_en | datetime | 19.4% (49/253) | 65.6% (166/253) | 28.9% (77/266) | 53.4% (142/266) |
| recognizers_en | number | 63.1% (41/65) | 78.5% (51/65) | 63.5% (40/63) | 69.8% (44/63) |
| recognizers_en | currency | 82.2% (37/45) | 97.8% (44/45) | 77.1% (37/48) | 81.2% (39/48) |
| recognizers_en | percent | 75.0% (3/4) | 100.0% (4/4) | 60.0% (3/5) | 80.0% (4/5) |
| recognizers_en | phone | 98.9% (89/90) | 98.9% (89/90) | 97.7% (86/88) | 97.7% (86/88) |
| recognizers_zh_extra | datetime | 88.3% (91/103) | 91.3% (94/103) | 88.9% (88/99) | 90.9% (90/99) |

Half b's English dates after each widening step (times of day; amounts of time; money and
percent; ranges of clock times; open ranges; counted ranges and weeks; ordinal days; weekday with
its date; sets and month ranges; offsets from a named day): 28.9 → 32.7 → 36.5 → 36.5 → 41.7 →
44.4 → 48.1 → 49.6 → 51.1 → 53.4 → 53.4%. The last steps gained on half a only: the long tail there
no longer transfers. `recognizers_zh` was not tuned in this round (its figures must not fall).

Third round (same split; half **a** read and widened, half **b** only measured). Constructions added:
a numeric date before a full stop, no day from the tail of an amount or a decimal (`$12 December 27`),
a month or day naming its year after "in", a bare hour after "at" following a date, ranges joined by
until / till / through, open ranges by "and later" / "as early as" / "as late as" (with "around"
between), ordinal centuries, calendar years (`cy18`), "earlier this month", `tonite`, "last easter"
(the most recent one), "between A and B" (with "now" as an end), a clock time and the part of the day
after it, durations written in parts (`3 hours 30 minutes`), digits with falling scale words
(`4 thousand 3 hundred and 21`); in Chinese a bare `12号` with a day cue around it,
"after A before B" as one range, a hyphened date with a two-digit year first (`27-7-3`):

| folder | type | half a before | half a after (tuned on) | half b before | half b after (measured only) |
|---|---|---|---|---|---|
| recognizers_en | datetime | 65.6% (166/253) | 74.7% (189/253) | 53.4% (142/266) | 55.6% (148/266) |
| recognizers_en | number | 78.5% (51/65) | 80.0% (52/65) | 69.8% (44/63) | 69.8% (44/63) |
| recognizers_zh_extra | datetime | 91.3% (94/103) | 93.2% (96/103) | 90.9% (90/99) | 90.9% (90/99) |

Half a gained 23 English dates, half b 6: the misses left are a long tail of one-off constructions
(a named day with an offset, ranges of quarters, spans with a duration), and what half a taught
mostly does not recur in half b. Spurious entities on negatives did not rise on either half.
`dateparser` 1.5 was timed by hand (once, not by this script) as an English date reader for the tail
and left out: `search_dates` spent ≈440 ms CPU on one 2 KB English contract text and `parse` ≈2 ms on
one short phrase, against a budget of 2 ms per contract for everything.

Fourth round (same split; half **b** only measured, before and after). The constructions were found
by running a grid of hand-written English phrases, one per kind of expression contracts and chats
use (parts of a period, days counted in a month, weekday of a named week, currency codes and names,
percent units), against the grammar, beside half a's misses; each is a grammar with its own test, not a
spec string. Added: early / mid / late and the beginning / middle / end of a month, a named or a
relative year and a week; the first Monday / last Friday of a month; the first / last day of a period;
"on the 15th" and "the 3rd of next month" (a preposition or the month is needed: "around the 21st" is
none); a weekday of a named week ("Friday next week"); the next / previous day, the day before;
the week after next; the week of / starting on a day; an amount of time starting on a day; weekday
ranges (Mon-Fri); a day range before its month (1-15 June); a bare hour after "at" closing the clause;
a bare month/day whose day is past 12 (11/20; not in Chinese text); clock times in words after a
cue (at nine thirty); a list of weekdays stays a list; percentage points, per centum, basis points;
thirty more ISO codes and their English names around an amount (CHF 200, 50 Australian dollars),
Rs., bucks, "3 dollars and 50 cents"; half a million, a dozen, two-thirds:

| folder | type | half a before | half a after (tuned on) | half b before | half b after (measured only) |
|---|---|---|---|---|---|
| recognizers_en | datetime | 74.7% (189/253) | 78.3% (198/253) | 55.6% (148/266) | 61.3% (163/266) |
| recognizers_en | number | 80.0% (52/65) | 80.0% (52/65) | 69.8% (44/63) | 69.8% (44/63) |
| recognizers_en | currency | 97.8% (44/45) | 97.8% (44/45) | 81.2% (39/48) | 81.2% (39/48) |
| recognizers_en | percent | 100.0% (4/4) | 100.0% (4/4) | 80.0% (4/5) | 80.0% (4/5) |
| recognizers_en | phone | 98.9% (89/90) | 98.9% (89/90) | 97.7% (86/88) | 97.7% (86/88) |

This time half b gained more than half a (+15 dates against +9): grammars written for a kind of
expression carry over, where the earlier rounds' fixes of half a's own strings did not. Spurious
entities on the negatives did not rise on either half; the Chinese folders did not move.

Fifth round, numbers, money and percent only (same split; half **a** read, half **b** only measured).
Constructions from a grid of hand-written English phrases per kind of expression, beside half a's
misses: a bare proper fraction in digits (`1/4`, `3/8`; a date grammar keeps `on 1/4`, `6/15`; `12/1`
stays two numbers), a whole and a digit fraction (`1 and 1/2`), a sign word before one (`minus 1/2`), a
digit fraction of a scale (`3/4 of a million`), the fraction slash (`1⁄2`), a decimal comma with one
decimal (`1,3`; `1,5%` beside the unit), a digit fraction before percent (`1/2%`), percent and per cent
in any case, worded decimals read digit by digit (`point seven five`) and before a scale (`one point two
million`), `a dollar`, `quid`, `BTC`; in Chinese, everyday characters that are financial capitals (退伍,
放肆, 拾起, 大陆), numerals inside idioms (十足, 两两, 一看就) and a lone 万 are no numbers:

| folder | type | half a before | half a after (tuned on) | half b before | half b after (measured only) |
|---|---|---|---|---|---|
| recognizers_en | number | 83.1% (54/65) | 84.6% (55/65) | 69.8% (44/63) | 69.8% (44/63) |
| recognizers_en | currency | 97.8% (44/45) | 97.8% (44/45) | 81.2% (39/48) | 81.2% (39/48) |
| recognizers_en | percent | 100.0% (4/4) | 100.0% (4/4) | 80.0% (4/5) | 80.0% (4/5) |
| recognizers_zh | number | 92.0% (81/88) | 92.0% (81/88) | 98.1% (102/104) | 98.1% (102/104) |

Spurious numbers on the negatives: Chinese 9/12 → 0/12 on half a and 7/7 → 2/7 on half b; English
unchanged (1/4 and 3/6). Half b's English figures did not move: what the grid found (and the grid passes
nearly every common construction now) is not what half b misses; its gold spans read alone are 71.4%
right, so the rest are constructions no grid phrase named. Half a's English number misses left are the
spec reading digits inside a phone number as numbers (`+1-222-2222/2222`, `423 0000`: 6 items, the phone
wins the span), a number inside an amount (`hundred thousand dollars`: the money wins), `10G` as 10^10
(a generation in "5G", left out), a lone `one` (a pronoun as often), and `100 millionths` read as 100.
The Chinese idiom rule was first written for every financial capital and cost one held-out number
(101/104); it was narrowed to the capitals that are everyday characters, on that one reading of half b.

Microsoft's own Python port of Recognizers-Text (`ms-recognizers-text-date-time` 1.0.0.1, the
source of these specs) was tried as the English date reader and left out: 2 s to build its model,
41 ms CPU per short question and 228 s on one 2 KB contract (its merged extractor is superlinear),
against a budget of 2 ms per contract; and scoring it on its own specs would measure nothing.

Fifth round, English dates only (same split; half **a** read, half **b** only measured, before and
after). Each construction came from a grid of hand-written English phrases, one kind of expression
each, run against the grammar (a few from half a's misses); each has its own test in
`tests/test_rules_dates_en.py`, none is a spec string. Added: the nth weekend of a month (the last
weekend of March), the nth week of a relative year, ISO week dates (`2024-W23`, `2024-W23-3`), a
quarter after "of" (Q1 of 2023) and of a year's possessive (next year's first quarter), early / mid /
late decades (the mid-2010s), four-digit clock times after "at" (at 0800), counted business days,
ranges of months (Jan-Mar 2024, between Sep and Nov, Nov-Feb 5th, 2017), hours in words with am/pm
(nine am, half past 3 pm), short weekday names before a time or after "on" (Tue 3pm), the weekend of a
day (July 4th weekend, halloween weekend 2021), counts of tens and units in words (forty-eight hours),
parts of an hour, a day range "in" its month (from 4-23 in April), a weekday before last, the weekend
after next, lunch after a preposition (before lunch), a year past 2099 ending its clause, a part of the
day around a named day (the night before Christmas), close of business, an amount of time after a
clock time (30 minutes after 3pm), a day at a bare hour in a part of the day (tomorrow at 7 in the
evening), every weekday in a part of the day (every Monday morning):

| folder | type | half a before | half a after (tuned on) | half b before | half b after (measured only) |
|---|---|---|---|---|---|
| recognizers_en | datetime | 88.9% (225/253) | 90.9% (230/253) | 66.2% (176/266) | 66.9% (178/266) |

Half b gained 2 dates: the kinds of expression a hand-written grid finds are not, for the most part,
the ones half b's misses hold; its gold-span column (the normalizer on the gold text alone) is about
as low as its end-to-end figure, so what is left there is reading, not finding. The Chinese folders
and the spurious entities on negatives did not move.

Sixth round (same split; half **a** read, half **b** only measured, before and after). The source of
constructions was the library the specs come from: Recognizers-Text's Python port, scored by this
script's own code (its column above; the earlier hand timing in the fifth round is superseded by the
script's). On half a it read 34 gold items lastline missed; nearly all are spec conventions (digits
inside a phone number counted as numbers, `10G`, a lone `one`, day-first slashed dates in Chinese
text) or one-offs (`the day`, `otd`, `大年三十`), and on half a's other types it reads fewer than
lastline. Its misreadings of our own sentences, and the cases where it was right, pointed at four
constructions lastline itself got wrong, each now with a test on sentences of our own (a hypothesis
property for the first): a range whose end names no year ended before its start (`from December 20
to January 3`, `from today until March 3`, `从周五到周一`); a yearless start took this year even when
the end's written year was this year (`from December 20 to January 3, 2024`); a bare Chinese hour
opening a range of clock times was not read (`三点到五点`); `现在` did not open a range (`从现在到八点`;
alone it stays no entity). Numbers now read under a pinned decimal context: importing the library's
Chinese number parser sets the process's precision to 15, which had made lastline drop `two thirds`.

| folder | type | half a before | half a after (tuned on) | half b before | half b after (measured only) |
|---|---|---|---|---|---|
| recognizers_en | datetime | 90.9% (230/253) | 91.3% (231/253) | 66.9% (178/266) | 66.9% (178/266) |
| recognizers_zh_extra | datetime | 93.2% (96/103) | 94.2% (97/103) | 90.9% (90/99) | 90.9% (90/99) |
| every other folder and type | | unchanged | unchanged | unchanged | unchanged |

The constructions are real and general, and the specs barely hold them: half b did not move. The
spurious entities on negatives did not move.

Seventh round (same split; half **a** read, half **b** only measured as a total, before and after each of
three steps). The source of constructions was the library's English resource grammars read as a
catalogue of kinds of expression (its numeric, currency and date-time definition modules; facts, none
of its patterns), each kind run as sentences of our own against lastline, and as generated phrases
(integers, decimals and fractions in words, digit forms) beside the library's reading of the same
phrases. Added, each with a test on sentences of our own (hypothesis for Indian grouping): numbers —
lakhs grouped as India writes them (`1,00,000`), lakh and crore in words and chained (`one crore twenty
lakh`), plural scales after digits (`3 millions`), `MM`, `doz` / `dz`, `one millionth`, `one over three`
before a verb, `point twenty five`, a mixed fraction of a scale (`1 1/2 million`) or of an hour (`1 1/2
hours`), a spaced minus opening a line (`- 5`), and `a second` is no half; money — a unit named with its
country (about a hundred names: `20 Jamaican dollars`, `10 Kuwaiti dinars`), a major and a minor unit as
one amount (`5 pounds 50 pence`, `twenty rubles fifty kopecks`, `100 pesos and 50 centavos`, fils as
thousandths), minor units alone where they name one currency (`50 kopecks`, `300 satoshis`, `euro cents`,
`50p`), `$.50`, `2000 ¥`, a decimal comma ending a sentence; dates — a date closing its sentence (a full
stop after `Friday the 14th`, `week 20`, `27-7-3` used to cut it), mid-morning / mid-afternoon / mid day,
rough hours (`3ish`), a month's name between hyphens (`15-Jun-2024`):

| folder | type | half a before | half a after (tuned on) | half b before | half b after (measured only) |
|---|---|---|---|---|---|
| recognizers_en | number | 84.6% (55/65) | 84.6% (55/65) | 69.8% (44/63) | 69.8% (44/63) |
| recognizers_en | currency | 97.8% (44/45) | 97.8% (44/45) | 81.2% (39/48) | 81.2% (39/48) |
| recognizers_en | percent | 100.0% (4/4) | 100.0% (4/4) | 80.0% (4/5) | 80.0% (4/5) |
| recognizers_en | datetime | 91.3% (231/253) | 91.3% (231/253) | 66.9% (178/266) | 68.4% (182/266) |
| every other folder and type | | unchanged | unchanged | unchanged | unchanged |

Numbers and money did not move on either half: half a's misses left are the spec conventions named in
the fifth round, and on generated phrases of the catalogue's kinds lastline now agrees with the
library's value or is right where it is not, so what half b misses in numbers and money is not a
construction the catalogue names (its gold spans read alone stay 71.4% and 85.4% right). Half b gained
4 dates, from the sentence-final full stop. Spurious entities on negatives did not move.

Eighth round: **half b of `recognizers_en` opened** (`OPENED_HALF_B`). The targets are on the whole
development folder, and seven rounds had shown what half a's fixes are worth on half b; the outside
held-out half of the same sources is the generalization check from here on. Half b's last held-out
figures are the seventh round's above (dates 68.4%, numbers 69.8%, money 81.2%, percent 80.0%). Two
changes of scoring first, applied to every folder: an item whose gold states no value (`Feb 30` and
`fiscal year` "not resolved", a bare `%` with value null) counts for its span only, as a currency
without an amount already did (English dates 413/519 → 413/511, English percent 8/9 → 8/8, Chinese
dates 136/144 → 136/142, nothing else moved); and the spec's `Cent` unit counts in cents (`12-cent` is
12 there, 0.12 USD here). Then constructions from both halves' misses, each with tests on sentences of
our own (`tests/test_rules_dates_en.py`, `test_rules_numbers_en.py`, `test_rules_constructions.py`):
money — a scale after the code (`75 USD million`), cents left unnamed closing the clause (`thirteen
dollars forty five`) or before more / less / extra (`15 USD 50 more`), hyphened cents (`a 12-cent
dividend`), thousands spaced out (`2 500 ₽`); numbers — "and" before a decimal place is the decimal
point (`two hundred and fifty-four hundredths` = 200.54), a fraction after "and" is a part of the scale
before or after it (`five billion and three quarters`, `one billion and a half million`), digits
counting a scale word (`3 hundred and one`, `3 million and a half`), `lakh crore`, trillionths,
thousands grouped by spaces (`40 000`; no-break and thin spaces now fold to a space); dates — a month's
name with hyphens (`Sep-23-2020`, `Dec-2018`), a two-digit year after "of" (`April of 87`), day-first
slashes with the day past 12 (`22/04`), parts of the day in the plural after "in" (`in the mornings`),
`lunchtime`, a range open before a clock time (`before 2.30pm`) and on a day before or after it (`today
before 4pm`, `Tuesday after 1pm`, `3 pm or later on Monday`), nights counted as days (`two nights`), two
numeric dates joined by a dash (`5/1-5/7, 2020`, `10/1-11/2/2017`; a year, "from" or a day past 12
needed, so `1/2-3/4` stays fractions), four-digit clock ranges after "between" (`between 0730-0930`),
"between … to", `to date` (not "up to date"), `current date`, `otd`, "couple" without its article,
`½ hour`, `3Y`, later in a period or a part of the day as its second half from today on (`later this
week`, `later in the afternoon`), the last week of a month as the week holding its last day, `w/c`, a
Monday holiday's weekend holding the Monday, `9 to 12 of June`, `april the ninth till the seventeenth`,
the nth month of a year, the end of a weekday, a bare hour "around" a day, a weekday's part of the day
of a named week (`wednesday evening next week`), an unmarked end after a morning start (`8am-3`), `on
29th`, an amount of hours from a bare hour (`for 2.5 hours from 9`), dinner after a preposition, `next
5/12`, a short weekday listed after another (`Mon or Tue`). One bug found on the way: an open range of
clock times on a day was closed at ".." (`after lunch tomorrow`):

| folder | type | whole folder before (old scoring) | whole folder after | half a after | half b after (tuned on) |
|---|---|---|---|---|---|
| recognizers_en | currency | 89.2% (83/93) | 94.6% (88/93) | 97.8% (44/45) | 91.7% (44/48) |
| recognizers_en | datetime | 79.6% (413/519) | 89.6% (458/511) | 94.0% (235/250) | 85.4% (223/261) |
| recognizers_en | number | 78.1% (100/128) | 87.5% (112/128) | 84.6% (55/65) | 90.5% (57/63) |
| recognizers_en | percent | 88.9% (8/9) | 100.0% (8/8) | 100.0% (4/4) | 100.0% (4/4) |
| recognizers_en | phone | 98.3% (175/178) | 98.3% (175/178) | 98.9% (89/90) | 97.7% (86/88) |

The Chinese folders did not move; spurious entities on the negatives did not move in any folder. What
is left in English numbers is mostly the spec's own conventions (digits inside a phone number or an
amount counted as numbers as well, `10G`, `one hundred thirty fifths` read as 100/35, a lone `one`). In
English dates: a holiday or an hour composed with its time (`christmas eve at 6 p.m.`, `2pm for 1 hr`:
the spec keeps two entities), an anaphoric period the spec resolves to the current one (`that weekend`,
`the day`, `the month`), bare parts of the day and bare years, and one-offs (`7ampm`, `tonight around
3`, `eid al fitr`, a date inside a URL); widening further would be fitting spec strings.

Ninth round, English (the whole development folder; no local half is held out any more, so the outside
held-out half is the only check of what follows). Of the misses the eighth round called the spec's
conventions, those that are constructions of English were widened as constructions, each with its limit and
with tests on sentences of our own: a tens word or `one hundred`/`one thousand` right before a unit ordinal
belongs to the denominator (`one hundred thirty fifths` = 100/35, `one hundred one thousand fifths` =
100/1005; hyphened `thirty-two fifths` stays 32/5); an English holiday stays a date beside its time
(`christmas eve at 6 p.m.`: the spec keeps a holiday whole in every case it has); a period named with
`the`/`that`/`same` at the end of a clause is the current one (`blocked for the day`, `sales in the year`,
`that weekend`, `the fortnight`), but not after `of` or `throughout`, which make it a kind (`meal of the day`,
`day of the week`: on QQP those are far more common than a current period, so the spec's `partner of the
month` stays a miss); a part of the day named alone (`one morning`, `2 morning sessions`; not `good morning`,
not `the evening of June 20`, which is that day's); a month and year in digits (`12-2015`, `2015-12`,
`09/2027`); a compared year (`>= 2019`, `< 2000`; 19xx and 20xx only, so `price > 1500` stays an amount); a
day in cardinal words before a month and its year (`twenty five January nineteen eighty six`; a year is
required, so `five January invoices` is no date); a counted range going on by finer durations (`the last 3
months and 2 weeks and 2 days`, unless the list goes on to a point: `… and 2 days ago`); weekends as a unit
(`three weekends` = 6 days, `every two weekends`); a year set equal (`= 2019`, which the Chinese file has
too); after the beginning of a period opens at its first day (`after the beginning of March`: after March
began; after its early part still opens on the 16th). Left out on purpose, after reading what they do to
20,000 QQP questions and 1,500 SciFact abstracts: `10G` as giga (`4G` and `3G`, network generations, came up
29 times there), bare `weekend` and bare years (mostly generic). English dates 458 → 476 of 511 (89.6% →
93.2%), numbers 112 → 115 of 128 (87.5% → 89.8%), Chinese dates 136 → 137 of 142; no new miss in any folder,
spurious entities on negatives unchanged, Chinese half b unchanged; on QQP val the slot guard now refuses 3
pairs of 12,127 it let through (2 non-duplicates, 1 duplicate for `in the weekend`), and 2 pairs it refused
for an amount it now refuses for a date. Reading that prose also turned up a bug: a superscript or subscript
digit (`km²`, `NH₂`) passed `str.isdigit` and made the English number reader fail on the whole text (logged
and skipped, so that text lost its English numbers); it now takes decimal digits only, and the never-raises
properties also require that no recognizer logs a failure. Eleven of the 13 English number misses left are
numbers the spec's NumberModel, run alone, reads inside what lastline reads as one phone, amount or date
(`+1-222-2222/2222`, `$10000 in 3 years`, `hundred thousand dollars`, `423 0000`, a 15-digit run) or the
spec's `10G`: lastline gives a span to one entity, and the slot guard relies on it. Read by the number
recognizer alone (`find_entities(types={"number"}, rivals=False)`), the same file scores 125 of 128; that is
not the figure this table reports or the target is judged on. Chinese, written from the constructions the
issue names (`本月最后一天`) and a probe of common phrasings of our own, none of them in the development files
(their figures do not move; half b does not move either): the parts of a month (`上旬`/`中旬`/`下旬` as its
ten-day thirds, `月初` the first, `月底`/`月末` the last; `月` alone is this month, `每月底` is none,
`三月初一` stays a lunar day), a month's or a year's first and last day (`本月最后一天`, `今年最后一天`), a
half counted in the unit below it (`半年前` six months, `两个半月后` two months and 15 days, `一个半小时`),
the named lunar months (`腊月`, `冬月`), a clock time told by what it lacks (`差五分十点` 9:55,
`下午差一刻三点` 14:45) and a day that comes back (`每月5日前支付` is `R/XXXX-XX-05`, not this month's 5th).
On LCQMC dev and BQ dev the guard lets through and refuses the same pairs as before (some refusals now name a
date where they named an amount: `每月10号`, `八个半月`).

Tenth round, English numbers and phones, from two of the ninth round's "conventions" read again and from
what QQP showed they cost. A lone `one` is the number 1 where it counts (`one last time`, `one of the best`,
`at least one reviewer`) and a pronoun after a determiner (`that one`, `the only one`), after an auxiliary
whose subject it is (`how can one learn`, `how does one apply`) and before a modal, `another` or `'s`; the
slot guard leaves it out as it did (it counts as much as the article: `buy one ticket` and `buy a ticket`
agree, `two tickets` still differ). Seven digits split by a space alone are two numbers, not a local phone
number (`ban of 500 1000 notes`, `Thunderbird 350 2014`, the spec's `423 0000`; `223-4567` and a cued `Tel:
555 0188` stay phones), and an unbroken run of more than twelve digits is an account, card or barcode
number unless it starts `00` or is a Chinese mobile with its country code (`8613812345678`, now `+86…` as
its spaced forms were); thousands spaced out (`2 901 019 adults`) had been read as a phone too. `10G` stays
ten: the 8 QQP questions with digits before a `G` are all model or form names (`HTC 620G`, `80G`, `15G`).
English numbers 115 → 119 of 128 (89.8% → 93.0%); every other figure, the spurious entities on negatives
and the Chinese half b unchanged. Guard verdicts, before and after, on every pair of QQP val, LCQMC dev and
BQ dev: no pair newly let through or refused (one QQP val and one LCQMC refusal now name an amount where
they named an identifier: a 13-digit barcode); on QQP train, 5 duplicates about the ban of the 500 and 1000
rupee notes are no longer refused and nothing else moved. The misses left in English numbers are the
spec's numbers inside one phone, amount or duration (`+1-222-2222/2222`, `$10000 in 3 years`, `hundred
thousand dollars`), `10G` and `100 millionths` (read as 100 there, 0.0001 here)."""


_CONTRACT_PROSE = """Hand-written contract snippets (`tests/data/contracts/`, every expected field asserted per case in
`tests/test_rules_contracts.py`). The packs were adjusted while `zh.yaml` / `en.yaml` were written;
the `holdout_*.yaml` cases are written before they are run and never used to change a pack (round 2:
its misses are amount labels the pack does not know — `订单总额`, `签约合同价`, `服务费` — a `合同签订日`
label, and an English `between A ("Customer") and B ("Service Provider")` whose roles come in the
reverse of the usual order)."""


def speed_lines(against: str | None) -> str:
    """The throughput paragraph of the section (and the same-process ratio to ``against``)."""
    t = throughput()
    timed = "; ".join(
        f"`{pack}` on a {r['chars']:.0f}-character contract (`tests/data/contracts/{name}`): "
        f"**{r['docs_per_cpu_s']:.0f} docs per CPU-second** ({r['docs_per_s']:.0f} docs/s wall)"
        for (pack, name), r in zip(THROUGHPUT_CONTRACTS, t["packs"].values(), strict=True))
    out = ["", f"Throughput (one thread, `time.process_time`): {timed}; "
           f"`find_entities` on a short question: **{t['question_cpu_ms']:.3f} ms CPU** "
           f"({t['question_ms']:.3f} ms wall); load average {os.getloadavg()[0]:.1f}."]
    if against:
        ab = throughput_against(against)
        ratios = "; ".join(f"`{pack}` {r['before']:.0f} → {r['after']:.0f} docs per CPU-second, **{r['ratio']:.2f}×**"
                           for pack, r in ab.items())
        out += ["", f"Against `{against}` in the same process (`--against {against}`, medians of six "
                f"interleaved one-second rounds): {ratios}; load average {os.getloadavg()[0]:.1f}."]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--folders", nargs="+", default=list(FOLDERS), choices=FOLDERS)
    parser.add_argument("--misses", type=int, default=0, help="print up to N misses per construction")
    parser.add_argument("--examples", type=int, default=3, help="examples per construction in the miss table")
    parser.add_argument("--no-libraries", action="store_true",
                        help="skip cn2an / dateparser / phonenumbers and Recognizers-Text")
    parser.add_argument("--write", action="store_true", help="replace the Rules section of docs/benchmarks.md")
    parser.add_argument("--half", choices=("all", "a", "b"), default="all",
                        help="score only the even (a) or odd (b) cases of each file")
    parser.add_argument("--against", metavar="REV",
                        help="also time the contract packs at git revision REV, interleaved with today's")
    parser.add_argument("--speed-only", action="store_true",
                        help="only time the contract packs (with --against: the same-process ratio too)")
    args = parser.parse_args(argv)
    if args.write and args.half != "all":
        parser.error("--write scores every case: drop --half")
    if args.misses and args.half == "b" and not OPENED_HALF_B.intersection(args.folders):
        parser.error("half b is held out in these folders: its misses are never listed (--misses reads half a)")
    if args.speed_only:
        if args.write:
            parser.error("--write needs the accuracy tables: drop --speed-only")
        print(speed_lines(args.against))
        return
    result = score(tuple(args.folders), libraries=not args.no_libraries, half=args.half)
    for line in miss_lines(result, args.misses):
        print(line, file=sys.stderr)
    with_rt = not args.no_libraries and recognizers_text.available()
    rt = score(tuple(args.folders), libraries=False, half=args.half, reader=recognizers_text.find) if with_rt else None
    out = [f"Machine: {machine()}; load average {os.getloadavg()[0]:.1f}.", "", _PROSE, "",
           "Per type:", "", type_table(result, rt), *(rt_lines() if with_rt else []), "",
           "Per file:", "", file_table(result), "",
           _TUNING_RECORD, "", "Value misses by construction (half a; half b only where it was opened: "
           f"{', '.join(sorted(OPENED_HALF_B))}):", "",
           miss_table(result, args.examples), ""]
    out += [_CONTRACT_PROSE, "", "| contract snippets | cases | fields correct | cases fully correct |",
            "|---|---|---|---|"]
    for holdout in (False, True):
        for lang, (good, total, full, cases) in sorted(contracts_accuracy(holdout).items()):
            name = f"{lang}, held out (never tuned on)" if holdout else f"{lang} (packs tuned on these)"
            out.append(f"| {name} | {cases} | {good}/{total} ({100 * good / total:.1f}%) | {full}/{cases} |")
    out.append(speed_lines(args.against))
    text = "\n".join(out)
    print(text)
    if args.write:
        from _common import write_section

        write_section("## Rules", "## Rules\n\n`python bench/rules_accuracy.py --write` (needs the `bench` extra "
                      "for dateparser, phonenumbers and Recognizers-Text).\n\n" + text + "\n")


if __name__ == "__main__":
    main()

