"""Dates, times, date ranges and durations → ISO 8601, against a reference time for relative forms.

Values: ``2024-06-15`` (date; ``2024-06`` / ``2024`` / ``2024-W02`` when only that is known),
``15:00:00`` (time), ``2024-06-19T15:00:00`` (datetime), ``P3Y`` / ``PT1H30M`` (duration) and
``start/end`` intervals with ``..`` for an open end (daterange). Chinese forms live in
``dates_zh`` and ``dates_zh_periods``, English ones in ``dates_en``, holidays of both in
``dates_holidays``, their shared value type in
``_date_types``; this module runs them and joins their hits into ranges.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date, datetime, timedelta

from lastline.text import HAN_CHARS

from ._date_types import DateHit, add_durations, add_months
from ._types import Entity
from .dates_en import MONTH_ALT, POD_HOURS, find_en, safe_date
from .dates_en_periods import find_en_periods
from .dates_holidays import HOLIDAY_EN_RE, find_holidays
from .dates_zh import find_zh
from .dates_zh_periods import find_periods

__all__ = ["compose_day_and_time", "find_dates", "join_ranges"]


_JOIN = re.compile(r"\s*(?:到|至|~|～|-|—|－|–|与|和|to|until|till|through|thru)\s*")
#: ``between A and B``: "and" joins two points only after "between" (else it lists them).
_AND = re.compile(r"\s+and\s+", re.IGNORECASE)
_BETWEEN_PREFIX = re.compile(r"between\s+(?:the\s+)?$", re.IGNORECASE)
_NOW = re.compile(r"(?:right\s+)?now|(?:现在|此刻|目前)(?:\s*(?:开始|起))?", re.IGNORECASE)
_FROM = re.compile(r"(?:从|自|從|from|between)\s*$")
_BETWEEN = re.compile(r"\s*(?:之间|之間|间|間)")
_AFTER = re.compile(
    r"(?:\s*(?:或|及|以及|或者)?\s*(?:之后|以后|以後|之後|以来|起|开始|開始|后|後)|\s+(?:and|or)\s+later"
    r"|\s+onwards?)"
)
_BEFORE = re.compile(r"(?:\s*(?:或|及|以及|或者)?\s*(?:之前|以前)|\s+(?:and|or)\s+earlier)")
#: ``around`` / ``about`` between the word and its point leaves the point as it is (after around 3:30pm).
_ABOUT = r"(?i:\s+(?:around|about|approximately|roughly|circa))?"
_BEFORE_PREFIX = re.compile(r"(?:截止到|截至|截止|直到|(?i:before|prior\s+to|until|till|earlier\s+than"
                            r"|no\s+later\s+than|as\s+late\s+as))" + _ABOUT + r"\s*$")
#: The words that open a range before a clock time (``before 2.30pm``, ``no later than 5``); ``until`` and
#: ``till`` before a time mostly close a range whose start came earlier, so they stay with the range grammar.
_TIME_BEFORE = re.compile(r"(?i:before|prior\s+to|earlier\s+than|no\s+later\s+than|as\s+late\s+as)\b")
#: ``since August`` / ``starting on January 7th`` open at the start of the period; ``after Feb`` /
#: ``later than 2018`` at its end (after a day or a time: that day, that time, as the gold reads it).
_SINCE_PREFIX = re.compile(r"(?i:(?P<since>since|starting(?:\s+(?:on|from))?|beginning(?:\s+(?:on|from))?|as\s+of"
                           r"|as\s+early\s+as|no\s+earlier\s+than|not\s+before)|(?P<after>after|later\s+than))"
                           + _ABOUT + r"\s+(?:the\s+year\s+)?$")
_DATEISH = ("date", "datetime", "time")
#: What may join "after A" to "before B" into one range: nothing or 且 (a comma or 、 lists two open ranges).
_AND_GAP = re.compile(r"\s*(?:且|并且|而且)?\s*")
_HAN = re.compile(f"[{HAN_CHARS}]")
_ASCII_LETTER = re.compile("[A-Za-z]")


def join_ranges(folded: str, hits: list[DateHit], today: str | None = None) -> list[DateHit]:
    """``A 到 B`` → one ``daterange`` ``A/B``; ``A 之后`` → ``A/..``; ``A 之前`` → ``../A``."""
    hits = compose_day_and_time(folded, sorted(hits, key=lambda h: h.start))
    out: list[DateHit] = []
    i = 0
    while i < len(hits):
        h = hits[i]
        nxt = hits[i + 1] if i + 1 < len(hits) else None
        joined = _join_periods(folded, h, nxt) if nxt is not None else None
        if joined is None and nxt is not None:
            joined = _datetime_for(folded, h, nxt)
        if joined is not None:  # from 2017 q1 to 2018 q1, from 2007 to the end of 2008
            out.append(joined)
            i += 2
            continue
        if h.type == "daterange" and _DAY_SPAN.fullmatch(h.value):
            h = _open_period(folded, h)  # since late july, before the end of this year
        elif h.type == "date" and _PAST_OFFSET.search(folded, h.start, h.end):
            more = _MORE_THAN.search(folded, max(0, h.start - 12), h.start)
            if more is not None:  # more than 2 weeks ago: any day up to then
                h = DateHit("daterange", more.start(), h.end, f"../{h.value}")
        if nxt and h.type in _DATEISH and nxt.type in _DATEISH and (
                _JOIN.fullmatch(folded[h.end:nxt.start])
                or (_AND.fullmatch(folded[h.end:nxt.start])
                    and _BETWEEN_PREFIX.search(folded, max(0, h.start - 12), h.start))) \
                and not ({h.type, nxt.type} == {"time", "date"}
                         and not _DAY_VALUE.fullmatch(h.value if h.type == "date" else nxt.value)) \
                and len(folded[h.end:nxt.start].strip()) <= 7:  # "-", "到", "to", "until", "through"
            start = h.start
            m = _FROM.search(folded, max(0, h.start - 10), h.start)
            if m:
                start = m.start()
            end = nxt.end
            b = _BETWEEN.match(folded, end)
            if b:
                end = b.end()
            kind = "timerange" if h.type == nxt.type == "time" else "daterange"
            second = _inherit(folded[nxt.start:nxt.end], h.value, nxt.value)
            first = h.value if _RELATIVE_BEFORE.search(folded, max(0, h.start - 12), h.start) else \
                _year_from_end(folded[h.start:h.end], folded[nxt.start:nxt.end], h.value, second)
            second = _weekday_after(first, second, folded[nxt.start:nxt.end])
            second = _not_before(first, second, folded[nxt.start:nxt.end])
            if today and h.type == "time" and nxt.type == "datetime":
                first = f"{today}T{first}"  # 2:00-明天4:00: the start is today's
            if h.type == "datetime" and second[:10] == first[:10] and second < first \
                    and not _MERIDIEM.search(folded[nxt.start:nxt.end]) and int(second[11:13]) < 12:
                second = f"{second[:11]}{int(second[11:13]) + 12:02d}{second[13:]}"  # now (10:20) to eight: 20:00
            if {h.type, nxt.type} == {"datetime", "date"}:  # between now and june 3: from today
                first, second = (first[:10] if _NOW.fullmatch(folded[h.start:h.end]) else first,
                                 second[:10] if _NOW.fullmatch(folded[nxt.start:nxt.end]) else second)
            out.append(DateHit(kind, start, end, f"{first}/{second}"))
            i += 2
            continue
        around = _DAY_AROUND.search(folded, max(0, h.start - 20), h.start) \
            if h.type == "date" and _DAY_VALUE.fullmatch(h.value) else None
        if around is not None:  # the day before christmas, the day after june 3, the night before christmas
            day = date.fromisoformat(h.value) + timedelta(days=1 if around.group(2).lower() == "after" else -1)
            if around.group("pod"):
                start, end = POD_HOURS[around.group("pod").lower()]
                finish = f"{day}T23:59:59" if end == 24 else f"{day}T{end:02d}:00:00"
                out.append(DateHit("daterange", around.start(), h.end, f"{day}T{start:02d}:00:00/{finish}"))
            else:
                out.append(DateHit("date", around.start(), h.end, day.isoformat()))
            i += 1
            continue
        if h.type in ("date", "datetime", "time"):
            kind = "timerange" if h.type == "time" else "daterange"
            a = _AFTER.match(folded, h.end)
            b = _BEFORE.match(folded, h.end)
            p = _BEFORE_PREFIX.search(folded, max(0, h.start - 20), h.start)
            q = _SINCE_PREFIX.search(folded, max(0, h.start - 20), h.start)
            if p and q and q.start() < p.start():
                p = None  # "no earlier than", "not before": the longer prefix opens the range
            if a and nxt is not None and nxt.type in _DATEISH and _AND_GAP.fullmatch(folded[a.end():nxt.start]):
                closing = _BEFORE.match(folded, nxt.end)
                if closing:  # 2010年之后2018年之前: one range between the two points
                    out.append(DateHit("daterange", h.start, closing.end(), f"{h.value}/{nxt.value}"))
                    i += 2
                    continue
            if q and not a and not b and not p:
                since = _period_end(h.value) if q.group("after") else h.value
                h = DateHit(kind, q.start(), h.end, f"{since}/..")
            elif a and not _is_relative_offset(folded, h):
                since = h.value
                if re.fullmatch(r"\d{4}", since) and re.search(r"[之以][后後]", a.group()) \
                        and "或" not in a.group() and "及" not in a.group():
                    since = str(int(since) + 1)  # 07年以后: from 2008 on
                h = DateHit(kind, h.start, a.end(), f"{since}/..")
            elif b and not _is_relative_offset(folded, h):
                h = DateHit(kind, h.start, b.end(), f"../{h.value}")
            elif p and (h.type != "time" or _TIME_BEFORE.match(p.group())):  # before 2.30pm, as late as 7 am
                h = DateHit(kind, p.start(), h.end, f"../{h.value}")
            h = _open_range_on_its_day(folded, out, h, day_first=True)
        h = _open_range_on_its_day(folded, out, h, day_first=False)
        out.append(h)
        i += 1
    return out


_DAY_VALUE = re.compile(r"\d{4}-\d{2}-\d{2}")
#: Between a day and the open range of clock times after it (``today before 4pm``) …
_DAY_GAP = re.compile(r"\s*,?\s*")
#: … and between such a range and the day after it (``3 pm or later on Monday``).
_ON_DAY_GAP = re.compile(r"\s+on\s+|\s*,?\s*", re.IGNORECASE)


def _open_range_on_its_day(folded: str, out: list[DateHit], h: DateHit, *, day_first: bool) -> DateHit:
    """An open range of clock times beside a day is that day's range: ``today before 4pm`` ends today at
    16:00 and ``tuesday after 1pm`` starts tuesday at 13:00 (``day_first``: the day is ``out``'s last hit);
    ``3 pm or later on Monday``, ``before 5pm tomorrow`` (the day is ``h``). The pair's first hit is taken
    out of ``out``."""
    if not out:
        return h
    prev = out[-1]
    day, opened, gap = (prev, h, _DAY_GAP) if day_first else (h, prev, _ON_DAY_GAP)
    if day.type != "date" or not _DAY_VALUE.fullmatch(day.value) or opened.type != "timerange":
        return h
    start, _, end = opened.value.partition("/")
    if not ((start == ".." and _TIME_VALUE.fullmatch(end)) or (end == ".." and _TIME_VALUE.fullmatch(start))):
        return h
    if not gap.fullmatch(folded, prev.end, h.start):
        return h
    out.pop()
    value = f"../{day.value}T{end}" if start == ".." else f"{day.value}T{start}/.."
    return DateHit("daterange", prev.start, h.end, value)


#: A span of whole days (``2008-09-01/2009-01-01``): a period that can be one end of a longer range.
_DAY_SPAN = re.compile(r"(\d{4}-\d{2}-\d{2})/(\d{4}-\d{2}-\d{2})")
#: A period named by its end (``the end of 2008``): as a point it is the moment the period is over.
_END_OF = re.compile(r"(?:the\s+)?end\s+of\b", re.IGNORECASE)
_START_OF = re.compile(r"(?:the\s+)?(?:beginning|start)\s+of\b", re.IGNORECASE)
#: A reduced-precision date (a year, a month, an ISO week) that may stand at one end of a range of days.
_REDUCED = re.compile(r"\d{4}(?:-\d{2}|-W\d{2})?")
_DAY_AROUND = re.compile(r"\b(?:the\s+)?(?:day|(?P<pod>morning|afternoon|evening|night))\s+(before|after)\s+$",
                         re.IGNORECASE)
_MORE_THAN = re.compile(r"(?i:more\s+than|over)\s+$")
_PAST_OFFSET = re.compile(r"(?i:\bago|before\s+(?:today|now))$")


def _first_day(value: str) -> str:
    """The first day of a year, month or ISO week (``2007`` → ``2007-01-01``); a day stays itself."""
    if re.fullmatch(r"\d{4}", value):
        return f"{value}-01-01"
    if re.fullmatch(r"\d{4}-\d{2}", value):
        return f"{value}-01"
    w = re.fullmatch(r"(\d{4})-W(\d{2})", value)
    return date.fromisocalendar(int(w.group(1)), int(w.group(2)), 1).isoformat() if w else value


def _period_point(folded: str, h: DateHit) -> str | None:
    """Where a period stands as one end of a range: its first day (``2017 q1`` → 2017-01-01), or its
    end when it is named by its end (``the end of 2008`` → 2009-01-01); a year, month or day alone
    (``2007``) its first day. None for anything else (times, open ranges, durations)."""
    span = _DAY_SPAN.fullmatch(h.value) if h.type == "daterange" else None
    if span:
        return span.group(2) if _END_OF.match(folded, h.start) else span.group(1)
    if h.type == "date" and (_REDUCED.fullmatch(h.value) or _DAY_VALUE.fullmatch(h.value)):
        return _first_day(h.value)
    return None


def _datetime_for(folded: str, h: DateHit, nxt: DateHit) -> DateHit | None:
    """``feb 14th from 9:30am for 7 hours``: a day's time and how long from it, as that range of datetimes."""
    if h.type != "datetime" or nxt.type != "duration" or not _FOR_GAP.fullmatch(folded[h.end:nxt.start]) \
            or not _CLOCK_DURATION.fullmatch(nxt.value) or "." in nxt.value:
        return None
    moved = _move(h.value, nxt.value, 1)
    return DateHit("daterange", h.start, nxt.end, f"{h.value}/{moved}") if moved else None


def _join_periods(folded: str, h: DateHit, nxt: DateHit) -> DateHit | None:
    """``from A to B`` / ``between A and B`` where one end is a period of days (a quarter, a part of a
    year): the range from A's point to B's point (:func:`_period_point`). Two plain days or months are
    the point grammar's (``join_ranges``)."""
    if "daterange" not in (h.type, nxt.type):
        return None
    gap = folded[h.end:nxt.start]
    between = _BETWEEN_PREFIX.search(folded, max(0, h.start - 12), h.start)
    opener = _FROM.search(folded, max(0, h.start - 10), h.start)
    if not ((_JOIN.fullmatch(gap) and opener) or (_AND.fullmatch(gap) and between)) or len(gap.strip()) > 7:
        return None
    first, last = _period_point(folded, h), _period_point(folded, nxt)
    if first is None or last is None or last <= first:
        return None
    return DateHit("daterange", opener.start() if opener else h.start, nxt.end, f"{first}/{last}")


#: ``before the end of this year`` / ``until next week`` close a range at the period's point;
#: ``since late july`` opens one at its start and ``after the end of 2019`` at its end; ``after the
#: beginning of March`` at its start (the beginning is the point meant: after March began).
def _open_period(folded: str, h: DateHit) -> DateHit:
    point = _period_point(folded, h)
    before = _BEFORE_PREFIX.search(folded, max(0, h.start - 20), h.start)
    since = _SINCE_PREFIX.search(folded, max(0, h.start - 20), h.start)
    if point is None or (before is None and since is None):
        return h
    if before is not None and (since is None or before.start() <= since.start()):
        return DateHit("daterange", before.start(), h.end, f"../{point}")
    assert since is not None
    start = h.value.split("/")[1] if since.group("after") and not _START_OF.match(folded, h.start) else point
    return DateHit("daterange", since.start(), h.end, f"{start}/..")
_TIME_VALUE = re.compile(r"(\d{2}):(\d{2}):(\d{2})")
#: What may stand between a day and its time: ``tomorrow at 8:45``, ``June 3, 10am``, ``3pm on Friday``.
_DAY_TIME_GAP = re.compile(r"\s*(?:,|at|on|by|around|about|@|-|from|between)?\s*", re.IGNORECASE)
_TIME_DAY_GAP = re.compile(r"\s*(?:,|on|of)?\s*", re.IGNORECASE)
_WEEKDAY = re.compile(r"(?:(?:this|next|last|coming)\s+)?"
                      r"(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?"
                      r"|周[一二三四五六日天]|星期[一二三四五六日天]", re.IGNORECASE)
_WEEKDAY_GAP = re.compile(r"\s*,?\s*\(?\s*")
_AT_HOUR = re.compile(r"\s+(?:at\s+(?:around\s+|about\s+)?|around\s+|about\s+)(1[0-2]|0?\d)(?![\d:]|\.\d)")
_POD_AFTER = re.compile(r"\s*in\s+the\s+(?P<pod>morning|afternoon|evening|night)\b", re.IGNORECASE)


def _day_window(h: DateHit) -> str | None:
    """The day of a part-of-day window (``tomorrow night`` → its date), else None."""
    m = re.fullmatch(r"(\d{4}-\d{2}-\d{2})T[\d:]{8}/(\d{4}-\d{2}-\d{2})T[\d:]{8}", h.value)
    return m.group(1) if m and m.group(1) == m.group(2) and h.type == "daterange" else None


_MERIDIEM = re.compile(r"\d\s*[ap]\.?m\b|\d[ap]\b|[上下]午|早|晚|凌晨|中午|夜", re.IGNORECASE)


def _at_part_of_day(time_value: str, window: str, time_text: str) -> str:
    """``2 in the afternoon`` → 14:00: an hour before noon moves into an afternoon/evening/night window
    (not ``tonight at 2am``: a time that says am/pm keeps it)."""
    if _MERIDIEM.search(time_text):
        return time_value
    t = _TIME_VALUE.fullmatch(time_value)
    start = int(window[11:13]) if len(window) > 13 else int(window[:2])
    if t and 0 < int(t.group(1)) < 12 and start >= 12:  # midnight (00) is no hour of the afternoon
        return f"{int(t.group(1)) + 12:02d}:{t.group(2)}:{t.group(3)}"
    return time_value


def _day_at_times(day: str, day_hit: DateHit, times: DateHit, folded: str, start: int, end: int) -> DateHit:
    """A day and a range of clock times as one range of datetimes (evening hours move past noon)."""
    a, b = times.value.split("/", 1)
    text = folded[times.start:times.end]
    if _day_window(day_hit):
        a, b = (x if x == ".." else _at_part_of_day(x, day_hit.value, text) for x in (a, b))
    a, b = (x if x == ".." else f"{day}T{x}" for x in (a, b))  # an open end stays open (after lunch tomorrow)
    return DateHit("daterange", start, end, f"{a}/{b}")


_OFFSET_GAP = re.compile(r"\s+(?P<dir>after|before|from)\s+", re.IGNORECASE)
#: ``2 weeks starting May 20``: an amount of time laid from a day on.
_STARTING_GAP = re.compile(r"\s+(?:starting|beginning|commencing)(?:\s+(?:on|from))?\s+", re.IGNORECASE)
#: ``the week of June 10``, ``the week starting on February 4``: the week (Monday to Monday) holding the day.
_WEEK_OF = re.compile(r"(?:(?:the\s+)?week\s+(?:of|(?:starting|commencing|beginning)(?:\s+(?:on|from))?)|w/c)\s+$",
                      re.IGNORECASE)
#: What may follow ``friday at 3`` for the 3 to be an hour: the end of a clause.
_HOUR_END = re.compile(r"\s*(?:$|[,.;:!?)])")
_FOR_GAP = re.compile(r"\s+for\s+", re.IGNORECASE)
_FROM_GAP = re.compile(r"\s+(?:from|starting(?:\s+at)?)\s+", re.IGNORECASE)
_DURATION = re.compile(r"P(?:(\d+)([DWMY])|T(\d+(?:\.\d+)?)([HM]))")
#: A bare hour after "from" (``for 2.5 hours from 9``): a clock time when an amount of hours comes before it.
_BARE_HOUR_FROM = re.compile(r"\s+from\s+(2[0-3]|1\d|0?\d)(?![\d:]|\.\d)", re.IGNORECASE)
#: A span of hours and minutes (``PT3H30M``): what a range of clock times may last.
_CLOCK_DURATION = re.compile(r"PT(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?")


def _offset_from_day(folded: str, h: DateHit, nxt: DateHit | None) -> DateHit | None:
    """``two months after next friday`` / ``3 days from tuesday`` → that day; ``30 minutes after 3pm`` →
    that time; ``from 2pm for 2 hours`` /
    ``for 2 hours from 2pm`` → the range of times it covers; ``for 2.5 hours from 9`` too, a bare hour
    after an amount of hours and "from" closing the clause being a clock time."""
    bare = _BARE_HOUR_FROM.match(folded, h.end) if h.type == "duration" else None
    if bare is not None and _HOUR_END.match(folded, bare.end()) and (nxt is None or nxt.start >= bare.end()):
        nxt = DateHit("time", bare.start(1), bare.end(), f"{int(bare.group(1)):02d}:00:00")
    if nxt is None:
        return None
    gap = folded[h.end:nxt.start]
    d = _DURATION.fullmatch(h.value) if h.type == "duration" else None
    off = _OFFSET_GAP.fullmatch(gap)
    if d and d.group(1) and _STARTING_GAP.fullmatch(gap) and nxt.type == "date" and _DAY_VALUE.fullmatch(nxt.value):
        first = date.fromisoformat(nxt.value)
        n, unit = int(d.group(1)), d.group(2)
        last = first + timedelta(days=n * (7 if unit == "W" else 1)) if unit in "DW" \
            else add_months(first, n * (12 if unit == "Y" else 1))
        return DateHit("daterange", h.start, nxt.end, f"{first.isoformat()}/{last.isoformat()}")
    if d and d.group(1) and off and nxt.type == "date" and _DAY_VALUE.fullmatch(nxt.value):
        n = int(d.group(1)) * (-1 if off.group("dir").lower() == "before" else 1)
        day = date.fromisoformat(nxt.value)
        unit = d.group(2)
        moved = day + timedelta(days=n * (7 if unit == "W" else 1)) if unit in "DW" \
            else add_months(day, n * (12 if unit == "Y" else 1))
        return DateHit("date", h.start, nxt.end, moved.isoformat())
    clock = _TIME_VALUE.fullmatch(nxt.value) if nxt.type == "time" else None
    if d and d.group(3) and off and off.group("dir").lower() != "from" and clock:
        # 30 minutes after 3pm, 2 hours before noon: that time ("for 2 hours from 2pm" is a range, below)
        amount = timedelta(hours=float(d.group(3))) if d.group(4) == "H" else timedelta(minutes=float(d.group(3)))
        base = datetime(2000, 1, 1, int(clock.group(1)), int(clock.group(2)), int(clock.group(3)))
        moved_at = base - amount if off.group("dir").lower() == "before" else base + amount
        return DateHit("time", h.start, nxt.end, moved_at.strftime("%H:%M:%S")) if moved_at.date() == base.date() \
            else None
    time_hit, span = (nxt, h) if h.type == "duration" and _FROM_GAP.fullmatch(gap) else \
        (h, nxt) if nxt.type == "duration" and h.type == "time" and _FOR_GAP.fullmatch(gap) else (None, None)
    if time_hit is None or span is None or time_hit.type != "time":
        return None
    d = _CLOCK_DURATION.fullmatch(span.value)
    t = _TIME_VALUE.fullmatch(time_hit.value)
    if not d or not (d.group(1) or d.group(2)) or not t:
        return None
    start = datetime(2000, 1, 1, int(t.group(1)), int(t.group(2)), int(t.group(3)))
    end = start + timedelta(hours=float(d.group(1) or 0), minutes=float(d.group(2) or 0))
    if end.date() != start.date():
        return None
    return DateHit("timerange", h.start, nxt.end, f"{time_hit.value}/{end.strftime('%H:%M:%S')}")


def _set_at(repeat: str, clock: str) -> str | None:
    """``R/XXXX-WXX-1`` at 16:00 → ``R/XXXX-WXX-1T16``; a daily set or a part of the day at a time is
    that time (``R/T06``, the gold's timex: minutes only when not zero)."""
    t = _TIME_VALUE.fullmatch(clock)
    if t is None:
        return None
    stamp = f"T{t.group(1)}" if t.group(2) == "00" else f"T{t.group(1)}:{t.group(2)}"
    code = repeat.removeprefix("R/")
    if code in ("P1D", "TMO", "TAF", "TEV", "TNI"):
        return f"R/{stamp}"
    if re.fullmatch(r"XXXX-WXX-[1-7]", code):
        return f"R/{code}{stamp}"
    return None


_POD_WORD = r"(?P<pod>morning|afternoon|evening|night)"
#: ``last tuesday morning``, ``june 5 in the evening``: the part of the day right after a day.
_POD_TAIL = re.compile(r"\s+(?:in\s+the\s+)?" + _POD_WORD + r"\b", re.IGNORECASE)
#: ``the morning of june 5``, ``on the evening of the 3rd``: the part of the day named before it.
_POD_OF = re.compile(r"(?:the\s+)?" + _POD_WORD + r"\s+of\s+$", re.IGNORECASE)


def _day_part(folded: str, h: DateHit, nxt: DateHit | None) -> DateHit | None:
    """A day with its part of the day (:data:`POD_HOURS`) as that window of datetimes, or None."""
    if h.type != "date" or not _DAY_VALUE.fullmatch(h.value):
        return None
    tail = _POD_TAIL.match(folded, h.end)
    before = _POD_OF.search(folded, max(0, h.start - 20), h.start)
    if tail is not None and not (nxt is not None and nxt.start < tail.end()):
        start, end, pod = h.start, tail.end(), tail.group("pod")
    elif before is not None:
        start, end, pod = before.start(), h.end, before.group("pod")
    else:
        return None
    first, last = POD_HOURS[pod.lower()]
    closing = "23:59:59" if last == 24 else f"{last:02d}:00:00"
    return DateHit("daterange", start, end, f"{h.value}T{first:02d}:00:00/{h.value}T{closing}")


def _named_holiday(folded: str, hit: DateHit | None) -> bool:
    return hit is not None and hit.type == "date" and HOLIDAY_EN_RE.fullmatch(folded, hit.start, hit.end) is not None


def compose_day_and_time(folded: str, hits: list[DateHit]) -> list[DateHit]:
    """A day next to a time of day is one ``datetime``: ``tomorrow at 8:45``, ``3pm today``,
    ``8am this morning``, ``tonight at 2am``, ``2010.01.29晚上六点``; ``5 in the afternoon`` is 17:00.
    An English holiday stays a date beside its time (``christmas eve at 6 p.m.``: a day and a time), as
    the Recognizers-Text grammar keeps a holiday whole rather than make it a part of a datetime."""
    out: list[DateHit] = []
    i = 0
    while i < len(hits):
        h = hits[i]
        nxt = hits[i + 1] if i + 1 < len(hits) else None
        if h.type == "time":
            pod = _POD_AFTER.match(folded, h.end)
            # The window "in the evening" read on its own is this time's part of day, not a hit of its own.
            window = pod is not None and nxt is not None and nxt.start >= h.end and nxt.end <= pod.end()
            if pod and (window or not (nxt and nxt.start < pod.end())):
                hours = {"morning": "08", "afternoon": "12", "evening": "16", "night": "20"}[pod.group("pod").lower()]
                value = _at_part_of_day(h.value, f"{hours}:00:00", folded[h.start:h.end])
                h = DateHit("time", h.start, pod.end(), value)
                if window:
                    i += 1
                    nxt = hits[i + 1] if i + 1 < len(hits) else None
        part = _day_part(folded, h, nxt)
        if part is not None:  # last tuesday morning, the evening of june 5: a window, composed on
            h = part
        week_of = _WEEK_OF.search(folded, max(0, h.start - 40), h.start) \
            if h.type == "date" and _DAY_VALUE.fullmatch(h.value) else None
        if week_of is not None:
            monday = date.fromisoformat(h.value) - timedelta(days=date.fromisoformat(h.value).weekday())
            out.append(DateHit("daterange", week_of.start(), h.end,
                               f"{monday.isoformat()}/{(monday + timedelta(days=7)).isoformat()}"))
            i += 1
            continue
        holiday = _named_holiday(folded, h)  # stays a date beside a time (the docstring)
        if h.type == "date" and _DAY_VALUE.fullmatch(h.value) and not holiday:
            at = _AT_HOUR.match(folded, h.end)
            if at and not (nxt and nxt.start < at.end()) and _HOUR_END.match(folded, at.end()):
                out.append(DateHit("datetime", h.start, at.end(), f"{h.value}T{int(at.group(1)):02d}:00:00"))
                i += 1  # friday at 3: a bare hour after "at" closing the clause is that day's hour
                continue
        if h.type == "set":
            at = _AT_HOUR.match(folded, h.end)
            if at and not (nxt and nxt.start < at.end()) and _HOUR_END.match(folded, at.end()):
                hour = int(at.group(1))
                if h.value[-3:] in ("TAF", "TEV", "TNI") and hour < 12:
                    hour += 12  # every evening at 7: seven in the evening
                joined = _set_at(h.value, f"{hour:02d}:00:00")
                if joined:
                    out.append(DateHit("set", h.start, at.end(), joined))  # every morning at 7
                    i += 1
                    continue
        window_day = _day_window(h)
        at = _AT_HOUR.match(folded, h.end) if window_day else None
        if window_day and at and not (nxt and nxt.start < at.end()):
            hour = int(at.group(1))
            value = _at_part_of_day(f"{hour:02d}:00:00", h.value, "")
            out.append(DateHit("datetime", h.start, at.end(), f"{window_day}T{value}"))  # tomorrow night at 9
            i += 1
            continue
        if nxt is not None and h.type == "date" and nxt.type in ("date", "datetime") \
                and _WEEKDAY.fullmatch(folded[h.start:h.end]) and _DAY_VALUE.match(nxt.value) \
                and _WEEKDAY_GAP.fullmatch(folded[h.end:nxt.start]) \
                and not _WEEKDAY.fullmatch(folded[nxt.start:nxt.end]):  # "wednesday, thursday" lists two days
            end = nxt.end + (folded[nxt.end:nxt.end + 1] == ")" and "(" in folded[h.end:nxt.start])
            out.append(DateHit(nxt.type, h.start, end, nxt.value))  # friday 5/12, this friday (jun-15): the date
            i += 2
            continue
        shifted = _offset_from_day(folded, h, nxt)
        if shifted is not None:
            out.append(shifted)
            i += 2
            continue
        if nxt is not None and {h.type, nxt.type} == {"set", "time"} \
                and _DAY_TIME_GAP.fullmatch(folded[h.end:nxt.start]):
            repeat = h if h.type == "set" else nxt
            clock = (nxt if h.type == "set" else h).value
            joined = _set_at(repeat.value, clock)
            if joined:
                out.append(DateHit("set", h.start, nxt.end, joined))  # each monday at 4pm, 6am everyday
                i += 2
                continue
        if nxt is not None:
            gap = folded[h.end:nxt.start]
            day = None if holiday else \
                h.value if h.type == "date" and _DAY_VALUE.fullmatch(h.value) else _day_window(h)
            if day and nxt.type == "timerange" and _DAY_TIME_GAP.fullmatch(gap) and "/" in nxt.value:
                out.append(_day_at_times(day, h, nxt, folded, h.start, nxt.end))  # tuesday from 2 to 4pm
                i += 2
                continue
            if day and nxt.type == "time" and _DAY_TIME_GAP.fullmatch(gap):
                value = nxt.value if h.type == "date" else _at_part_of_day(nxt.value, h.value,
                                                                           folded[nxt.start:nxt.end])
                out.append(DateHit("datetime", h.start, nxt.end, f"{day}T{value}"))
                i += 2
                continue
            day = None if _named_holiday(folded, nxt) else \
                nxt.value if nxt.type == "date" and _DAY_VALUE.fullmatch(nxt.value) else _day_window(nxt)
            if day and h.type == "timerange" and _TIME_DAY_GAP.fullmatch(gap) and "/" in h.value:
                out.append(_day_at_times(day, nxt, h, folded, h.start, nxt.end))  # 3:00 to 4:00 tomorrow
                i += 2
                continue
            if day and h.type == "time" and _TIME_DAY_GAP.fullmatch(gap):
                value = h.value if nxt.type == "date" else _at_part_of_day(h.value, nxt.value, folded[h.start:h.end])
                out.append(DateHit("datetime", h.start, nxt.end, f"{day}T{value}"))
                i += 2
                continue
        out.append(h)
        i += 1
    return out


def _period_end(value: str) -> str:
    """Where a year or a month ends (the next one's start); a day or a time ends where it is."""
    if re.fullmatch(r"\d{4}", value):
        return f"{int(value) + 1:04d}"
    m = re.fullmatch(r"(\d{4})-(\d{2})", value)
    if m:
        y, mo = int(m.group(1)), int(m.group(2))
        return f"{y + mo // 12:04d}-{mo % 12 + 1:02d}"
    return value


def _is_relative_offset(folded: str, h: DateHit) -> bool:
    return bool(re.search(r"[天年月周日时分秒]$", folded[h.start:h.end])) and folded[h.end:h.end + 1] in "前后後"\
        and not re.search(r"[日号號]$", folded[h.start:h.end])


_YEAR_DIGITS = re.compile(r"\d{4}|[/.-]\d{2}\b|年")
#: ``this may``, ``next june``: a start relative to today keeps its own year.
_RELATIVE_BEFORE = re.compile(r"\b(?:this|next|last|coming|previous)\s+$", re.IGNORECASE)
_MONTH_VALUE = re.compile(r"\d{4}-\d{2}(?:-\d{2})?")
_BARE_WEEKDAY = re.compile(r"(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?\b", re.IGNORECASE)
#: A start named by its month (``January 10``, ``10 Jan``, ``1/10``), which may borrow the end's year.
_CALENDAR_DAY = re.compile(rf"\b(?:{MONTH_ALT})\b|\d{{1,2}}/\d{{1,2}}", re.IGNORECASE)


def _year_from_end(first_text: str, second_text: str, first: str, second: str) -> str:
    """``from January 10 to January 12, 2016``: a start that names no year takes the end's (the year
    before, when that would put it after the end: ``from December 20 to January 3, 2017``)."""
    if not (_MONTH_VALUE.match(first) and _MONTH_VALUE.match(second)) or _YEAR_DIGITS.search(first_text) \
            or not _CALENDAR_DAY.search(first_text) or not re.search(r"\d{4}", second_text):
        return first  # "from tomorrow to June 3, 2030": a relative start keeps its own year
    year = int(second[:4]) - (first[5:10] > second[5:10])
    if not _DAY_VALUE.match(first):  # june through august 2020: a month
        return f"{year:04d}{first[4:]}"
    moved = safe_date(year, int(first[5:7]), int(first[8:10]))
    return moved.isoformat() + first[10:] if moved else first


def _weekday_after(first: str, second: str, second_text: str) -> str:
    """``from monday 9am to friday 5pm``: an end named by its weekday alone is the first such day on or
    after the start (the weekday grammar alone takes the coming one, which may be before it)."""
    if not (_DAY_VALUE.match(first) and _DAY_VALUE.match(second)) or second[:10] >= first[:10] \
            or not _BARE_WEEKDAY.match(second_text):
        return second
    day = date.fromisoformat(second[:10])
    while day.isoformat() < first[:10]:
        day += timedelta(days=7)
    return day.isoformat() + second[10:]


#: A weekday named alone in Chinese (``周一``, ``星期五``, ``礼拜天``).
_BARE_WEEKDAY_ZH = re.compile(r"(?:周|週|星期|礼拜|禮拜)[一二三四五六日天1-7]")
#: An end that names its month and day (or month) but no year: ``January 3``, ``3 Jan``, ``1月3日``, ``八月``.
_YEARLESS_CALENDAR = re.compile(rf"(?i:\b(?:{MONTH_ALT})\b)|\d{{1,2}}/\d{{1,2}}|[0-9一二三四五六七八九十]{{1,3}}\s*月")
#: ... unless a word places it in a year of its own (``last March``, ``明年八月``).
_OWN_YEAR = re.compile(r"(?i:\b(?:last|previous|this|next|coming)\b)|[去今明前后後]年|\d{4}|年")


def _not_before(first: str, second: str, second_text: str) -> str:
    """A range does not end before it starts when its end names no year or week of its own: ``from
    December 20 to January 3`` and ``from today until March 3`` end in the next year, ``从周五到周一``
    on the Monday after the Friday (the end was read alone, as its next or this year's occurrence)."""
    if not (_MONTH_VALUE.match(first) and _MONTH_VALUE.match(second)):
        return second
    n = min(len(first), len(second), 10)
    if second[:n] >= first[:n]:
        return second
    text = second_text.strip()
    if _BARE_WEEKDAY_ZH.fullmatch(text) and _DAY_VALUE.match(first) and _DAY_VALUE.match(second):
        day = date.fromisoformat(second[:10])
        while day.isoformat() < first[:10]:
            day += timedelta(days=7)
        return day.isoformat() + second[10:]
    if not _YEARLESS_CALENDAR.search(text) or _OWN_YEAR.search(text):
        return second
    year = int(second[:4]) + 1
    if not _DAY_VALUE.match(second):
        moved = f"{year:04d}{second[4:]}"
    else:
        same_day = safe_date(year, int(second[5:7]), int(second[8:10]))
        if same_day is None:
            return second
        moved = same_day.isoformat() + second[10:]
    return moved if moved[:n] >= first[:n] else second


def _inherit(second_text: str, first: str, second: str) -> str:
    """The end of ``2016年1月10日到12日`` takes its year and month from the start, not from today;
    ``下午5:00到6:00`` ends at 18:00; ``8月至2月`` ends in the next year."""
    dt1 = re.fullmatch(r"(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})", first)
    if dt1 and re.fullmatch(r"\d{2}:\d{2}:\d{2}", second):  # 12月15日晚上7:00到8:00
        return f"{dt1.group(1)}T{_inherit(second_text, dt1.group(2), second)}"
    t1 = re.fullmatch(r"(\d{2}):(\d{2}):(\d{2})", first)
    t2 = re.fullmatch(r"(\d{2}):(\d{2}):(\d{2})", second)
    if t1 and t2:
        h1, h2 = int(t1.group(1)), int(t2.group(1))
        if h1 >= 12 > h2 and h2 + 12 >= h1 and not re.search(r"上午|早|凌晨|am|AM", second_text):
            return f"{h2 + 12:02d}{second[2:]}"
        return second
    if re.fullmatch(r"\d{4}-\d{2}", first) and re.fullmatch(r"\d{4}-\d{2}", second) and second < first \
            and not re.search(r"年|\d{4}", second_text):
        return f"{int(second[:4]) + 1:04d}{second[4:]}"
    if not re.match(r"\d{4}-\d{2}", first) or not re.match(r"\d{4}-\d{2}-\d{2}", second):
        return second
    if re.search(r"[年/]|\d{4}", second_text) or re.search(r"[A-Za-z]{3}", second_text):
        return second  # "… to today", "… to June 3": the end names its own month
    if "月" not in second_text and "-" not in second_text:
        return first[:8] + second[8:]
    return first[:5] + second[5:]


def find_dates(text: str, folded: str, reference: datetime, cjk: bool = False) -> Iterator[Entity]:
    """Temporal entities of ``text`` (Chinese and English), ranges joined.

    ``cjk``: numeric ``1/2/2020`` reads day first in Chinese text (as Recognizers-Text zh does) and
    month first otherwise.
    """
    has_han = _HAN.search(folded) is not None  # worded Chinese periods need Chinese characters
    hits = [*(find_periods(folded, reference) if has_han else ()), *find_zh(folded, reference),
            *find_en(folded, reference, day_first=cjk),
            *(find_en_periods(folded, reference) if _ASCII_LETTER.search(folded) else ()),
            *find_holidays(folded, reference)]
    hits = _join_durations(folded, _weekends_of_days(folded, _drop_overlaps(hits), reference))
    for h in join_ranges(folded, hits, reference.date().isoformat()):
        if h.type == "datetime" and _HAN.match(folded, h.start) and _NOW.fullmatch(folded, h.start, h.end):
            continue  # 现在 opens a range or is nothing (find_zh)
        yield Entity(h.type, text[h.start:h.end], h.start, h.end, h.value)


_WEEKEND_AFTER = re.compile(r"\s+weekend\b(?:\s*,?\s*(?P<y>(?:19|20)\d{2})\b)?", re.IGNORECASE)
_WEEKEND_BEFORE = re.compile(r"\b(?:the\s+)?weekend\s+of\s+$", re.IGNORECASE)
_HAS_YEAR = re.compile(r"\d{4}")


def _weekends_of_days(folded: str, hits: list[DateHit], reference: datetime) -> list[DateHit]:
    """``halloween weekend 2021``, ``July 4th weekend``, ``the weekend of June 15``: the weekend
    (Saturday up to Monday) of the Monday-to-Sunday week holding that day, or the one before a Monday
    (a Monday holiday ends a long weekend: Saturday up to Tuesday). A year after ``weekend``
    belongs to the day: the day's own words are read again with it (a movable holiday moves)."""
    if "weekend" not in folded.lower():
        return hits
    out: list[DateHit] = []
    for h in hits:
        after = _WEEKEND_AFTER.match(folded, h.end)
        before = _WEEKEND_BEFORE.search(folded, max(0, h.start - 20), h.start)
        if h.type != "date" or not _DAY_VALUE.fullmatch(h.value) or not (after or before):
            out.append(h)
            continue
        day, end = date.fromisoformat(h.value), h.end
        if after:
            end = after.end()
            year = after.group("y")
            if year and not _HAS_YEAR.search(folded, h.start, h.end):
                words = f"{folded[h.start:h.end]} {year}"
                again = [x for x in (*find_en(words, reference), *find_holidays(words, reference))
                         if x.start == 0 and x.end == len(words) and _DAY_VALUE.fullmatch(x.value)]
                if again:
                    day = date.fromisoformat(again[0].value)
        # a Monday (Memorial Day) closes the long weekend before it, and is part of it
        saturday = day - timedelta(days=2) if day.weekday() == 0 else day - timedelta(days=day.weekday() - 5)
        days = 3 if day.weekday() == 0 else 2
        out.append(DateHit("daterange", before.start() if before and not after else h.start, end,
                           f"{saturday.isoformat()}/{(saturday + timedelta(days=days)).isoformat()}"))
    return out


#: Between the parts of one spaced duration: ``3 hours 30 minutes``, ``1 hour and 15 minutes``, ``2 years, 1 month``.
_DURATION_GAP = re.compile(r"(?:\s*,)?\s+(?:and\s+)?", re.IGNORECASE)


_OFFSET_PARTS_GAP = re.compile(r"(?:\s*,)?\s+")
_OFFSET_TAIL = re.compile(r"\s+(?P<dir>ago|later|from\s+now|hence|before\s+(?:today|now)|from\s+today)$", re.IGNORECASE)
_ISO_PARTS = re.compile(r"P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?")


def _move(value: str, duration: str, sign: int) -> str | None:
    """A date or datetime moved by a whole ISO duration (years and months first, as a calendar does)."""
    parts = _ISO_PARTS.fullmatch(duration)
    if not parts or not _DAY_VALUE.match(value):
        return None
    y, mo, w, d, hh, mi, ss = (int(x or 0) for x in parts.groups())
    if "T" in value:
        moved = datetime.fromisoformat(value)
        day = add_months(moved.date(), sign * (12 * y + mo))
        moved = datetime.combine(day, moved.time()) + sign * timedelta(weeks=w, days=d, hours=hh, minutes=mi,
                                                                       seconds=ss)
        return moved.isoformat()
    if hh or mi or ss:
        return None
    day = add_months(date.fromisoformat(value), sign * (12 * y + mo)) + sign * timedelta(weeks=w, days=d)
    return day.isoformat()


def _compound_offset(folded: str, prev: DateHit, h: DateHit) -> DateHit | None:
    """``1 week 2 days ago``, ``2 years 1 month 21 days later``: the larger parts read as durations
    before the last part's offset move its day (or time) further the same way."""
    if prev.type != "duration" or h.type not in ("date", "datetime") or not _OFFSET_PARTS_GAP.fullmatch(
            folded[prev.end:h.start]):
        return None  # "3 hours and 2 days ago" lists two spans: only parts written side by side join
    tail = _OFFSET_TAIL.search(folded, h.start, h.end)
    if tail is None:
        return None
    own = re.match(r"\s*(\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten)\s+(\w+)", folded[h.start:h.end])
    if own is None or not _ISO_PARTS.fullmatch(prev.value):
        return None
    word = own.group(1).lower()
    count = int(word) if word.isdigit() else _SMALL_COUNTS[word]
    unit = _unit_duration(own.group(2))
    if not _finer(prev.value, unit):
        return None
    part = unit.replace("1", str(count), 1)
    sign = -1 if tail.group("dir").lower().startswith(("ago", "before")) else 1
    base = _move(h.value, part, -sign)  # the day the offset counts from (today, or now)
    moved = _move(base, add_durations(prev.value, part), sign) if base else None
    return DateHit(h.type, prev.start, h.end, moved) if moved else None


_SMALL_COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                 "eight": 8, "nine": 9, "ten": 10}


def _unit_duration(word: str) -> str:
    """``days`` → ``P1D``, ``hours`` → ``PT1H``: the unit of the last part, to test the order of parts."""
    w = word.lower()
    if w.startswith(("hour", "hr")):
        return "PT1H"
    if w.startswith("min"):
        return "PT1M"
    if w.startswith("sec"):
        return "PT1S"
    return "P1" + {"y": "Y", "m": "M", "w": "W", "d": "D", "f": "W"}.get(w[:1], "D")


def _join_durations(folded: str, hits: list[DateHit]) -> list[DateHit]:
    """Adjacent durations written apart (``3 hours 30 minutes``) as one; a part already in the
    first (``3 hours 2 hours``) leaves them two; durations right before an offset (``1 week 2 days
    ago``) move its point."""
    out: list[DateHit] = []
    for k, h in enumerate(hits):
        prev = out[-1] if out else None
        offset = _compound_offset(folded, prev, h) if prev is not None else None
        if offset is not None:
            out[-1] = offset
            continue
        after = hits[k + 1] if k + 1 < len(hits) else None
        longer = _longer_count(folded, prev, h, after) if prev is not None else None
        if longer is not None:
            out[-1] = longer
            continue
        if prev is not None and prev.type == h.type == "duration" \
                and _DURATION_GAP.fullmatch(folded[prev.end:h.start]) and _finer(prev.value, h.value):
            out[-1] = DateHit("duration", prev.start, h.end, add_durations(prev.value, h.value))
            continue
        out.append(h)
    return out


_COUNTED_BACK = re.compile(r"(?:the\s+)?(?:last|past|previous)\s", re.IGNORECASE)
_COUNTED_ON = re.compile(r"(?:the\s+)?(?:next|coming|upcoming|following)\s", re.IGNORECASE)


def _longer_count(folded: str, prev: DateHit, h: DateHit, after: DateHit | None) -> DateHit | None:
    """``the last 3 months and 2 weeks and 2 days``: a counted range from or to today (``last``/``next``
    *n* units) goes on by the finer duration written after it; its far end moves. Not when the list goes on
    to a point (``the last 3 months and 2 weeks and 2 days ago``: the parts are read apart, as the
    Recognizers-Text gold does)."""
    if prev.type != "daterange" or h.type != "duration" or "/" not in prev.value \
            or not _DURATION_GAP.fullmatch(folded[prev.end:h.start]):
        return None
    if after is not None and after.type != "duration" and _DURATION_GAP.fullmatch(folded[h.end:after.start]):
        return None
    back = _COUNTED_BACK.match(folded, prev.start)
    if back is None and _COUNTED_ON.match(folded, prev.start) is None:
        return None
    if not _finer(_unit_duration(folded[prev.start:prev.end].split()[-1]), h.value):
        return None
    start, end = prev.value.split("/", 1)
    moved = _move(start, h.value, -1) if back is not None else _move(end, h.value, 1)
    if moved is None:
        return None
    return DateHit("daterange", prev.start, h.end, f"{moved}/{end}" if back is not None else f"{start}/{moved}")


_UNIT_ORDER = re.compile(r"(\d+(?:\.\d+)?)([YMWDHS])")


def _finer(a: str, b: str) -> bool:
    """True when every unit of ``b`` is smaller than every unit of ``a`` (P2Y then P1M, PT3H then PT30M)."""
    def ranks(value: str) -> list[int]:
        date_part, _, time_part = value[1:].partition("T")
        return ["YMWD".index(u) for _, u in _UNIT_ORDER.findall(date_part)] + \
            [4 + "HMS".index(u) for _, u in _UNIT_ORDER.findall(time_part)]
    ra, rb = ranks(a), ranks(b)
    return bool(ra and rb) and max(ra) < min(rb)


def _drop_overlaps(hits: list[DateHit]) -> list[DateHit]:
    hits.sort(key=lambda h: (h.start, -(h.end - h.start)))
    out: list[DateHit] = []
    for h in hits:
        if out and h.start < out[-1].end:
            continue
        out.append(h)
    return out

