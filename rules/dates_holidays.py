"""Holidays by name → the date they fall on: ``元旦``, ``今年圣诞节``, ``母亲节``, ``christmas 2024``,
``thanksgiving``, ``easter``.

Three kinds of rule: a fixed Gregorian day (元旦 01-01, Christmas 12-25), the n-th weekday of a
month (母亲节 / Mother's Day: second Sunday of May; Thanksgiving: fourth Thursday of November) and
Easter (the Gregorian computus). Lunar festivals (春节, 中秋, 端午 …) keep their *lunar* month and
day, as the rest of the Chinese grammar does for ``正月初一`` and as the Recognizers-Text gold
writes them — they are not converted to the Gregorian calendar. Without a year the next
occurrence on or after the reference day is meant.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date, datetime, timedelta

from ._date_types import DateHit
from ._zh_time_words import REL_YEAR
from .regexes import alternation

__all__ = ["find_holidays"]

#: name → (month, day) fixed each year (lunar festivals: their lunar month and day).
_FIXED_ZH = {
    "元旦节": (1, 1), "元旦": (1, 1), "新年": (1, 1), "情人节": (2, 14), "妇女节": (3, 8), "三八妇女节": (3, 8),
    "女生节": (3, 7), "植树节": (3, 12), "愚人节": (4, 1), "清明节": (4, 4), "清明": (4, 4), "劳动节": (5, 1),
    "五一劳动节": (5, 1), "五一节": (5, 1), "青年节": (5, 4), "五四青年节": (5, 4), "儿童节": (6, 1),
    "六一儿童节": (6, 1), "建党节": (7, 1), "建军节": (8, 1), "八一建军节": (8, 1), "教师节": (9, 10),
    "国庆节": (10, 1), "国庆": (10, 1), "万圣节": (10, 31), "光棍节": (11, 11), "双十一": (11, 11),
    "双十二": (12, 12), "平安夜": (12, 24), "圣诞节": (12, 25), "圣诞": (12, 25),
    # lunar month / day, unconverted
    "春节": (1, 1), "元宵节": (1, 15), "元宵": (1, 15), "端午节": (5, 5), "端午": (5, 5), "七夕节": (7, 7),
    "七夕": (7, 7), "中元节": (7, 15), "中秋节": (8, 15), "中秋": (8, 15), "重阳节": (9, 9), "重阳": (9, 9),
    "腊八节": (12, 8), "腊八": (12, 8), "除夕": (12, 31),
}
_FIXED_EN = {
    "new year's day": (1, 1), "new years day": (1, 1), "new year": (1, 1), "valentine's day": (2, 14),
    "valentines day": (2, 14), "st patrick's day": (3, 17), "april fools day": (4, 1),
    "april fool's day": (4, 1), "independence day": (7, 4), "halloween": (10, 31), "veterans day": (11, 11),
    "christmas eve": (12, 24), "christmas day": (12, 25), "christmas": (12, 25), "xmas": (12, 25),
    "new year's eve": (12, 31), "new years eve": (12, 31), "st. patrick's day": (3, 17),
    "saint patrick's day": (3, 17), "boxing day": (12, 26), "may day": (5, 1), "international workers' day": (5, 1),
    "international workers day": (5, 1), "workers' day": (5, 1), "earth day": (4, 22), "groundhog day": (2, 2),
    "juneteenth": (6, 19), "flag day": (6, 14), "all saints' day": (11, 1), "all saints day": (11, 1),
}
#: name → (month, weekday 0=Monday, n-th; -1 = last).
_NTH_WEEKDAY = {
    "母亲节": (5, 6, 2), "父亲节": (6, 6, 3), "感恩节": (11, 3, 4), "mother's day": (5, 6, 2),
    "mothers day": (5, 6, 2), "father's day": (6, 6, 3), "fathers day": (6, 6, 3), "thanksgiving day": (11, 3, 4),
    "thanksgiving": (11, 3, 4), "memorial day": (5, 0, -1), "labor day": (9, 0, 1), "labour day": (9, 0, 1),
    "martin luther king day": (1, 0, 3), "mlk day": (1, 0, 3), "columbus day": (10, 0, 2),
    "presidents' day": (2, 0, 3), "presidents day": (2, 0, 3), "president's day": (2, 0, 3),
    "washington's birthday": (2, 0, 3),
}
#: name → (the holiday it is counted from, days after it): Good Friday is two days before Easter.
_RELATIVE = {"good friday": ("easter", -2), "easter monday": ("easter", 1), "palm sunday": ("easter", -7),
             "ash wednesday": ("easter", -46), "black friday": ("thanksgiving", 1),
             "cyber monday": ("thanksgiving", 4)}
_EASTER = ("easter sunday", "easter", "复活节")

_ZH_NAMES = alternation([*_FIXED_ZH, *(k for k in _NTH_WEEKDAY if not k.isascii()), "复活节"])
_EN_NAMES = alternation([*_FIXED_EN, *(k for k in _NTH_WEEKDAY if k.isascii()), *_RELATIVE, "easter sunday",
                         "easter"])
HOLIDAY_ZH_RE = re.compile(
    rf"(?:(?P<ry>{alternation(REL_YEAR)})|(?P<y>\d{{4}})\s*年)?(?:的)?(?P<name>{_ZH_NAMES})"
)
HOLIDAY_EN_RE = re.compile(
    rf"\b(?:(?P<rel>this|next|last)\s+(?P<ys>year'?s\s+)?)?(?P<name>{_EN_NAMES})\b"
    r"(?:\s+(?:of\s+)?(?:(?P<y>\d{4})\b|(?P<rel2>this|next|last)\s+year\b))?",
    re.IGNORECASE,
)
_GATE_ZH = re.compile(r"[\u4e00-\u9fff]")


def _easter(year: int) -> date:
    """Gregorian Easter Sunday (the anonymous Gregorian algorithm)."""
    a, b, c = year % 19, year // 100, year % 100
    d, e = b // 4, b % 4
    g = (8 * b + 13) // 25
    h = (19 * a + b - d - g + 15) % 30
    i, k = c // 4, c % 4
    weekday_offset = (32 + 2 * e + 2 * i - h - k) % 7
    m = (a + 11 * h + 22 * weekday_offset) // 451
    month, day = divmod(h + weekday_offset - 7 * m + 114, 31)
    return date(year, month, day + 1)


def _nth_weekday(year: int, month: int, weekday: int, nth: int) -> date:
    if nth > 0:
        first = date(year, month, 1)
        return first + timedelta(days=(weekday - first.weekday()) % 7 + 7 * (nth - 1))
    last = date(year + month // 12, month % 12 + 1, 1) - timedelta(days=1)
    return last - timedelta(days=(last.weekday() - weekday) % 7)


def _on(name: str, year: int) -> date | None:
    key = name.lower().replace("’", "'")
    if key in _RELATIVE:
        base, days = _RELATIVE[key]
        day = _on(base, year)
        return day + timedelta(days=days) if day else None
    if key in _EASTER:
        return _easter(year)
    if key in _NTH_WEEKDAY:
        return _nth_weekday(year, *_NTH_WEEKDAY[key])
    md = _FIXED_ZH.get(key) or _FIXED_EN.get(key.replace("’", "'"))
    if md is None:
        return None
    try:
        return date(year, *md)
    except ValueError:
        return None


def _hit(m: re.Match[str], name: str, year: int | None, ref: datetime) -> DateHit | None:
    today = ref.date()
    if year is None:  # the next occurrence
        day = _on(name, today.year)
        if day is not None and day < today:
            day = _on(name, today.year + 1)
    else:
        day = _on(name, year)
    return DateHit("date", m.start(), m.end(), day.isoformat()) if day is not None else None


_REL_EN = {"this": 0, "next": 1, "last": -1}


def find_holidays(folded: str, ref: datetime) -> Iterator[DateHit]:
    """Every named holiday in ``folded``, with an optional year (``今年``, ``2024年``, ``2024``, ``next year's``)."""
    if _GATE_ZH.search(folded):
        for m in HOLIDAY_ZH_RE.finditer(folded):
            year = ref.year + REL_YEAR[m.group("ry")] if m.group("ry") else int(m.group("y")) if m.group("y") else None
            hit = _hit(m, m.group("name"), year, ref)
            if hit is not None:
                yield hit
    if re.search(r"[A-Za-z]", folded):
        for m in HOLIDAY_EN_RE.finditer(folded):
            rel = m.group("rel") or m.group("rel2")
            year = int(m.group("y")) if m.group("y") else ref.year + _REL_EN[rel.lower()] if rel else None
            if m.group("rel") and m.group("rel").lower() == "last" and not m.group("ys") and not m.group("y"):
                last = _on(m.group("name"), ref.year)  # last easter: the most recent one, this year's once past
                year = ref.year if last is not None and last < ref.date() else ref.year - 1
            hit = _hit(m, m.group("name"), year, ref)
            if hit is not None:
                yield hit
