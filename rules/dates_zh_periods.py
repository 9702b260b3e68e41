"""Chinese periods named by words rather than dates: ``上半年``, ``九十年代``, ``2021年的第二周``,
``去年的前10天``, ``前1周``, ``之后5分钟``, ``每天`` (a ``set``), ``1995 - 1997年``, ``六月下旬``, ``月底``,
``本月最后一天``.

Values follow :mod:`lastline.rules.dates`: intervals ``start/end`` with the end exclusive.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterator
from datetime import date, datetime, timedelta

from ._date_types import DateHit, add_months
from ._zh_time_words import DAY_NO, MONTH_NO, REL_MONTH, REL_YEAR, UNIT_CODES, zh_int
from .regexes import alternation

__all__ = ["GATES", "find_periods"]

YEAR_RANGE_RE = re.compile(
    r"(?:(?<!\d)|(?P<from>从|自))(?P<a>(?:1[5-9]|20)\d{2})\s*(?:-|—|~|～|到|至)\s*(?P<b>(?:1[5-9]|20)\d{2})"
    r"(?:\s*年|(?(from)(?![\d年])|(?!)))"
)
_HALF_RE = re.compile(
    rf"(?:(?P<ry>{alternation(REL_YEAR)})|(?P<y>\d{{4}})\s*年)?(?:的)?(?:(?P<prev>上个|上個)|(?P<h>上|下|前|后|後))半(?P<u>年|月|个月)"
)


def _year_of(m: re.Match[str], ref: datetime) -> int:
    """The year a pattern names, relative (``ry``: 今年, 去年) or written (``y``); the reference's if neither."""
    return ref.year + REL_YEAR[m.group("ry")] if m.group("ry") else int(m.group("y") or ref.year)


def _half(m: re.Match[str], ref: datetime) -> DateHit | None:
    """``上半年`` → Jan 1 – Jul 1; ``下半月`` → 16th – 1st of next month (intervals, end exclusive)."""
    today = ref.date()
    year = _year_of(m, ref)
    first = m.group("h") in ("上", "前", None)
    if m.group("u") == "年":
        if m.group("prev"):
            first = today.month > 6
            year = year if first else year - 1
        start = date(year, 1 if first else 7, 1)
        end = date(year, 7, 1) if first else date(year + 1, 1, 1)
    else:
        month_start = today.replace(day=1)
        start = month_start if first else month_start.replace(day=16)
        end = month_start.replace(day=16) if first else add_months(month_start, 1)
    return DateHit("daterange", m.start(), m.end(), f"{start.isoformat()}/{end.isoformat()}")


SET_RE = re.compile(r"每(?:一)?(?:个|個)?(?P<u>天|日|周|週|星期|礼拜|月|年|小时|小時)(?![一二三四五六日天1-7])")
#: ``每周一`` → ``R/XXXX-WXX-1`` (every Monday, in the Recognizers-Text timex form).
WEEKDAY_SET_RE = re.compile(r"每(?:个|個)?(?:周|週|星期|礼拜|禮拜)(?P<wd>[一二三四五六日天1-7])")
_WEEKDAY_NO = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "日": 7, "天": 7}
_SET_CODE = {"天": "P1D", "日": "P1D", "周": "P1W", "週": "P1W", "星期": "P1W", "礼拜": "P1W", "月": "P1M",
             "年": "P1Y", "小时": "PT1H", "小時": "PT1H"}
WINDOW_RE = re.compile(
    r"(?<![最的之以])(?:(?P<dir>前|后|後|过去|過去|未来|未來|最近|近|上(?=\s*[\d两兩二三四五六七八九十]))\s*的?\s*(?P<n>\d+|[一二两兩三四五六七八九十]+)\s*(?:个|個)?\s*"
    r"(?P<u>天|周|週|星期|个月|個月|月|年|小时|小時|分钟|分鐘)"
    r"|(?P<dir2>之后|之後|还剩|還剩)\s*(?P<n2>\d+|[一二两兩三四五六七八九十]+)\s*(?:个|個)?\s*(?P<u2>小时|小時|分钟|分鐘))"
    r"(?![前后後又\d一二三四五六七八九十])"
)


def _window(m: re.Match[str], ref: datetime) -> DateHit | None:
    """``前1周`` → the week before now; ``后1年`` → the year from tomorrow; ``之后5分钟`` → now … now+5min."""
    n = zh_int(m.group("n") or m.group("n2"))
    if n is None or n <= 0:
        return None
    u = m.group("u") or m.group("u2")
    unit = UNIT_CODES.get(u, "M")
    back = m.group("dir") in ("前", "过去", "過去", "最近", "近", "上")
    if unit in ("H", "MIN"):
        delta = timedelta(hours=n) if unit == "H" else timedelta(minutes=n)
        a, b = (ref - delta, ref) if back else (ref, ref + delta)
        return DateHit("daterange", m.start(), m.end(),
                       f"{a.replace(microsecond=0).isoformat()}/{b.replace(microsecond=0).isoformat()}")
    start = ref.date() if back else ref.date() + timedelta(days=1)
    months = {"M": n, "Y": 12 * n}.get(unit)
    if months is not None:
        other = add_months(start, -months if back else months)
    else:
        other = start + timedelta(days=(7 if unit == "W" else 1) * n * (-1 if back else 1))
    a2, b2 = (other, start) if back else (start, other)
    return DateHit("daterange", m.start(), m.end(), f"{a2.isoformat()}/{b2.isoformat()}")


FIRST_N_RE = re.compile(
    rf"(?:(?P<ry>{alternation(REL_YEAR)})|(?P<y>\d{{4}})\s*年)的?前\s*(?P<n>\d+|[一二两兩三四五六七八九十]+)\s*(?:个|個)?\s*"
    r"(?P<u>天|周|週|个月|個月)"
)


def _year_and_count(m: re.Match[str], ref: datetime) -> tuple[int, int | None]:
    """The year (relative ``ry`` or written ``y``) and the count ``n`` of a period pattern."""
    return _year_of(m, ref), zh_int(m.group("n"))


def _first_n(m: re.Match[str], ref: datetime) -> DateHit | None:
    """``去年的前10天`` → Jan 1 … Jan 11 of last year (end exclusive)."""
    year, n = _year_and_count(m, ref)
    if n is None or n <= 0:
        return None
    start = date(year, 1, 1)
    unit = UNIT_CODES[m.group("u")]
    end = add_months(start, n) if unit == "M" else start + timedelta(days=n * (7 if unit == "W" else 1))
    return DateHit("daterange", m.start(), m.end(), f"{start.isoformat()}/{end.isoformat()}")



DECADE_RE = re.compile(
    r"(?:(?P<cur>本世纪|本世紀)|(?P<c>\d{1,2}|[一二三四五六七八九十]{1,3})\s*世[纪紀])?的?(?P<d>[一二三四五六七八九]十|[1-9]?0)年代"
)
#: ``今年第一季度`` / ``2015年第三季度`` → that quarter; ``第二季度`` alone → this year's.
QUARTER_RE = re.compile(
    rf"(?:(?P<ry>{alternation(REL_YEAR)})|(?P<y>\d{{4}})\s*年)?的?第(?P<n>[1-4一二三四])(?:个|個)?季度"
)
#: ``周末`` / ``下周末`` → Saturday … Monday (end exclusive) of that week.
WEEKEND_RE = re.compile(r"(?P<wk>上上|下下|上|下|本|这|這)?(?:个|個)?(?:周末|週末)")
_WEEK_SHIFT = {"上上": -2, "下下": 2, "上": -1, "下": 1, "本": 0, "这": 0, "這": 0}
NTH_RE = re.compile(
    rf"(?:(?P<ry>{alternation(REL_YEAR)})|(?P<y>\d{{4}})\s*年)的?第(?P<n>[0-9一二三四五六七八九十]+)(?:个|個)?"
    r"(?P<u>周|週|星期|月)"
)


#: ``十月的第一周`` → the week that starts on October's first Monday; ``8月的最后一个星期一`` → that Monday.
MONTH_WEEK_RE = re.compile(
    rf"(?:(?P<y>\d{{4}})\s*年)?(?P<m>{MONTH_NO})\s*月份?的?"
    r"(?:第(?P<n>[1-5一二三四五])(?:个|個)?(?:周|週|星期|礼拜)(?![一二三四五六日天1-7])"
    r"|(?P<last>最后|最後)一?(?:个|個)?(?:周|週|星期|礼拜)(?P<wd>[一二三四五六日天1-7]))"
)
_WD_NO = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}


def _month_week(m: re.Match[str], ref: datetime) -> DateHit | None:
    month = zh_int(m.group("m"))
    if month is None or not 1 <= month <= 12:
        return None
    year = int(m.group("y") or ref.year)
    first = date(year, month, 1)
    if m.group("n"):
        n = zh_int(m.group("n")) or 1
        monday = first + timedelta(days=(-first.weekday()) % 7, weeks=n - 1)
        if monday.month != month:
            return None
        end = monday + timedelta(days=7)
        return DateHit("daterange", m.start(), m.end(), f"{monday.isoformat()}/{end.isoformat()}")
    wd = m.group("wd")
    target = int(wd) - 1 if wd.isdigit() else _WD_NO[wd]
    last = add_months(first, 1) - timedelta(days=1)
    day = last - timedelta(days=(last.weekday() - target) % 7)
    return DateHit("date", m.start(), m.end(), day.isoformat())


def _decade(m: re.Match[str], ref: datetime) -> DateHit | None:
    """``九十年代`` → 1990s; ``19世纪70年代`` → 1870s; ``本世纪20年代`` → the 2020s of this century."""
    n = zh_int(m.group("d"))
    if n is None:
        return None
    if m.group("cur"):
        century = ref.year // 100 * 100
    elif m.group("c"):
        c = zh_int(m.group("c"))
        if c is None or c < 1:
            return None
        century = (c - 1) * 100
    else:
        century = 1900
    start = century + n
    return DateHit("daterange", m.start(), m.end(), f"{start}/{start + 10}")


def _nth(m: re.Match[str], ref: datetime) -> DateHit | None:
    year, n = _year_and_count(m, ref)
    if n is None or n < 1:
        return None
    if m.group("u") == "月":
        return DateHit("date", m.start(), m.end(), f"{year:04d}-{n:02d}") if n <= 12 else None
    try:
        date.fromisocalendar(year, n, 1)
    except ValueError:
        return None
    return DateHit("date", m.start(), m.end(), f"{year:04d}-W{n:02d}")



#: The parts of a month: its ten-day thirds (上旬 1st–10th, 中旬 11th–20th, 下旬 21st to its end), 月初 as
#: its first third and 月底 / 月末 as its last; and its first or last day. The month is named (``六月``,
#: ``2024年6月``, ``下个月``) or, with ``月`` alone, the current one (``月底前``); ``三月初一`` is a lunar day,
#: not a part.
_EDGE_DAY = r"(?P<fl>最后|最後|第一)一?(?:个|個)?(?:天|日)(?![\d一二三四五六七八九十])"  # 最后一天, 第一天
MONTH_PART_RE = re.compile(
    rf"(?<![每月])(?:(?:(?P<ry>{alternation(REL_YEAR)})|(?P<y>\d{{4}})\s*年)的?)?"
    rf"(?:(?P<rm>{alternation(REL_MONTH)})|(?P<m>{MONTH_NO})\s*月份?|(?P<bare>月))"
    rf"的?(?:(?P<xun>上旬|中旬|下旬)|(?P<edge>初|底|末)(?![一二三四五六七八九十])|{_EDGE_DAY})"
)
#: ``今年最后一天``, ``明年的第一天``: the year's last or first day.
YEAR_DAY_RE = re.compile(rf"(?:(?P<ry>{alternation(REL_YEAR)})|(?P<y>\d{{4}})\s*年)的?{_EDGE_DAY}")


#: A day that comes back: ``每月5日`` / ``每个月的1号`` → ``R/XXXX-XX-05``, ``每年3月15日`` → ``R/XXXX-03-15`` (the
#: Recognizers-Text timex of a day in any month or year, as ``每周一`` is ``R/XXXX-WXX-1``). Read as one date,
#: ``每月5日前支付`` would name this month's 5th only.
RECURRING_DAY_RE = re.compile(
    rf"每(?:一)?(?:个|個)?(?:月(?:份)?的?(?P<d>{DAY_NO})\s*[日号號]"
    rf"|年的?(?P<m>{MONTH_NO})\s*月份?(?P<d2>{DAY_NO})\s*[日号號])"
)


def _recurring_day(m: re.Match[str]) -> DateHit | None:
    day = zh_int(m.group("d") or m.group("d2"))
    month = zh_int(m.group("m")) if m.group("m") else None
    if day is None or not 1 <= day <= 31 or (month is not None and not 1 <= month <= 12):
        return None
    if month is not None and day > calendar.monthrange(2000, month)[1]:
        return None  # a day no such month has (2000 is a leap year: 2月29日 comes back)
    return DateHit("set", m.start(), m.end(), f"R/XXXX-{f'{month:02d}' if month else 'XX'}-{day:02d}")


def _month_part(m: re.Match[str], ref: datetime) -> DateHit | None:
    today = ref.date()
    year = _year_of(m, ref)
    if m.group("rm"):
        first = add_months(today.replace(day=1), REL_MONTH[m.group("rm")])
    elif m.group("m"):
        month = zh_int(m.group("m"))
        if month is None or not 1 <= month <= 12:
            return None
        first = date(year, month, 1)
    else:
        first = today.replace(day=1)
    after = add_months(first, 1)
    if m.group("fl"):
        day = first if m.group("fl") == "第一" else after - timedelta(days=1)
        return DateHit("date", m.start(), m.end(), day.isoformat())
    part = m.group("xun") or {"初": "上旬", "底": "下旬", "末": "下旬"}[m.group("edge")]
    start, end = {"上旬": (first, first.replace(day=11)), "中旬": (first.replace(day=11), first.replace(day=21)),
                  "下旬": (first.replace(day=21), after)}[part]
    return DateHit("daterange", m.start(), m.end(), f"{start.isoformat()}/{end.isoformat()}")


def _year_day(m: re.Match[str], ref: datetime) -> DateHit:
    year = _year_of(m, ref)
    day = date(year, 1, 1) if m.group("fl") == "第一" else date(year, 12, 31)
    return DateHit("date", m.start(), m.end(), day.isoformat())


_LAST_N_RE = re.compile(
    rf"(?:(?P<ry>{alternation(REL_YEAR)})|(?P<y>\d{{4}})\s*年)的?(?:最后|最後)\s*(?P<n>\d+|[一二两兩三四五六七八九十]+)\s*"
    r"(?:个|個)?\s*(?P<u>周|週|星期)"
)


def _last_n_weeks(m: re.Match[str], ref: datetime) -> DateHit | None:
    """``今年的最後 3 週`` → the three weeks before the Monday that starts the year's last week."""
    year, n = _year_and_count(m, ref)
    if n is None or n <= 0:
        return None
    last = date(year, 12, 31)
    end = last - timedelta(days=last.weekday())
    return DateHit("daterange", m.start(), m.end(), f"{(end - timedelta(weeks=n)).isoformat()}/{end.isoformat()}")


#: A character every match of the pattern contains: a pattern runs only on text that has one of
#: its characters (a set lookup), not tried at every position of every text.
GATES: dict[re.Pattern[str], str] = {
    FIRST_N_RE: "前", _LAST_N_RE: "最", SET_RE: "每", WEEKDAY_SET_RE: "每",
    WINDOW_RE: "天周週星月年时時分", YEAR_RANGE_RE: "0123456789", _HALF_RE: "半", QUARTER_RE: "季",
    WEEKEND_RE: "末", DECADE_RE: "代", MONTH_WEEK_RE: "月", NTH_RE: "第", MONTH_PART_RE: "旬初底末最第",
    YEAR_DAY_RE: "最第", RECURRING_DAY_RE: "每",
}


def _finditer(rx: re.Pattern[str], folded: str) -> Iterator[re.Match[str]]:
    if any(ch in folded for ch in GATES[rx]):
        yield from rx.finditer(folded)


def find_periods(folded: str, ref: datetime) -> Iterator[DateHit]:
    """Every worded period in ``folded``."""
    for m in _finditer(FIRST_N_RE, folded):
        hit = _first_n(m, ref)
        if hit:
            yield hit
    for m in _finditer(_LAST_N_RE, folded):
        hit = _last_n_weeks(m, ref)
        if hit:
            yield hit
    for m in _finditer(SET_RE, folded):
        yield DateHit("set", m.start(), m.end(), "R/" + _SET_CODE[m.group("u")])
    for m in _finditer(WEEKDAY_SET_RE, folded):
        wd = m.group("wd")
        yield DateHit("set", m.start(), m.end(), f"R/XXXX-WXX-{_WEEKDAY_NO.get(wd, wd)}")
    for m in _finditer(WINDOW_RE, folded):
        hit = _window(m, ref)
        if hit:
            yield hit
    for m in _finditer(YEAR_RANGE_RE, folded):
        yield DateHit("daterange", m.start(), m.end(), f"{m.group('a')}/{m.group('b')}")
    for m in _finditer(_HALF_RE, folded):
        hit = _half(m, ref)
        if hit:
            yield hit
    for m in _finditer(QUARTER_RE, folded):
        year = _year_of(m, ref)
        q = zh_int(m.group("n")) or 1
        start, end = date(year, 3 * q - 2, 1), add_months(date(year, 3 * q - 2, 1), 3)
        yield DateHit("daterange", m.start(), m.end(), f"{start.isoformat()}/{end.isoformat()}")
    for m in _finditer(WEEKEND_RE, folded):
        today = ref.date()
        shift = _WEEK_SHIFT.get(m.group("wk") or "", 0)
        saturday = today - timedelta(days=today.weekday()) + timedelta(days=5, weeks=shift)
        monday = saturday + timedelta(days=2)
        yield DateHit("daterange", m.start(), m.end(), f"{saturday.isoformat()}/{monday.isoformat()}")
    for m in _finditer(DECADE_RE, folded):
        hit = _decade(m, ref)
        if hit:
            yield hit
    for m in _finditer(MONTH_WEEK_RE, folded):
        hit = _month_week(m, ref)
        if hit:
            yield hit
    for m in _finditer(NTH_RE, folded):
        hit = _nth(m, ref)
        if hit:
            yield hit
    for m in _finditer(MONTH_PART_RE, folded):
        hit = _month_part(m, ref)
        if hit:
            yield hit
    for m in _finditer(YEAR_DAY_RE, folded):
        yield _year_day(m, ref)
    for m in _finditer(RECURRING_DAY_RE, folded):
        hit = _recurring_day(m)
        if hit:
            yield hit
