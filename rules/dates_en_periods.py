"""English days and spans named by their place in a period: ``early June``, ``mid-2024``, ``the end of
next month``, ``the first Monday of July``, ``the last weekend of March``, ``the 15th`` (of this or the
next month), ``Friday next week``, ``the next day``, ``the week after next``, ranges of weekdays
(``Mon-Fri``) and parts of the current period cut at today (``later this week``, ``the rest of the
month``, ``year to date``).

Where a part of a period is meant, the spans follow one convention (the one the Recognizers-Text gold
uses, so the bench measures the grammar and not a different split): a month is early on the 1st–15th,
mid on the 10th–20th and late from the 16th; a named year (``2008``) in thirds, Jan–Apr, May–Aug and
Sep–Dec; a relative year (``next year``) in halves, with its middle Apr–Sep; a week is early Mon–Wed,
mid Tue–Fri and late Thu–Sun. ``beginning``/``start of`` read as early, ``end of`` as late.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import date, datetime, timedelta

from ._date_types import DateHit, add_months
from .dates_en import (
    COUNTS,
    MONTH_ALT,
    MONTHS,
    ORD_DAY_ALT,
    ORD_DAYS,
    POD_HOURS,
    WEEKDAY_ALT,
    WEEKDAYS,
    period_around,
    safe_date,
)
from .regexes import alternation

__all__ = ["find_en_periods"]

_YEAR = r"(?:1[6-9]|20)\d{2}"
_REL = r"this|next|last|previous|coming|current|following"
_COUNT_ALT = alternation(w for w in COUNTS if " " not in w and w not in ("a", "an", "few"))
_SHIFT = {"next": 1, "coming": 1, "following": 1, "last": -1, "previous": -1}
_PATTERNS = [
    ("mod", rf"\b(?:the\s+)?(?P<mod>early|mid|middle\s+of|late|(?:beginning|start|end)\s+of)[\s-]+(?:the\s+)?"
            rf"(?:(?P<mon>{MONTH_ALT})\.?(?:\s*,?\s*(?:of\s+)?(?P<my>{_YEAR}))?"
            rf"|(?P<rel>{_REL})\s+(?P<u>week|month|year)|(?P<y>{_YEAR})|(?P<u2>week|month|year))\b(?![-/]\d)"),
    ("nthwd", rf"\b(?:the\s+)?(?P<ord>first|second|third|fourth|fifth|last|1st|2nd|3rd|4th|5th)\s+"
              rf"(?P<wd>{WEEKDAY_ALT})\s+(?:of|in)\s+(?:(?P<mon>{MONTH_ALT})\.?(?:\s*,?\s*(?P<y>{_YEAR}))?"
              rf"|(?:the\s+)?(?P<rel>{_REL})\s+month|the\s+month)\b"),
    ("nthwe", rf"\b(?:the\s+)?(?P<ord>first|second|third|fourth|last|1st|2nd|3rd|4th)\s+weekend\s+(?:of|in)\s+"
              rf"(?:(?P<mon>{MONTH_ALT})\.?(?:\s*,?\s*(?P<y>{_YEAR}))?|(?:the\s+)?(?P<rel>{_REL})\s+month|the\s+month)\b"),
    ("mrng", rf"\b(?:(?P<pre>from|between)\s+)?(?:(?P<rel>this|next|last)\s+)?(?P<m1>{MONTH_ALT})\.?"
             rf"(?:\s*,?\s*(?P<y1>{_YEAR}))?\s*(?P<sep>-|–|to|through|thru|till|until|and)\s*(?P<m2>{MONTH_ALT})\.?"
             rf"(?:\s+(?:the\s+)?(?P<d2>[12]?\d|3[01])(?:st|nd|rd|th)?)?(?:\s*,?\s*(?P<y2>{_YEAR}))?\b"
             r"(?![\d:/-]|\.\d|\s*(?:[ap]\.?m\b|\d))"),
    # on the 15th; on 29th (digits with their suffix right after "on": the article is often dropped)
    ("dom", rf"\b(?P<pre>(?:on|by|before|after|until|till|from|since|through|of)\s+)?"
            r"(?:the\s+|(?<=\bon\s)(?=\d{1,2}(?:st|nd|rd|th)\b))"
            rf"(?:(?P<d>[12]?\d|3[01])(?:st|nd|rd|th|(?=\s+(?:at|from|between)\s+\d))|(?P<dw>{ORD_DAY_ALT}))\b"
            r"(?P<day>\s+day)?"
            rf"(?:\s+of\s+(?:the\s+)?(?:(?P<rel>{_REL})\s+)?(?P<month>month))?"),
    ("edge", rf"\b(?:the\s+)?(?P<fl>first|last)\s+day\s+of\s+(?:the\s+)?"
             rf"(?:(?P<mon>{MONTH_ALT})\.?(?:\s*,?\s*(?P<y>{_YEAR}))?|(?:(?P<rel>{_REL})\s+)?(?P<u>week|month|year)|(?P<y2>{_YEAR}))\b"),
    # friday next week; wednesday evening next week (a part of the day between: that day's window)
    ("wdwk", rf"\b(?:the\s+)?(?P<wd>{WEEKDAY_ALT})\.?(?:\s+(?P<pod>morning|afternoon|evening|night))?"
             rf",?\s+(?:of\s+)?(?:the\s+)?(?P<which>{_REL})\s+week\b"),
    ("wdan", rf"\b(?:the\s+)?(?P<wd>{WEEKDAY_ALT})\s+(?P<an>after\s+next|before\s+last)\b"),
    ("relday", r"\b(?:the\s+)?(?P<which>next|following|previous|prior)\s+day\b"
               r"|\bthe\s+day\s+(?P<ba>before|after)\b(?=\s*(?:$|[,.;:!?)]))"),
    ("after", r"\b(?:the\s+)?(?P<u>weekend|week|month|year)\s+(?P<ba>after\s+next|before\s+last)\b"),
    ("wdr", rf"\b(?:from\s+)?(?P<a>{WEEKDAY_ALT})\.?\s*(?:-|–|to|through|thru|till|until)\s*(?P<b>{WEEKDAY_ALT})\b"),
    ("domr", rf"\b(?:(?P<pre>from|between)\s+)?(?:the\s+)?(?P<d1>(?:[12]?\d|3[01])(?:st|nd|rd|th)|{ORD_DAY_ALT})"
             r"\s*(?:-|–|to|through|till|until|and)\s*(?:the\s+)?"
             rf"(?P<d2>(?:[12]?\d|3[01])(?:st|nd|rd|th)?|{ORD_DAY_ALT})\s+of\s+(?:the\s+)?(?:(?P<rel>{_REL})\s+)?month\b"),
    ("firstn", rf"\b(?:the\s+)?(?P<fl>first|last|final)\s+(?P<n>\d{{1,2}}|{_COUNT_ALT})\s+(?P<u>days|weeks|months)"
               rf"\s+of\s+(?:the\s+)?(?:(?P<mon>{MONTH_ALT})\.?(?:\s*,?\s*(?P<my>{_YEAR}))?"
               rf"|(?P<rel>{_REL})\s+(?P<pu>month|year)|(?P<y>{_YEAR})|(?P<pu2>month|year))\b"),
    ("halfm", rf"\b(?:the\s+)?(?P<ord>first|second|1st|2nd|latter|last)\s+half\s+of\s+(?:the\s+)?"
              rf"(?:(?P<mon>{MONTH_ALT})\.?(?:\s*,?\s*(?P<my>{_YEAR}))?|(?:(?P<rel>{_REL})\s+)?month)\b"),
    ("later", r"\b(?P<el>later|earlier)\s+(?:in\s+)?(?:(?:this|the)\s+(?P<u>week|month|year|day)|today)\b"),
    ("rest", r"\b(?:the\s+)?(?:rest|remainder|remaining|balance)\s+of\s+(?:the\s+|this\s+)?(?P<u>week|month|year)\b"),
    ("todate", r"\b(?:(?:the\s+)?(?P<u>year|quarter|month|week)[\s-]+to[\s-]+date|(?P<abbr>ytd|qtd|mtd|wtd))\b"),
    # blocked for the day., sales in the year, that weekend.: a period named with nothing after it to say
    # which one is the current one (the spec's "ref_undef" reading); "of the day" / "throughout the year"
    # qualify a kind (meal of the day, day of the week) and name no period
    ("current", r"(?<!\bof\s)(?<!\bthroughout\s)\b(?:(?:the|that)\s+(?:same\s+)?|same\s+)"
                r"(?P<u>day|week|weekend|fortnight|month|year)(?=\s*(?:$|[,.;:!?)]))"),
]
#: The first letters each pattern can start with: a look-ahead the regex engine tests before the
#: rest (it halves the scan of a 2 KB text), as cheap as the gates below.
_FIRST = {"mod": "tembls", "nthwd": "tfsl1-5", "nthwe": "tfsl1-4", "mrng": "fbtnljmasond", "dom": "obuatfs",
          "edge": "tfl", "wdwk": "tmwfs", "wdan": "tmwfs",
          "relday": "tnfp", "after": "twmy", "wdr": "fmtws", "later": "le", "domr": "fbt0-9", "firstn": "tfl",
          "halfm": "tfs12l", "rest": "tr", "todate": "tyqmw", "current": "tsw"}
_COMPILED = [(name, re.compile(f"(?=[{_FIRST[name]}])" + pat, re.IGNORECASE)) for name, pat in _PATTERNS]
_WEEKDAY_WORDS = tuple(WEEKDAYS)
_MONTH_STEMS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_RELATIVE_WEEKS = tuple(f"{w} week" for w in _REL.split("|"))
_ON_DIGITS_DAY = re.compile(r"\bon\s\d{1,2}(?:st|nd|rd|th)\b")
_DAY_STARTS = tuple(f"the {w}" for w in (*"123456789", "fi", "se", "th", "fo", "si", "ei", "ni", "te", "el", "tw"))
#: One cheap test per pattern on the lower-cased text (substrings, no regex): it only runs when the
#: words it needs are there, so a contract that names no such day pays a few substring tests.
_GATES: dict[str, Callable[[str], bool]] = {
    "mod": lambda low: any(w in low for w in ("early", "mid", "late ", "beginning of", "start of", "end of")),
    "nthwd": lambda low: any(f"{d} of " in low or f"{d} in " in low for d in _WEEKDAY_WORDS),
    "nthwe": lambda low: "weekend of" in low or "weekend in" in low,
    "mrng": lambda low: sum(m in low for m in _MONTH_STEMS) >= (1 if "-" in low or "–" in low else 2),
    "dom": lambda low: any(w in low for w in _DAY_STARTS) or _ON_DIGITS_DAY.search(low) is not None,
    "edge": lambda low: "day of" in low,
    "wdwk": lambda low: any(w in low for w in _RELATIVE_WEEKS),
    "wdan": lambda low: "after next" in low or "before last" in low,
    "relday": lambda low: any(w in low for w in ("next day", "following day", "previous day", "prior day",
                                                 "day before", "day after")),
    "after": lambda low: "after next" in low or "before last" in low,
    "halfm": lambda low: "half of" in low,
    "firstn": lambda low: ("first " in low or "last " in low or "final " in low) and "s of " in low,
    "domr": lambda low: " month" in low and " of " in low,
    "later": lambda low: "later " in low or "earlier " in low,
    "rest": lambda low: any(w in low for w in ("rest of", "remainder of", "remaining of", "balance of")),
    "todate": lambda low: "to date" in low or "to-date" in low or "td" in low,
    "current": lambda low: ("the " in low or "that " in low or "same " in low)
    and any(u in low for u in ("day", "week", "fortnight", "month", "year")),
    "wdr": lambda low: any(f"{d}{sep}" in low for d in _WEEKDAY_WORDS for sep in ("-", " -", "–", " to ", " thr",
                                                                                 " till", " until")),
}
_ORDINAL = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4,
            "5th": 5}
#: What may follow a bare ``the 15th`` that is a day: an end, a stop, or a word that goes on with a date.
_DAY_TAIL = re.compile(r"\s*(?:$|[,.;:!?)]|[-–—](?=\s)"
                       r"|(?:at|from|to|and|or|through|until|till|in|on|by|for|before|after|this|next)\b)",
                       re.IGNORECASE)
_MONTH_AFTER = re.compile(rf"\s+(?:of\s+)?(?:{MONTH_ALT})\b", re.IGNORECASE)


def find_en_periods(folded: str, ref: datetime) -> Iterator[DateHit]:
    """Every hit of the grammars above in ``folded`` (overlaps are resolved by the caller)."""
    today = ref.date()
    low = folded.lower()
    for name, rx in _COMPILED:
        if not _GATES[name](low):
            continue
        for m in rx.finditer(folded):
            hit = _hit(name, m, today)
            if hit is not None:
                yield hit


def _span(m: re.Match[str], start: date, end: date) -> DateHit:
    return DateHit("daterange", m.start(), m.end(), f"{start.isoformat()}/{end.isoformat()}")


def _part(mod: str, first: date, end: date, kind: str) -> tuple[date, date]:
    """The early / mid / late part of the period ``[first, end)`` of ``kind`` (month, year, relyear, week)."""
    if kind == "month":
        cuts = {"early": (1, 16), "mid": (10, 21), "late": (16, None)}[mod]
        return first.replace(day=cuts[0]), first.replace(day=cuts[1]) if cuts[1] else end
    if kind == "week":
        days = {"early": (0, 3), "mid": (1, 5), "late": (3, 7)}[mod]
        return first + timedelta(days=days[0]), first + timedelta(days=days[1])
    months = {"year": {"early": (0, 4), "mid": (4, 8), "late": (8, 12)},
              "relyear": {"early": (0, 6), "mid": (3, 9), "late": (6, 12)}}[kind][mod]
    return add_months(first, months[0]), add_months(first, months[1])


def _modified(m: re.Match[str], today: date) -> DateHit:
    """``early June``, ``mid-2024``, ``the end of next month``, ``late this week``, ``the start of the year``."""
    g = m.groupdict()
    word = g["mod"].lower().split()[0]
    mod = {"beginning": "early", "start": "early", "middle": "mid", "end": "late"}.get(word, word)
    if g["mon"]:
        first = date(int(g["my"]) if g["my"] else today.year, MONTHS[g["mon"].lower()], 1)
        return _span(m, *_part(mod, first, add_months(first, 1), "month"))
    if g["y"]:
        first = date(int(g["y"]), 1, 1)
        return _span(m, *_part(mod, first, date(first.year + 1, 1, 1), "year"))
    shift = _SHIFT.get((g["rel"] or "this").lower(), 0)
    unit = (g["u"] or g["u2"]).lower()
    if unit == "week":
        monday = today - timedelta(days=today.weekday()) + timedelta(weeks=shift)
        return _span(m, *_part(mod, monday, monday + timedelta(days=7), "week"))
    if unit == "month":
        first = add_months(today.replace(day=1), shift)
        return _span(m, *_part(mod, first, add_months(first, 1), "month"))
    first = date(today.year + shift, 1, 1)
    return _span(m, *_part(mod, first, date(first.year + 1, 1, 1), "relyear"))


def _nth_weekday(m: re.Match[str], today: date) -> DateHit | None:
    """``the first Monday of July``, ``the last Friday of next month``: that weekday, counted in the month."""
    g = m.groupdict()
    if g["mon"]:
        first = date(int(g["y"]) if g["y"] else today.year, MONTHS[g["mon"].lower()], 1)
    else:
        first = add_months(today.replace(day=1), _SHIFT.get((g["rel"] or "this").lower(), 0))
    target = WEEKDAYS[g["wd"].lower()]
    ordinal = g["ord"].lower()
    if ordinal == "last":
        last = add_months(first, 1) - timedelta(days=1)
        day = last - timedelta(days=(last.weekday() - target) % 7)
    else:
        day = first + timedelta(days=(target - first.weekday()) % 7 + 7 * (_ORDINAL[ordinal] - 1))
        if day.month != first.month:
            return None  # there is no fifth Monday this month
    return DateHit("date", m.start(), m.end(), day.isoformat())


def _nth_weekend(m: re.Match[str], today: date) -> DateHit | None:
    """``the last weekend of March``, ``the first weekend of next month``: the weekend (Saturday up to
    Monday, as ``this weekend`` reads) of that Saturday of the month."""
    g = m.groupdict()
    if g["mon"]:
        first = date(int(g["y"]) if g["y"] else today.year, MONTHS[g["mon"].lower()], 1)
    else:
        first = add_months(today.replace(day=1), _SHIFT.get((g["rel"] or "this").lower(), 0))
    ordinal = g["ord"].lower()
    if ordinal == "last":
        last = add_months(first, 1) - timedelta(days=1)
        saturday = last - timedelta(days=(last.weekday() - 5) % 7)
    else:
        saturday = first + timedelta(days=(5 - first.weekday()) % 7 + 7 * (_ORDINAL[ordinal] - 1))
        if saturday.month != first.month:
            return None
    return _span(m, saturday, saturday + timedelta(days=2))


def _month_range(m: re.Match[str], today: date) -> DateHit | None:
    """``from August to October``, ``Jan-Mar 2024``, ``between Sep and Nov``, ``Nov-Feb 5th, 2017``,
    ``from this May to Oct 2020``: the first month up to the second (``2024-01/2024-03``: read as the
    first month's first day up to the second's, the Recognizers-Text convention), or up to the day named
    after it; a range that wraps the year (Nov-Feb) ends in the next one. ``March`` and ``May`` are verbs too:
    without ``from``/``between`` or a year they must be capitalized."""
    g = m.groupdict()
    sep, pre = g["sep"].lower(), (g["pre"] or "").lower()
    if (sep == "and") != (pre == "between"):
        return None  # "May and June" lists two months; "between" asks for "and"
    m1, m2 = MONTHS[g["m1"].lower()], MONTHS[g["m2"].lower()]
    if not (pre or g["y1"] or g["y2"] or g["rel"]) and any(
            w.lower() in ("may", "march", "mar") and not w[0].isupper() for w in (g["m1"], g["m2"])):
        return None
    if g["y1"]:
        y1 = int(g["y1"])
    elif g["y2"] and not g["rel"]:
        y1 = int(g["y2"]) - (1 if m1 > m2 else 0)
    else:
        y1 = today.year + _SHIFT.get((g["rel"] or "this").lower(), 0)
    y2 = int(g["y2"]) if g["y2"] else y1 + (1 if m1 > m2 else 0)
    end = safe_date(y2, m2, int(g["d2"])) if g["d2"] else date(y2, m2, 1)
    if end is None or end <= date(y1, m1, 1):
        return None
    # months stay months (2024-01/2024-03), as the range joiner writes "from January to March"
    tail = end.isoformat() if g["d2"] else f"{y2:04d}-{m2:02d}"
    return DateHit("daterange", m.start(), m.end(), f"{y1:04d}-{m1:02d}/{tail}")


def _day_of_month(m: re.Match[str], today: date) -> DateHit | None:
    """``on the 15th`` (the next one: this month's, or next month's once it is past), ``by the 30th``,
    ``the 3rd of next month``, ``the twenty-sixth day of the month``: a day number needs a preposition
    before it or its month after it (``the first to arrive``, ``around the 21st`` are no day)."""
    g = m.groupdict()
    tail = m.string[m.end():]
    if _MONTH_AFTER.match(tail):
        return None  # the 3rd of May is the day-month grammar's
    if not g["month"] and not _DAY_TAIL.match(tail):
        return None  # the 3rd party, the 2nd floor, the first day of school
    if not (g["month"] or g["pre"]):
        return None  # "around the 21st", "between the 21st and 23rd" name no day on their own
    day = int(g["d"]) if g["d"] else ORD_DAYS[re.sub(r"[ -]+", " ", g["dw"].lower())]
    if g["month"]:
        first = add_months(today.replace(day=1), _SHIFT.get((g["rel"] or "this").lower(), 0))
    else:
        first = today.replace(day=1) if day >= today.day else add_months(today.replace(day=1), 1)
    d = safe_date(first.year, first.month, day)
    # The preposition stays out: it is the range grammar's (before / after / until …).
    return DateHit("date", m.end("pre") if g["pre"] else m.start(), m.end(), d.isoformat()) if d else None


def _edge_day(m: re.Match[str], today: date) -> DateHit:
    """``the last day of the month``, ``the first day of 2025``, ``the last day of next week``."""
    g = m.groupdict()
    shift = _SHIFT.get((g["rel"] or "this").lower(), 0)
    unit = (g["u"] or "").lower()
    if g["mon"]:
        first = date(int(g["y"]) if g["y"] else today.year, MONTHS[g["mon"].lower()], 1)
        end = add_months(first, 1)
    elif g["y2"] or unit == "year":
        first = date(int(g["y2"]) if g["y2"] else today.year + shift, 1, 1)
        end = date(first.year + 1, 1, 1)
    elif unit == "week":
        first = today - timedelta(days=today.weekday()) + timedelta(weeks=shift)
        end = first + timedelta(days=7)
    else:
        first = add_months(today.replace(day=1), shift)
        end = add_months(first, 1)
    day = first if g["fl"].lower() == "first" else end - timedelta(days=1)
    return DateHit("date", m.start(), m.end(), day.isoformat())


_TO_DATE_UNIT = {"y": "year", "q": "quarter", "m": "month", "w": "week"}


def _period_of(unit: str, today: date) -> tuple[date, date]:
    """The week (Monday on), month, quarter or year holding ``today`` as ``[first, next first)``."""
    if unit == "week":
        first = today - timedelta(days=today.weekday())
        return first, first + timedelta(days=7)
    if unit == "month":
        first = today.replace(day=1)
        return first, add_months(first, 1)
    if unit == "quarter":
        first = date(today.year, (today.month - 1) // 3 * 3 + 1, 1)
        return first, add_months(first, 3)
    return date(today.year, 1, 1), date(today.year + 1, 1, 1)


#: Where the early part of a period ends (its late part starts): a week on Thursday, a month on the
#: 16th, a year on July 1st — the cuts :func:`_part` uses for ``late``.
_MIDDLE = {"week": lambda first: first + timedelta(days=3), "month": lambda first: first.replace(day=16),
           "year": lambda first: first.replace(month=7)}


def _relative_to_today(name: str, m: re.Match[str], today: date) -> DateHit | None:
    """Parts of the current period cut at today: ``later this week`` (its second half, from Thursday or from
    today if that is later, to its end), ``earlier this month`` (its start to today, no further than its
    middle: said on the 28th it is the first half),
    ``later today`` (the afternoon on), ``the rest of the week`` (today to Sunday, the month or the year
    to its last day) and ``year to date`` / ``YTD`` (its start to today)."""
    g = m.groupdict()
    if name == "todate":
        unit = g["u"].lower() if g["u"] else _TO_DATE_UNIT[g["abbr"][0].lower()]
        return _span(m, _period_of(unit, today)[0], today)
    unit = (g["u"] or "day").lower()
    if name == "rest":
        return _span(m, today, _period_of(unit, today)[1] - timedelta(days=1))
    later = g["el"].lower() == "later"
    if unit == "day":  # later today: noon to midnight; earlier today: midnight to noon
        d = today.isoformat()
        value = f"{d}T12:00:00/{today + timedelta(days=1)}T00:00:00" if later else f"{d}T00:00:00/{d}T12:00:00"
        return DateHit("daterange", m.start(), m.end(), value)
    first, end = _period_of(unit, today)
    if later:
        return _span(m, max(today, _MIDDLE[unit](first)), end)
    return _span(m, first, min(today, _MIDDLE[unit](first)))


def _current(m: re.Match[str], today: date) -> DateHit:
    """The period holding today: the day itself, or its week, weekend, fortnight, month or year."""
    unit = m.group("u").lower()
    if unit == "day":
        return DateHit("date", m.start(), m.end(), today.isoformat())
    return period_around(unit, 0, today, m.start(), m.end())


def _first_or_last(m: re.Match[str], today: date) -> DateHit | None:
    """``the first 10 days of June``, ``the last two months of 2025``, ``the last 3 weeks of this year``
    (weeks run Monday to Monday: the last ones end on the Monday of the week holding the period's last day)."""
    g = m.groupdict()
    word = g["n"].lower()
    n = int(word) if word.isdigit() else int(COUNTS[word])
    if g["mon"]:
        first = date(int(g["my"]) if g["my"] else today.year, MONTHS[g["mon"].lower()], 1)
        end = add_months(first, 1)
    elif g["y"] or (g["pu"] or g["pu2"] or "").lower() == "year":
        first = date(int(g["y"]) if g["y"] else today.year + _SHIFT.get((g["rel"] or "this").lower(), 0), 1, 1)
        end = date(first.year + 1, 1, 1)
    else:
        first = add_months(today.replace(day=1), _SHIFT.get((g["rel"] or "this").lower(), 0))
        end = add_months(first, 1)
    unit, leading = g["u"].lower(), g["fl"].lower() == "first"
    if unit == "days":
        lo, hi = (first, first + timedelta(days=n)) if leading else (end - timedelta(days=n), end)
    elif unit == "months":
        lo, hi = (first, add_months(first, n)) if leading else (add_months(end, -n), end)
    else:
        monday = first - timedelta(days=first.weekday()) if leading else \
            end - timedelta(days=1) - timedelta(days=(end - timedelta(days=1)).weekday())
        lo, hi = (monday, monday + timedelta(weeks=n)) if leading else (monday - timedelta(weeks=n), monday)
    return _span(m, lo, hi) if first - timedelta(days=6) <= lo < hi <= end + timedelta(days=6) else None


def _hit(name: str, m: re.Match[str], today: date) -> DateHit | None:
    g = m.groupdict()
    if name == "mod":
        return _modified(m, today)
    if name == "nthwd":
        return _nth_weekday(m, today)
    if name == "dom":
        return _day_of_month(m, today)
    if name == "nthwe":
        return _nth_weekend(m, today)
    if name == "mrng":
        return _month_range(m, today)
    if name == "edge":
        return _edge_day(m, today)
    if name == "wdwk":  # friday next week, tuesday of last week: that weekday of that week
        monday = today - timedelta(days=today.weekday()) + timedelta(weeks=_SHIFT.get(g["which"].lower(), 0))
        weekday = (monday + timedelta(days=WEEKDAYS[g["wd"].lower()])).isoformat()
        if g["pod"]:
            opens, closes = POD_HOURS[g["pod"].lower()]
            finish = "23:59:59" if closes == 24 else f"{closes:02d}:00:00"
            return DateHit("daterange", m.start(), m.end(), f"{weekday}T{opens:02d}:00:00/{weekday}T{finish}")
        return DateHit("date", m.start(), m.end(), weekday)
    if name == "wdan":  # friday after next: the one after the coming one; friday before last: before the last
        target = WEEKDAYS[g["wd"].lower()]
        if g["an"].lower().startswith("after"):
            day = today + timedelta(days=(target - today.weekday()) % 7 or 7) + timedelta(days=7)
        else:
            day = today - timedelta(days=(today.weekday() - target) % 7 or 7) - timedelta(days=7)
        return DateHit("date", m.start(), m.end(), day.isoformat())
    if name == "relday":  # the next day, the previous day, the day before
        forward = (g["which"] or "").lower() in ("next", "following") or (g["ba"] or "").lower() == "after"
        return DateHit("date", m.start(), m.end(), (today + timedelta(days=1 if forward else -1)).isoformat())
    if name == "after":  # the week after next, the month before last
        shift = 2 if g["ba"].lower().startswith("after") else -2
        return period_around(g["u"].lower(), shift, today, m.start(), m.end())
    if name == "halfm":  # the first half of may (1st-15th), the second half of next month (16th on)
        first = date(int(g["my"]) if g["my"] else today.year, MONTHS[g["mon"].lower()], 1) if g["mon"] \
            else add_months(today.replace(day=1), _SHIFT.get((g["rel"] or "this").lower(), 0))
        early = g["ord"].lower() in ("first", "1st")
        return _span(m, *_part("early" if early else "late", first, add_months(first, 1), "month"))
    if name == "firstn":
        return _first_or_last(m, today)
    if name == "domr":  # from the 10th to the 15th of this month, the 20th-25th of next month
        if (g["pre"] or "").lower() == "between" and not re.search(r"\band\b|[-–]", m.group(), re.IGNORECASE):
            return None
        first = add_months(today.replace(day=1), _SHIFT.get((g["rel"] or "this").lower(), 0))
        days = [int(x) if x.isdigit() else ORD_DAYS[re.sub(r"[ -]+", " ", x)]
                for x in (re.sub(r"(?<=\d)(?:st|nd|rd|th)$", "", g[k].lower()) for k in ("d1", "d2"))]
        start, end = (safe_date(first.year, first.month, d) for d in days)
        return _span(m, start, end) if start and end and end > start else None
    if name in ("later", "rest", "todate"):
        return _relative_to_today(name, m, today)
    if name == "current":
        return _current(m, today)
    if name == "wdr":  # mon-fri, from tuesday to thursday: the next such run of days (today counts)
        start = today + timedelta(days=(WEEKDAYS[g["a"].lower()] - today.weekday()) % 7)
        end = start + timedelta(days=(WEEKDAYS[g["b"].lower()] - start.weekday()) % 7)
        return _span(m, start, end) if end > start else None
    return None
