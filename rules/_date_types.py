"""The value every date grammar produces, and the calendar arithmetic they share.

A leaf module: the grammars (:mod:`.dates_en`, :mod:`.dates_zh`, :mod:`.dates_zh_periods`) import it,
and the dispatcher :mod:`.dates` imports them, so no grammar ever reaches back into the dispatcher.
"""

from __future__ import annotations

import calendar
import re
from datetime import date

__all__ = ["DateHit", "add_durations", "add_months", "leap_year_from", "week_of"]


class DateHit:
    """A recognized temporal span before it becomes an :class:`~lastline.rules.Entity`.

    ``type`` is one of the temporal entity types (``date``, ``datetime``, ``time``, ``daterange``,
    ``timerange``, ``duration``, ``set``); offsets index the width-folded text, which keeps the
    original's offsets.
    """

    __slots__ = ("end", "start", "type", "value")

    def __init__(self, type_: str, start: int, end: int, value: str) -> None:
        self.type, self.start, self.end, self.value = type_, start, end, value

    def __repr__(self) -> str:
        return f"DateHit({self.type!r}, {self.start}, {self.end}, {self.value!r})"


def add_months(d: date, months: int) -> date:
    """``d`` moved by whole months, clamping the day (Jan 31 + 1 month → Feb 28/29)."""
    y, m = divmod(d.month - 1 + months, 12)
    year, month = d.year + y, m + 1
    for day in (d.day, 30, 29, 28):
        try:
            return date(year, month, min(day, d.day))
        except ValueError:
            continue
    return date(year, month, 28)


def leap_year_from(year: int) -> int:
    """The first year from ``year`` on that has a February 29th (eight years at most: 2097 → 2104): where a
    yearless 2/29 or 2月29日 falls."""
    return next(y for y in range(year, year + 9) if calendar.isleap(y))


def week_of(d: date) -> str:
    """ISO week label of ``d``: ``2017-W14``."""
    year, week, _ = d.isocalendar()
    return f"{year}-W{week:02d}"


_PARTS = re.compile(r"P(?:([\d.]+)Y)?(?:([\d.]+)M)?(?:([\d.]+)W)?(?:([\d.]+)D)?"
                    r"(?:T(?:([\d.]+)H)?(?:([\d.]+)M)?(?:([\d.]+)S)?)?")


def add_durations(a: str, b: str) -> str:
    """Two ISO 8601 durations as one (``P8D`` + ``PT20H`` → ``P8DT20H``); ``a`` when either is not one."""
    pa, pb = _PARTS.fullmatch(a), _PARTS.fullmatch(b)
    if not pa or not pb:
        return a
    parts = [float(x or 0) + float(y or 0) for x, y in zip(pa.groups(), pb.groups(), strict=True)]
    fmt = [str(int(v)) if v == int(v) else str(v) for v in parts]
    date_part = "".join(f"{v}{u}" for v, u, raw in zip(fmt[:4], "YMWD", parts[:4], strict=True) if raw)
    time_part = "".join(f"{v}{u}" for v, u, raw in zip(fmt[4:], "HMS", parts[4:], strict=True) if raw)
    return "P" + date_part + ("T" + time_part if time_part else "")
