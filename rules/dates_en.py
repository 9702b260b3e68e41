"""English and numeric dates: ``2024-06-15``, ``2024/6/15``, ``06/15/2024``, ``June 15, 2024``,
``15 June 2024``, ``June 2024``, ``tomorrow``, ``next Friday``, ``3pm``, ``in 3 days``, ``2 weeks``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date, datetime, timedelta

from ._date_types import DateHit, add_months, leap_year_from, week_of
from .dates_en_years import WORDED_YEAR, year_value
from .regexes import alternation

__all__ = ["COUNTS", "LETTERLESS", "MONTHS", "MONTH_ALT", "ORD_DAYS", "ORD_DAY_ALT", "WEEKDAYS", "WEEKDAY_ALT",
           "find_en", "period_around", "safe_date"]

MONTHS = {m: i + 1 for i, ms in enumerate((
    "january jan", "february feb", "march mar", "april apr", "may", "june jun", "july jul",
    "august aug", "september sep sept", "october oct", "november nov", "december dec")) for m in ms.split()}
MONTH_ALT = alternation(MONTHS)
WEEKDAYS = {d: i for i, ds in enumerate(("monday mon", "tuesday tue tues", "wednesday wed", "thursday thu thurs",
                                          "friday fri", "saturday sat", "sunday sun")) for d in ds.split()}
WEEKDAY_ALT = alternation(WEEKDAYS)
_AP = r"(?:[ap]\.m\.?|[ap]m)(?![a-z])"
_ORD_UNITS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth"]
_ORD_TEENS = ["tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth",
              "eighteenth", "nineteenth"]
#: Days of the month as ordinal words: ``first`` … ``thirty-first`` (``twenty third`` spaced or hyphened).
ORD_DAYS = {**{w: i + 1 for i, w in enumerate(_ORD_UNITS)}, **{w: i + 10 for i, w in enumerate(_ORD_TEENS)},
            "twentieth": 20, "thirtieth": 30, **{f"twenty {w}": 21 + i for i, w in enumerate(_ORD_UNITS)},
            "thirty first": 31}
ORD_DAY_ALT = alternation(w.replace(" ", "[ -]") for w in ORD_DAYS)
_HOURS = {w: i + 1 for i, w in enumerate(
    ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"])}
_HOUR_WORDS = alternation(_HOURS)
_MINUTES = {**_HOURS, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
            "nineteen": 19, "twenty": 20, "twenty five": 25, "twenty-five": 25}
_MINUTE_WORDS = alternation(re.escape(w) for w in _MINUTES)
_UNIT_WORDS = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
#: Minutes of a clock time read in words after the hour: ``oh five``, ``ten`` … ``nineteen``, ``thirty``,
#: ``forty-five``, ``fifty nine``.
CLOCK_MINUTES = {
    **{f"oh {w}": i + 1 for i, w in enumerate(_UNIT_WORDS)}, "ten": 10, "eleven": 11, "twelve": 12,
    **{w: 13 + i for i, w in enumerate(["thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
                                         "nineteen"])},
    **{tens: 10 * t for t, tens in ((2, "twenty"), (3, "thirty"), (4, "forty"), (5, "fifty"))},
    **{f"{tens} {w}": 10 * t + i + 1 for t, tens in ((2, "twenty"), (3, "thirty"), (4, "forty"), (5, "fifty"))
       for i, w in enumerate(_UNIT_WORDS)},
}
_CLOCK_MINUTE_WORDS = alternation(w.replace(" ", "[ -]") for w in CLOCK_MINUTES)
#: Days of the month as cardinal words (``twenty five January 1986``, as dates are spoken): read only with a
#: year after the month, where a count of months ("five January invoices") cannot be meant.
_CARD_DAYS = {**{w: i + 1 for i, w in enumerate(_UNIT_WORDS)},
              **{w: n for w, n in CLOCK_MINUTES.items() if n <= 31 and not w.startswith("oh ")}}
_CARD_DAY_ALT = alternation(w.replace(" ", "[ -]") for w in _CARD_DAYS)
#: What makes ``nine thirty`` a time and not two numbers: a cue word before it, or a day named just before.
_CLOCK_CUE = re.compile(rf"(?:\b(?:at|from|to|until|till|between|by|around|about|and)|{MONTH_ALT}|{WEEKDAY_ALT}"
                        r"|today|tomorrow|tonight|yesterday|(?:st|nd|rd|th))\s*,?\s*$", re.IGNORECASE)
#: Counts of a unit of time written in words (``few hours`` is three, as the gold reads it).
COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
          "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30, "forty": 40,
          "forty-five": 45, "forty five": 45, "fifty": 50, "sixty": 60, "ninety": 90, "half an": 0.5, "half a": 0.5,
          "a half": 0.5,
          "a quarter of an": 0.25, "quarter of an": 0.25, "three quarters of an": 0.75,
          "a couple of": 2, "couple of": 2, "a couple": 2, "couple": 2, "a few": 3, "few": 3,
          "½": 0.5, "¼": 0.25, "¾": 0.75,  # a ½ hour
          **{w: 13 + i for i, w in enumerate(("thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
                                               "nineteen"))},
          "seventy": 70, "eighty": 80,
          # forty-eight hours, twenty one days: tens and units, hyphened or spaced
          **{f"{tens}{sep}{unit}": 10 * t + u
             for t, tens in enumerate(("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"), 2)
             for u, unit in enumerate(("one", "two", "three", "four", "five", "six", "seven", "eight", "nine"), 1)
             for sep in ("-", " ")}}
_COUNT_WORDS = alternation(re.escape(w).replace("\\ ", "\\s+") for w in COUNTS)
#: Parts of the day as the Recognizers-Text gold resolves them: (start, end) hours, end exclusive
#: (night ends a second before midnight); ``early``/``late`` take the first/second half.
POD_HOURS = {"morning": (8, 12), "afternoon": (12, 16), "evening": (16, 20), "night": (20, 24), "daytime": (8, 18)}
_TIME = (r"(?:\s*(?:at\s+)?(?P<th>[01]?\d|2[0-3])(?::(?P<tm>[0-5]\d))?(?::(?P<ts>[0-5]\d))?"
         r"\s*(?P<ap>(?:[ap]\.m\.?|[ap]m))?(?![\w:]))?")
_PATTERNS = [
    ("iso", r"(?<![\d.])(?P<y>\d{4})(?:(?P<sep>[-/.])(?P<m>\d{1,2})(?P=sep)(?P<d>\d{1,2})"
            r"|[ ](?P<m2>0[1-9]|1[0-2])[ ](?P<d2>0[1-9]|[12]\d|3[01]))(?![\d])"
            r"(?:[T ](?P<ih>[01]\d|2[0-3]):(?P<im>[0-5]\d)(?::(?P<is>[0-5]\d))?)?"),
    ("num", r"(?:(?<![\d./-])|(?<=\d{4}-))(?P<a>\d{1,2})(?P<sep>[/.-])(?P<b>\d{1,2})(?P=sep)(?P<c>\d{4}|\d{2})"
            r"(?![\d/]|\.\d|-(?!\d{1,2}[/.]\d))"),
    ("yymd", r"(?<![\d./-])(?P<y>\d{2})-(?P<m>0?[1-9]|1[0-2])-(?P<d>0?[1-9]|[12]\d|3[01])(?![\d/]|\.\d|-\d)"),
    # 12-2015, 3/2024, 2015-12: a month and its year in digits (a month that is no month, 2015-32, is nothing)
    ("nmy", r"(?<![\w./:-])(?:(?P<m>0?[1-9]|1[0-2])[-/](?P<y>(?:19|20)\d{2})"
            r"|(?P<y2>(?:19|20)\d{2})-(?P<m2>0[1-9]|1[0-2]))(?![\w/:-]|[.,]\d)"),
    # >= 2019, < 2000, = 2019: a year compared, as filters write it (19xx or 20xx only: "> 1500" is an amount)
    ("cmpyr", r"(?<![<>=!\w])(?P<op>>\s?=|<\s?=|[<>≥≤=])\s*(?P<y>(?:19|20)\d{2})(?![\w/:-]|[.,]\d)"),
    # June 15, 2024; Jun/15; Sep-23-2020 (hyphens on both sides of the day only with a four-digit year)
    ("mdy", rf"\b(?P<mon>{MONTH_ALT})\.?"
            r"(?:\s+(?:the\s+)?|/|-(?=\d{1,2}\b(?!-))|(?P<hy>-)(?=\d{1,2}-\d{4}\b)|(?=\d))"
            rf"(?P<d>\d{{1,2}}(?:st|nd|rd|th)?(?![\d/:])|{ORD_DAY_ALT})"
            rf"(?:(?(hy)-|\s*,?\s*(?:of\s+|in\s+)?)(?P<y>\d{{4}}|{WORDED_YEAR}))?\b" + _TIME),
    # 15 June 2024, the 15th of June; 15-Jun-2024 and 15/Jun/24 (a month's name between hyphens or slashes)
    ("dmy", rf"\b(?:the\s+)?(?:(?<![$€£¥.,])(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:day\s+)?(?:of\s+)?"
            rf"|(?<![$€£¥.,\d/-])(?P<d2>\d{{1,2}})(?P<hy>[-/])(?=(?:{MONTH_ALT})\.?(?P=hy)\d)"
            rf"|(?P<dw>{ORD_DAY_ALT})\s+(?:day\s+)?of\s+"
            rf"|(?P<dc>{_CARD_DAY_ALT})\s+(?=(?:{MONTH_ALT})\.?\s*,?\s*(?:of\s+)?(?:\d{{4}}|{WORDED_YEAR})))"
            rf"(?P<mon>{MONTH_ALT})\.?"
            rf"(?:\s*,?\s*(?:of\s+|in\s+)?(?P<y>\d{{4}}|{WORDED_YEAR})|(?<=[A-Za-z.])[-/](?P<y2>\d{{4}}|\d{{2}}))?"
            r"\b(?![-/]\d)"
            + _TIME),
    ("mry", rf"\b(?:(?P<mon>{MONTH_ALT})\.?,?\s+(?:of\s+)?(?P<rel>this|next|last|previous|the\s+following)\s+year"
            rf"|(?P<rel2>this|next|last)\s+year\s+in\s+(?P<mon2>{MONTH_ALT}))\b"),
    ("ymd", rf"\b(?P<y>\d{{4}})/(?:(?P<d1>\d{{1,2}})/(?P<mon1>{MONTH_ALT})|(?P<mon>{MONTH_ALT})/(?P<d>\d{{1,2}}))\b"),
    # June 2024, Dec-2018, April of '87 (a two-digit year only after "of": "June 15" is a day)
    ("my", rf"\b(?P<mon>{MONTH_ALT})(?:\.?,?\s+(?:in\s+|of\s+)?|-(?=\d{{4}}\b(?!-)))(?P<y>\d{{4}}|{WORDED_YEAR})\b"
           rf"|\b(?P<mon2>{MONTH_ALT})\s+of\s+'?(?P<yy>\d{{2}})\b(?![\d/:,-]|\.\d|\s*(?:%|[ap]\.?m\b))"),
    ("rel", r"\b(?P<rel>today|tomorrow|yesterday|otd|(?:the\s+)?current\s+date|(?:the\s+)?day\s+after\s+tomorrow"
            r"|(?:the\s+)?day\s+before\s+yesterday)\b" + _TIME),
    ("wd", rf"\b(?P<which>next|last|this\s+past|this|coming|previous|following|past)\s+(?P<wd>{WEEKDAY_ALT})\b"
           + _TIME),
    ("in", r"\b(?:in\s+(?P<n1>\d+)\s+(?P<u1>day|week|month|year)s?\b"
           r"|(?P<n2>\d+)\s+(?P<u2>day|week|month|year)s?\s+ago\b)"),
    ("dur", r"\b(?P<n>\d+(?:\.\d+)?)\s*(?P<u>years?|months?|weeks?|days?|hours?|hrs?|minutes?|mins?|seconds?|secs?)\b"),
    ("relp", r"\b(?P<which>next|last|this|coming|previous|prior|past|current|upcoming|following)\s+"
             r"(?:calendar\s+(?=year))?"
             r"(?P<u>week|month|year|weekend|fortnight|(?P<work>work(?:ing)?|business)\s+week)\b"),
    ("bwd", r"\b(?P<wd>monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b(?!s)"),
    ("bmon", r"\b(?P<mon>january|february|april|june|july|august|september|october|november|december)\b"),
    ("pmon", r"\b(?:after|since|before|until|till|in|during|from|by|than|early|late|mid|to|through|this|next"
             r"|last)[\s-]+"
             r"(?P<mon>jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec|march|may)\.?(?![\w/-]|\s*\d)"),
    ("mdr", rf"\b(?:(?:(?P<pre1>between)\s+)?(?P<mon>{MONTH_ALT})\.?\s+(?:the\s+)?"
            rf"(?P<d1>\d{{1,2}}(?:st|nd|rd|th)?|{ORD_DAY_ALT})"
            r"\s*(?:-|–|to|through|thru|till|until|(?P<and1>and))"
            rf"\s*(?:the\s+)?(?P<d2>\d{{1,2}}(?:st|nd|rd|th)?|{ORD_DAY_ALT})"
            rf"|(?<![\d.,/-])(?P<d5>\d{{1,2}})(?:st|nd|rd|th)?(?:[ ]?[-–][ ]?|\s+to\s+)"
            rf"(?P<d6>\d{{1,2}})(?:st|nd|rd|th)?"
            rf"\s+(?:of\s+|in\s+)?(?P<mon3>{MONTH_ALT})\.?"
            rf"|(?P<pre>between|from)\s+(?:the\s+)?(?P<d3>\d{{1,2}}(?:st|nd|rd|th)?|{ORD_DAY_ALT})"
            r"(?:\s*[-–]\s*|\s+(?P<sep3>and|to|through|till|until)\s+)"
            rf"(?:the\s+)?(?P<d4>\d{{1,2}}(?:st|nd|rd|th)?|{ORD_DAY_ALT})\s+(?:of\s+|in\s+)?(?P<mon2>{MONTH_ALT})\.?)"
            r"(?:,?\s*(?P<y>\d{4}))?(?![\d/]|:\d|\s*(?:[ap]\.?m|o'?clock))\b"),
    ("yrng", r"\b(?:(?P<pre>between|from|in)\s+)?(?P<a>(?:1[6-9]|20)\d{2})"
             r"\s*(?:-|–|~|to|and|through|thru|until|till)\s*"
             r"(?P<b>(?:1[6-9]|20)\d{2})\b(?![\d/:-]|\.\d)"),
    ("yr", r"\b(?:in|during|since|by|of|year|from|before|after|until|till|than|starting|prior\s+to)\s+"
           # a year past 2099 (in 2150) only where the clause ends: "in 2150 cases" counts
           r"(?P<y>(?:1[6-9]|20)\d{2}|2[1-9]\d{2}(?=\s*(?:$|[,.;:!?)])))\b"
           r"(?![\d/:-]|\.\d)"),
    # a year in words after a preposition ends the phrase: "in two thousand boxes" counts boxes
    ("wyr", rf"\b(?:in|during|since|by|of|year|from|before|after|until|than)\s+(?P<y>{WORDED_YEAR})"
            r"(?=\s*(?:$|[,.;:!?)])|\s+(?:and|or|to|until|till|when|while|at|in|on|for|the|we|i|he|she|they|it)\b)"),
    ("set", rf"\b(?:(?P<mult>bi|semi)-?)?(?:(?P<adv>daily|weekly|monthly|annually|yearly|hourly|nightly|quarterly"
            rf"|fortnightly)|(?:every|each)\s+(?:(?P<other>other)\s+)?(?:(?P<k>\d+|two|three|four|five|six)\s+)?"
            rf"(?:(?P<u>day|week|month|year|hour|minute|quarter|fortnight)s?|(?P<halfh>half[\s-]hour)"
            rf"|(?P<swd>{WEEKDAY_ALT})(?:\s+(?P<spod2>morning|afternoon|evening|night))?"
            rf"|(?P<spod>morning|afternoon|evening|night)"
            rf"|(?P<we>weekends?))|any\s+(?:(?P<au>week|month|year)|(?P<awe>weekend))"
            rf"|(?P<one>one|once)\s+a\s+(?P<u2>day|week|month|year)"
            rf"|(?P<pwd>{WEEKDAY_ALT})s(?:\s+(?P<ppod>morning|afternoon|evening|night)s?)?|(?P<pwd2>{WEEKDAY_ALT})\s+(?P<ppod2>mornings"
            r"|afternoons|evenings|nights)|(?P<everyday>everyday))\b"),
    ("aot", rf"(?:\b|(?=[½¼¾]))(?=[0-9afhotsenciw½¼¾])(?:(?P<pre>in|within|for)\s+)?(?P<n>\d+(?:\.\d+)?|{_COUNT_WORDS})"
            r"(?:[ ]+(?:and[ ]+)?(?P<fn>[1-9])/(?P<fd>[2-9]|1[0-6]))?(?P<half1>\s+and\s+a\s+half)?\s*"
            # nights count days, as a booking does (two nights: P2D)
            r"(?P<u>years?|yrs?|months?|weekends?|weeks?|fortnights?|days?|nights?|hours?|hrs?|minutes?"
            r"|mins?|seconds?|secs?|(?<=\d)h|(?<=\d)y)\b(?P<half2>\s+and\s+(?:a\s+)?(?P<frac>half|quarter))?"
            r"(?:\s+(?P<dir>from\s+now|from\s+today|later|ago|hence|(?:from|after)\s+(?:today|tomorrow|yesterday)"
            r"|before\s+(?:today|tomorrow|yesterday))\b)?"
            r"|\b(?P<all>all)\s+(?P<au>day|week|month|year)\b"),
    ("off", r"\b(?P<n>\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten)\s+(?P<u>day|week|month|year)s?\s+"
            r"(?P<dir>from|after|before)\s+(?P<base>today|tomorrow|yesterday|now)\b"),
    ("cent", r"\b(?:the\s+)?(?P<c>[1-9]|1\d|2[01])(?:st|nd|rd|th)\s+century\b"),
    ("cy", r"\b(?:cy|calendar\s+year)\s?(?P<y>(?:1[6-9]|20)\d{2}|\d{2})\b(?![\d/:-]|\.\d)"),
    ("dec", r"\b(?:the\s+)?(?:(?P<mod>early|mid|late)[\s-]+)?(?:(?P<full>(?:1[6-9]|20)\d0)\s?'?s|'?(?P<short>[1-9]0)'?s"
            r"|(?<=the\s|mid[\s-]|rly[\s-]|ate[\s-])(?:(?P<cw>nineteen|eighteen)[ -]?)?'?"
            r"(?P<word>twenties|thirties|forties|fifties|sixties"
            r"|seventies|eighties|nineties))\b"),
    ("isow", r"(?<![\w-])(?P<y>(?:19|20)\d{2})-?W(?P<w>0[1-9]|[1-4]\d|5[0-3])(?:-?(?P<wd>[1-7]))?(?![\w-])"),
    # at 0800, at 1530 hrs: four digits after "at" are a clock time with a leading zero or before "hours"
    ("mil", r"\bat\s+(?:(?P<h0>0\d)(?P<m0>[0-5]\d)\b(?:\s*(?:hrs|hours|h)\b)?"
            r"|(?P<h1>1\d|2[0-3])(?P<m1>[0-5]\d)\s*(?:hrs|hours|h)\b)(?![.,:/-]\d|\s*(?:[ap]\.?m|%))"),
    ("clock", r"(?<![\d:.,])(?:(?P<hm>(?:0?\d|1[0-2])[0-5]\d)|(?P<th>[01]?\d|2[0-3])(?:[:.](?P<tm>[0-5]\d))?"
              r"(?::(?P<ts>[0-5]\d))?)\s*(?P<ap>(?:[ap]\.m\.?|[ap]m)|(?<=\d)[ap])(?![a-z])"),
    ("oclock", rf"\b(?P<th>[01]?\d|2[0-3]|{_HOUR_WORDS})\s*o'?\s?clock\b"),
    # the middle of a part of the day, as the Recognizers-Text grammar reads it: mid-morning 10:00, midday 12:00,
    # mid-afternoon 14:00; an hour or noon with "ish" is that hour, roughly (3ish, noonish)
    ("noon", r"\b(?P<w>noon|mid[\s-]?day|mid[\s-]?night|mid[\s-]?morning|mid[\s-]?afternoon)\b"
             r"|\b(?P<ish>noon|1[0-2]|0?[1-9]|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)-?ish\b"),
    # lunch after a preposition is the lunch hours (11 to 13, as the Recognizers-Text gold): "book this lunch"
    # names a meal, not a time
    ("lunch", r"\b(?P<pre>before|after|at|during|over|around|by|until|till)\s+(?P<w>(?:lunch|dinner)(?:\s*time)?)\b"
              # "lunchtime" in one word names the hours on its own (a lunchtime concert)
              r"|\b(?P<w2>lunchtime)\b"),
    ("wam", rf"\b(?P<hw>{_HOUR_WORDS})\s*(?P<ap>{_AP})"),
    # Tue 3pm, Mon 9am-5pm, on Thu: a weekday's short name is a day before a clock time or after "on"
    # (Sat, Sun, Mon, Wed are words too: capitalized only)
    ("bwda", r"(?:(?<=\bon\s)|\b)(?P<wd>tue|tues|thu|thur|thurs|fri|(?-i:Sat|Sun|Mon|Wed|SAT|SUN|MON|WED))\.?"
             r"(?:(?<=\bon\s...)|(?<=\bon\s....)|(?<=\bon\s.....)|(?=,?\s+(?:at\s+)?\d{1,2}(?:[:.]\d\d)?\s*(?:[ap]\.?m\b|-\s*\d)"
             r"|,?\s+at\s+\d)"
             # Mon or Tue: a short name after "or" / "and" (the one before it is checked to be a weekday)
             r"|(?:(?<=\bor\s...)|(?<=\bor\s....)|(?<=\bor\s.....)"
             r"|(?<=\band\s...)|(?<=\band\s....)|(?<=\band\s.....))(?P<listed>))(?![\w-])"),
    ("yq", r"\b(?P<rel>this|next|last|previous)\s+year'?s\s+(?:(?P<ord>first|second|third|fourth|1st|2nd|3rd|4th"
           r"|last|final)\s+(?P<qh>quarter|half)|(?P<hq>[qh])(?P<n>[1-4]))\b"),
    ("wclock", rf"(?=[otfsen])\b(?P<hw>{_HOUR_WORDS})[ -]+(?P<mw>{_CLOCK_MINUTE_WORDS})\b(?:\s*(?P<ap>{_AP}))?"),
    ("past", rf"\b(?:(?P<half>half)|(?P<q>(?:a\s+)?quarter)|(?P<mn>[0-5]?\d|{_MINUTE_WORDS})"
             rf"(?P<unit>\s*(?:min|mins|minutes))?)\s+(?P<dir>past|to)\s+(?P<hh>[01]?\d|2[0-3]|{_HOUR_WORDS})\b"
             rf"(?:\s*(?P<ap>{_AP}))?"),
    ("at", r"\bat\s+(?P<th>[01]?\d|2[0-3])[.:](?P<tm>[0-5]\d)\b(?![.:]\d|\s*(?:[ap]\.?m|[ap]\b))"),
    ("pod", rf"\b(?:(?P<el>early|later|late)\s+(?:in\s+)?)?(?:(?P<rel>this|tomorrow|yesterday|today|last|next)\s+|"
            rf"(?P<wd>{WEEKDAY_ALT})\s+(?:(?P<el2>early|late)\s+)?|(?P<inthe>(?:in|during)\s+(?:the\s+)?)|(?<=early\s)|(?<=late\s)"
            # one morning, 2 morning sessions: the hours of a part of the day named alone (not a greeting; "the
            # evening of June 20" is that day's, composed on)
            r"|(?<!\bgood\s)(?<!\bthe\s)(?=(?:morning|afternoon|evening)\b))"
            # in the mornings: the plural names the same hours (a habit, not a day)
            r"(?P<pod>morning|afternoon|evening|night|daytime)(?(inthe)s?)\b"
            r"|\b(?P<tonight>tonight|tonite)\b"),
    # eight tonight, 7 this evening: a bare hour before the window it falls in (composed with it)
    ("hwin", rf"\b(?P<th>1[0-2]|0?[1-9]|{_HOUR_WORDS})(?=\s+(?:tonight|tonite|this\s+(?:morning|afternoon|evening)"
             r"|(?:tomorrow|yesterday)\s+(?:morning|afternoon|evening|night))\b)"),
    ("hpod", rf"\b(?:(?:in\s+the\s+)?(?P<pod0>morning|afternoon|evening|night)\s+at\s+"
             rf"(?P<th0>[01]?\d|{_HOUR_WORDS})(?![\d:]|\.\d)"
             rf"|(?<![\d:.])(?P<th>[01]?\d|{_HOUR_WORDS})(?::(?P<tm>[0-5]\d))?\s+in\s+the\s+(?P<pod>morning|afternoon|evening|night))\b"),
    ("trng", rf"\b(?:(?P<pre>from|between)\s+)?(?P<h1>[01]?\d|2[0-3]|{_HOUR_WORDS})(?:[:.](?P<m1>[0-5]\d))?"
             rf"\s*(?P<ap1>{_AP})?\s*(?P<sep>-|–|to|and|until|till|through)\s*"
             rf"(?P<h2>[01]?\d|2[0-3]|{_HOUR_WORDS})(?:[:.](?P<m2>[0-5]\d))?(?:\s*(?P<ap2>{_AP}))?"
             r"(?![\d:]|\.\d|\s*(?:%|/))(?:\s+in\s+the\s+(?P<pod>morning|afternoon|evening|night)\b)?"),
    ("nrng", rf"\b(?:the\s+)?(?:(?P<dir>next|last|past|previous|upcoming|coming|following)\s+(?P<n>\d+|{_COUNT_WORDS})"
             rf"\s+(?P<u>(?:business|working)\s+days?|days?|weeks?|months?|years?|quarters?|hours?|minutes?)"
             rf"|(?P<n2>\d+|{_COUNT_WORDS})\s+(?P<dir2>upcoming|previous|past|next|coming)\s+"
             r"(?P<u2>days?|weeks?|months?|years?|quarters?|hours?|minutes?)"
             r"|(?P<dir3>next|last|past|previous|this)\s+(?P<u3>hour|minute))\b"),
    ("nwk", rf"\b(?P<which>next|last|this)\s+week(?:\s+on)?\s+(?P<wd>{WEEKDAY_ALT})\b"),
    ("wk", r"\b(?:(?:the\s+)?(?P<ord>first|second|third|fourth|fifth|last|1st|2nd|3rd|4th|5th)\s+week\s+of\s+"
           rf"(?:(?P<mon>{MONTH_ALT})\.?(?:\s*,?\s*(?P<my>(?:19|20)\d{{2}}))?|(?P<y>(?:19|20)\d{{2}})"
           r"|(?:the\s+|(?P<ry>this|next|last|previous|following)\s+)year"
           r"|(?:the\s+)?(?:(?P<rm>this|next|last|previous|following)\s+)?month)"
           r"|week\s+(?P<n>[1-9]|[1-4]\d|5[0-3])(?![\d:]|\.\d)"
           r"(?:\s+of\s+(?P<y2>(?:19|20)\d{2}))?)\b"),
    ("endof", r"\b(?:the\s+)?(?:end\s+of\s+(?:(?:the\s+|this\s+)?(?:business\s+|working\s+)?day|today)|eod|cob"
              r"|(?:close|end)\s+of\s+business)\b"
              rf"(?:\s+(?:on\s+)?(?:(?P<rel>today|tomorrow)|(?P<wd>{WEEKDAY_ALT}))\b)?"
              # the end of (the) sunday: that day's last second
              rf"|\b(?:the\s+)?end\s+of\s+(?:the\s+)?(?P<wd2>{WEEKDAY_ALT})\b"),
    ("wdn", rf"\b(?P<wd>{WEEKDAY_ALT})\s+(?:the\s+)?(?P<d>[12]?\d|3[01])(?:st|nd|rd|th)?\b"
            rf"(?![\d/:]|\.\d|\s*(?:a\.?m|p\.?m|o'?clock|-|to\b|and\b|%)|\s+(?:of\s+)?(?:{MONTH_ALT})\b"
            r"|\s+(?:days?|weeks?|months?|years?|hours?|minutes?)\b)" + _TIME),
    ("md", rf"\b(?:on|by|before|after|until|till|from|since|due|to|for|(?P<next>next)|{WEEKDAY_ALT})\s+"
           r"(?P<a>1[0-2]|0?[1-9])/"
           r"(?P<b>[12]\d|3[01]|0?[1-9])(?![\d/]|\.\d)"
           # a bare month/day whose day is past 12 reads only as a date (3/4 may be a fraction; 11/20 is not)
           r"|(?<![\w./-])(?P<a2>1[0-2]|0?[1-9])/(?P<b2>1[3-9]|2\d|3[01])(?![\d/]|\.\d)"
           # and day first where the day is past 12 and the month has its zero (22/04), as Europe writes it
           r"|(?<![\w./-])(?P<b3>1[3-9]|2\d|3[01])/(?P<a3>0[1-9]|1[0-2])(?![\d/]|\.\d)"),
    ("decp", r"\b(?:the\s+)?(?P<which>next|last|this|previous|coming|past|current)\s+decade\b"),
    # two numeric dates joined by a dash, month first, the year on either end or after both: 5/1-5/7, 2020;
    # 10/1-11/2/2017; 10-1-2018-10-7-2018 (with hyphens inside the dates, both ends need their year)
    ("ndr", r"(?:\b(?P<pre>from|between)\s+)?(?<![\w./-])(?P<m1>1[0-2]|0?[1-9])(?P<s>[/-])(?P<d1>[12]\d|3[01]|0?[1-9])"
            r"(?:(?P=s)(?P<y1>(?:19|20)\d{2}))?[-–](?P<m2>1[0-2]|0?[1-9])(?P=s)(?P<d2>[12]\d|3[01]|0?[1-9])"
            r"(?:(?P=s)(?P<y2>(?:19|20)\d{2})|,\s*(?P<y3>(?:19|20)\d{2}))?(?![\d/]|\.\d|-\d)"),
    # four-digit clock times joined by a dash after "between": between 0730-0930 (an end before the start
    # is in the afternoon: 0930-0730 ends at 19:30)
    ("mtr", r"\bbetween\s+(?P<h1>[01]\d|2[0-3])(?P<n1>[0-5]\d)\s*[-–]\s*(?P<h2>[01]\d|2[0-3])(?P<n2>[0-5]\d)\b"
            r"(?![.,:/-]?\d)"),
    ("now", r"\b(?:(?:right\s+)?now|at\s+present)\b"),
    # the 9th month of next year, the third month of 2025: a month counted in its year
    ("mofy", rf"\b(?:the\s+)?(?P<o>\d{{1,2}}(?:st|nd|rd|th)|{ORD_DAY_ALT})\s+month\s+of\s+"
             r"(?:(?P<rel>this|next|last|the)\s+year|(?P<y>(?:19|20)\d{2}))\b"),
    # "to date": everything until today (sales to date); "up to date" and "out of date" are states
    ("todate", r"(?<!\bup\s)(?<!\bup-)(?<!\bof\s)(?<!\bof-)(?<![\w-])to[\s-]date\b(?![\w-])"),
    ("qtr", r"\b(?:(?P<rel>this|next|last|previous|current|coming)\s+quarter"
            r"|q(?P<q>[1-4])(?:(?:\s*[-/ ]\s*|\s+of\s+)(?P<y>(?:19|20)\d{2})"
            r"|\s+(?:of\s+)?(?P<qy>this|next|last)\s+year)?"
            r"|(?P<y2>(?:19|20)\d{2})\s*[-/ ]?\s*(?P<hq>[qh])(?P<q2>[1-4])"
            r"|h(?P<h>[12])\s*[-/ ]\s*(?P<y4>(?:19|20)\d{2})"
            r"|(?:the\s+)?(?P<ord>first|second|third|fourth|1st|2nd|3rd|4th|(?:last|final)(?=\s+(?:quarter|half)\s+of\b))"
            r"\s+(?P<qh>quarter|half)"
            r"(?:\s+of\s+(?:(?P<y3>(?:19|20)\d{2})|(?P<oy>the\s+year|this\s+year|next\s+year|last\s+year))"
            r"|,?\s+(?P<y5>(?:19|20)\d{2}))?)\b"),
]
_COMPILED = [(name, re.compile(pat, re.IGNORECASE)) for name, pat in _PATTERNS]
# Cheap gates: a pattern only runs when the text has what it needs (digits, a month name, a keyword).
_HAS_DIGIT = re.compile(r"\d")
_HAS_MONTH = re.compile(rf"\b(?:{MONTH_ALT})", re.IGNORECASE)
_HAS_REL = re.compile(r"\b(?:today|tomorrow|yesterday|next|last|this|coming|previous|prior|following|past|current"
                      r"|upcoming|otd"
                      r"|every|each"
                      r"|daily|weekly|monthly|annually|yearly|hourly|nightly|a day|a week|now)\b",
                      re.IGNORECASE)
_HAS_NAME = re.compile(r"day\b|(?:uary|ril|une|uly|ust|ber)\b", re.IGNORECASE)
#: Cheap gates: a pattern only runs when the text has a word it needs (checked once per text, lazily).
_GATES = {
    "digit": _HAS_DIGIT, "month": _HAS_MONTH, "rel": _HAS_REL, "name": _HAS_NAME,
    "clockword": re.compile(r"clock|noon|mid|ish\b|past|to\b|quarter|half", re.IGNORECASE),
    "pod": re.compile(r"morning|afternoon|evening|night|tonight|tonite|daytime", re.IGNORECASE),
    "tens": re.compile(r"\b(?:oh|ten|eleven|twelve|\w+teen|twenty|thirty|forty|fifty)\b", re.IGNORECASE),
    "unit": re.compile(r"year|yr|month|week|fortnight|day|night|hour|hr|min|sec|\d[hy]\b", re.IGNORECASE),
    "range": re.compile(r"\b(?:to|and|until|till|through)\b|\d\s*(?:[ap]\.?m\.?)?\s*[-–]", re.IGNORECASE),
    "set": re.compile(r"every|each|any\s|daily|weekly|monthly|annually|yearly|hourly|nightly|quarterly|fortnightly"
                      r"|days\b|\bon(?:c)?e\s+a\s"
                      r"|mornings|afternoons|evenings|nights", re.IGNORECASE),
    "week": re.compile(r"week", re.IGNORECASE),
    "ap": re.compile(r"[ap]\.?m", re.IGNORECASE),
    "lunch": re.compile(r"lunch|dinner", re.IGNORECASE),
    "name3": re.compile(r"tue|thu|fri|sat|sun|mon|wed", re.IGNORECASE),
    "years": re.compile(r"year'?s\s", re.IGNORECASE),
    "end": re.compile(r"\b(?:end|eod|cob|close)\b", re.IGNORECASE),
    "decade": re.compile(r"decade", re.IGNORECASE),
    "century": re.compile(r"century", re.IGNORECASE),
    "now": re.compile(r"now|present", re.IGNORECASE),
    "todate": re.compile(r"to[\s-]date", re.IGNORECASE),
    "monthof": re.compile(r"month\s+of", re.IGNORECASE),
    "quarter": re.compile(r"quarter|half|\b[qh][1-4]|\d[qh][1-4]", re.IGNORECASE),
    "slash": re.compile(r"\d/\d"),
    "decades": re.compile(r"\d|ties\b", re.IGNORECASE),
    "yearword": re.compile(r"teen|twenty|thousand", re.IGNORECASE),
}
#: The gate each pattern needs; patterns not listed run on every text.
_NEEDS = {"clock": "digit", "at": "digit", "iso": "digit", "num": "digit", "mdy": "month", "dmy": "month",
          "my": "month", "ymd": "month", "mry": "month", "rel": "rel", "wd": "rel", "in": "digit", "dur": "digit",
          "relp": "rel",
          "bwd": "name", "bmon": "name", "yrng": "digit", "pmon": "month", "mdr": "month", "yr": "digit",
          "dec": "decades", "off": "rel", "oclock": "clockword", "noon": "clockword", "lunch": "lunch",
          "past": "clockword",
          "pod": "pod", "hpod": "pod", "hwin": "pod", "wclock": "tens", "aot": "unit", "trng": "range", "set": "set",
          "nrng": "rel",
          "nwk": "week",
          "wk": "week", "isow": "digit", "mil": "digit", "wam": "ap", "bwda": "name3", "yq": "years",
          "endof": "end", "decp": "decade", "now": "now", "qtr": "quarter",
          "wdn": "digit", "md": "slash", "yymd": "digit", "nmy": "digit", "cmpyr": "digit", "cent": "century",
          "cy": "digit",
          "wyr": "yearword", "ndr": "digit", "mtr": "digit", "todate": "todate", "mofy": "monthof"}
_SMALL = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
          "nine": 9, "ten": 10}
_DUR = {"y": "Y", "mo": "M", "w": "W", "d": "D", "h": "H", "mi": "M", "s": "S"}


#: The only patterns that can match a text without an ASCII letter (numeric dates, year and hour
#: ranges): on Chinese text the word grammars are skipped whole, not tried one by one.
LETTERLESS = frozenset({"iso", "num", "yymd", "nmy", "cmpyr", "yrng", "trng", "md", "ndr"})
_COMPILED_LETTERLESS = [(name, rx) for name, rx in _COMPILED if name in LETTERLESS]
_ASCII_LETTER = re.compile(r"[A-Za-z]")


def find_en(folded: str, ref: datetime, day_first: bool = False) -> Iterator[DateHit]:
    if not re.search(r"[0-9A-Za-z]", folded):
        return
    have: dict[str, bool] = {"always": True}
    for name, rx in _COMPILED if _ASCII_LETTER.search(folded) else _COMPILED_LETTERLESS:
        gate = _NEEDS.get(name, "always")
        if gate not in have:
            have[gate] = bool(_GATES[gate].search(folded))
        if not have[gate]:
            continue
        for m in rx.finditer(folded):
            hit = _hit(name, m, ref, day_first)
            if hit is not None:
                yield hit


#: A short weekday name after "or" / "and" is a day when a weekday comes before it in the list (``Mon or
#: Tue``; see ``bwda``).
_LISTED_WEEKDAY = re.compile(rf"\b(?:{WEEKDAY_ALT})\.?,?\s+(?:or|and)\s+$", re.IGNORECASE)


def _day_number(text: str) -> int:
    """``17``, ``17th``, ``seventeenth`` / ``twenty-third`` or ``twenty five`` → the day of the month."""
    words = re.sub(r"[ -]+", " ", text.lower())
    return ORD_DAYS.get(words) or _CARD_DAYS.get(words) or int(re.sub(r"\D", "", words))


def period_around(unit: str, shift: int, today: date, start: int, end: int) -> DateHit:
    """The ``unit`` (week, weekend, fortnight, month or year) ``shift`` of them from the one holding
    ``today``, as a hit spanning ``start:end``: this week (0), next month (1), the year before last (-2).
    A weekend runs Saturday up to Monday; a fortnight is the two weeks from a Monday."""
    monday = today - timedelta(days=today.weekday())
    if unit == "fortnight":
        first = monday + timedelta(weeks=2 * shift)
        return DateHit("daterange", start, end, f"{first.isoformat()}/{first + timedelta(days=14)}")
    if unit == "weekend":
        saturday = monday + timedelta(days=5, weeks=shift)
        return DateHit("daterange", start, end, f"{saturday.isoformat()}/{saturday + timedelta(days=2)}")
    if unit == "week":
        return DateHit("date", start, end, week_of(monday + timedelta(weeks=shift)))
    if unit == "month":
        first = add_months(today.replace(day=1), shift)
        return DateHit("date", start, end, f"{first.year:04d}-{first.month:02d}")
    return DateHit("date", start, end, f"{today.year + shift:04d}")


def safe_date(y: int, m: int, d: int) -> date | None:
    """The date, or None when the calendar has no such day (``feb 30``): a grammar then yields nothing."""
    try:
        return date(y, m, d)
    except ValueError:
        return None


def _clock(m: re.Match[str]) -> str | None:
    g = m.groupdict()
    if g.get("hm"):  # 1140 a.m.
        g = {**g, "th": g["hm"][:-2], "tm": g["hm"][-2:]}
    if g.get("th") is None:
        return None
    h, mi, s = int(g["th"]), int(g["tm"] or 0), int(g.get("ts") or 0)
    ap = (g.get("ap") or "").replace(".", "").lower()
    ap = {"a": "am", "p": "pm"}.get(ap, ap)
    if not ap and g.get("tm") is None:
        return None
    if ap == "pm" and h < 12:
        h += 12
    elif ap == "am" and h == 12:
        h = 0
    return f"{h:02d}:{mi:02d}:{s:02d}"


def _hit(name: str, m: re.Match[str], ref: datetime, day_first: bool = False) -> DateHit | None:
    g = m.groupdict()
    today = ref.date()
    if name == "iso":
        d = safe_date(int(g["y"]), int(g["m"] or g["m2"]), int(g["d"] or g["d2"]))  # 2010 01 29: spaced
        if d is None:
            return None
        if g["ih"]:
            t = f"{int(g['ih']):02d}:{g['im']}:{g['is'] or '00'}"
            return DateHit("datetime", m.start(), m.end(), f"{d.isoformat()}T{t}")
        return DateHit("date", m.start(), m.end(), d.isoformat())
    if name == "cmpyr":  # >= 2019: from 2019 on; > 2019: from 2020; <= 2019: before 2020; < 2019: before 2019
        op, year = re.sub(r"\s", "", g["op"]).replace("≥", ">=").replace("≤", "<="), int(g["y"])
        if op == "=":
            return DateHit("date", m.start(), m.end(), f"{year}")  # = 2019: that year
        value = {">=": f"{year}/..", ">": f"{year + 1}/..", "<=": f"../{year + 1}", "<": f"../{year}"}[op]
        return DateHit("daterange", m.start(), m.end(), value)
    if name == "nmy":
        return DateHit("date", m.start(), m.end(), f"{g['y'] or g['y2']}-{int(g['m'] or g['m2']):02d}")
    if name == "yymd":  # 27-7-3: a two-digit year first, hyphened (12-11-10 is read so by "num" too)
        d = safe_date(2000 + int(g["y"]), int(g["m"]), int(g["d"]))
        return DateHit("date", m.start(), m.end(), d.isoformat()) if d else None
    if name == "num":
        a, b, c = int(g["a"]), int(g["b"]), int(g["c"])
        year = c if len(g["c"]) == 4 else (2000 + c if c < 30 else 1900 + c)  # 05/05/89 → 1989
        if g["sep"] == "-" and len(g["c"]) == 2 and len(g["a"]) == 2:  # 12-11-10: yy-mm-dd
            d = safe_date(2000 + a, b, c)
            return DateHit("date", m.start(), m.end(), d.isoformat()) if d else None
        month, day = (b, a) if g["sep"] == "." or a > 12 or (day_first and b <= 12) else (a, b)
        d = safe_date(year, month, day)
        return DateHit("date", m.start(), m.end(), d.isoformat()) if d else None
    if name == "ymd":  # 2019/aug/01, 2020/23/sep
        d = safe_date(int(g["y"]), MONTHS[(g["mon"] or g["mon1"]).lower()], int(g["d"] or g["d1"]))
        return DateHit("date", m.start(), m.end(), d.isoformat()) if d else None
    if name in ("mdy", "dmy", "my"):
        month = MONTHS[(g["mon"] or g.get("mon2") or "").lower()]
        if name == "my":
            if g["yy"]:
                year = int(g["yy"]) + (2000 if int(g["yy"]) < 30 else 1900)  # as a two-digit year elsewhere
                return DateHit("date", m.start(), m.end(), f"{year:04d}-{month:02d}")
            return DateHit("date", m.start(), m.end(), f"{year_value(g['y']):04d}-{month:02d}")
        day_text = (g.get("dw") or g.get("dc") or g["d"] or g.get("d2") or "").lower()
        if g["mon"].lower() in ("may", "mar", "sun", "sat") and not g["y"] and g["mon"].islower() \
                and day_text[:1].isdigit() and name == "mdy" and m.group().count(" ") and "/" not in m.group():
            return None
        day = _day_number(day_text)
        year_text = g["y"] or g.get("y2")
        year = year_value(year_text) if year_text else today.year
        if year_text and len(year_text) == 2:
            year += 2000 if year < 30 else 1900  # 15-Jun-24: a two-digit year reads 20xx below 30, 19xx from 30
        d = safe_date(year, month, day)
        return _with_time(m, d)
    if name == "mry":  # may last year, june of next year, this year in march: that month of that year
        mon = g["mon"] or g["mon2"]
        if mon.lower() in ("may", "mar") and mon.islower():
            return None  # "you may next year": the verb
        rel = (g["rel"] or g["rel2"]).split()[-1].lower()
        year = today.year + {"next": 1, "following": 1, "last": -1, "previous": -1}.get(rel, 0)
        return DateHit("date", m.start(), m.end(), f"{year:04d}-{MONTHS[mon.lower()]:02d}")
    if name == "rel":
        rel = re.sub(r"\s+", " ", g["rel"].lower()).removeprefix("the ")
        shift = {"today": 0, "otd": 0, "current date": 0, "tomorrow": 1, "yesterday": -1, "day after tomorrow": 2,
                 "day before yesterday": -2}[rel]
        return _with_time(m, today + timedelta(days=shift))
    if name == "wd":
        target = WEEKDAYS[g["wd"].lower()]
        which = {"this past": "last", "past": "last", "following": "next"}.get(
            re.sub(r"\s+", " ", g["which"].lower()), g["which"].lower())
        delta = (target - today.weekday()) % 7
        if which == "next":  # the weekday of next week, like 下周三
            delta = target - today.weekday() + 7
        elif which == "coming":
            delta = delta or 7
        elif which == "last":
            delta = -((today.weekday() - target) % 7 or 7)
        elif which == "previous":  # the weekday of last week, like 上周三
            delta = target - today.weekday() - 7
        return _with_time(m, today + timedelta(days=delta))
    if name == "in":
        n = int(g["n1"] or g["n2"])
        unit = (g["u1"] or g["u2"]).lower()
        sign = 1 if g["n1"] else -1
        days = {"day": 1, "week": 7}.get(unit)
        if days:
            d = today + timedelta(days=sign * n * days)
        else:
            months = n * (12 if unit == "year" else 1) * sign
            y, mo = divmod(today.month - 1 + months, 12)
            d = safe_date(today.year + y, mo + 1, min(today.day, 28))
        return DateHit("date", m.start(), m.end(), d.isoformat()) if d else None
    if name == "dur":
        u = g["u"].lower()
        key = "mo" if u.startswith("mo") else "mi" if u.startswith("mi") else u[0]
        count = str(g["n"])
        code = _DUR[key]
        value = f"PT{count}{code}" if key in ("h", "mi", "s") else f"P{count}{code}"
        return DateHit("duration", m.start(), m.end(), value)
    if name == "aot":
        return _amount_of_time(m, ref)
    if name == "relp":
        which, unit = g["which"].lower(), g["u"].lower()
        shift = {"next": 1, "coming": 1, "upcoming": 1, "following": 1, "last": -1, "previous": -1, "prior": -1,
                 "past": -1}.get(which, 0)
        if unit == "fortnight":  # the two weeks from this Monday; next fortnight: the two after them
            monday = today - timedelta(days=today.weekday()) + timedelta(weeks=2 * shift)
            return DateHit("daterange", m.start(), m.end(), f"{monday.isoformat()}/{monday + timedelta(days=14)}")
        if g["work"]:  # this working week: Monday to Saturday
            monday = today - timedelta(days=today.weekday()) + timedelta(weeks=shift)
            return DateHit("daterange", m.start(), m.end(), f"{monday.isoformat()}/{monday + timedelta(days=5)}")
        return period_around(unit, shift, today, m.start(), m.end())
    if name == "set":
        pod = g["spod"] or g["spod2"] or g["ppod"] or g["ppod2"]  # every monday morning: R/XXXX-WXX-1TMO
        pod_code = {"mo": "TMO", "af": "TAF", "ev": "TEV", "ni": "TNI"}.get(pod[:2].lower(), "") if pod else ""
        if g["adv"]:
            code = {"daily": "P1D", "nightly": "P1D", "weekly": "P1W", "monthly": "P1M", "annually": "P1Y",
                    "yearly": "P1Y", "hourly": "PT1H", "quarterly": "P3M", "fortnightly": "P2W"}[g["adv"].lower()]
            if g["mult"]:  # bi-monthly: every two months; semi-annually: every half year
                digits = re.search(r"\d+", code)
                rate = int(digits.group()) * (2 if g["mult"].lower() == "bi" else 0.5) if digits else 1
                code = code.replace(digits.group() if digits else "1", f"{rate:g}")
        elif g["mult"]:
            return None
        elif g["swd"] or g["pwd"] or g["pwd2"]:
            code = f"XXXX-WXX-{WEEKDAYS[(g['swd'] or g['pwd'] or g['pwd2']).lower()] + 1}{pod_code}"
        elif g["spod"]:
            code = pod_code
        elif g["we"] or g["awe"]:  # every weekend, any weekend, every two weekends
            code = f"P{2 if g['other'] else _SMALL.get((g['k'] or '1').lower(), 0) or int(g['k'] or 1)}WE"
        elif g["halfh"]:
            code = "PT30M"
        elif g["everyday"]:
            code = "P1D"
        else:
            unit = (g["u"] or g["u2"] or g["au"]).lower()
            k = 2 if g["other"] else _SMALL.get((g["k"] or "1").lower(), 0) or int(g["k"] or 1)
            if unit in ("quarter", "fortnight"):  # every quarter: three months; every fortnight: two weeks
                k, unit = (3 * k, "month") if unit == "quarter" else (2 * k, "week")
            code = f"PT{k}{unit[0].upper()}" if unit in ("hour", "minute") else f"P{k}{unit[0].upper()}"
        return DateHit("set", m.start(), m.end(), f"R/{code}")
    if name == "off":  # three weeks from tomorrow, two days before yesterday
        n = _SMALL.get(g["n"].lower()) or int(g["n"]) if not g["n"].isdigit() else int(g["n"])
        base = today + timedelta(days={"today": 0, "now": 0, "tomorrow": 1, "yesterday": -1}[g["base"].lower()])
        sign = -1 if g["dir"].lower() == "before" else 1
        unit = g["u"].lower()
        if unit in ("day", "week"):
            d = base + timedelta(days=sign * n * (7 if unit == "week" else 1))
        else:
            d = add_months(base, sign * n * (12 if unit == "year" else 1))
        return DateHit("date", m.start(), m.end(), d.isoformat())
    if name == "bwd":  # a weekday alone: its next occurrence (today counts)
        delta = (WEEKDAYS[g["wd"].lower()] - today.weekday()) % 7
        return DateHit("date", m.start(), m.end(), (today + timedelta(days=delta)).isoformat())
    if name == "bmon":  # a month alone: that month of the reference year
        return DateHit("date", m.start(), m.end(), f"{today.year:04d}-{MONTHS[g['mon'].lower()]:02d}")
    if name == "pmon":  # after Feb, in May: a month named after a preposition
        if g["mon"].lower() in ("may", "mar") and re.match(r"\s+(?!(?:to|and|through|till|until|in|of)\b)[a-z]",
                                                          m.string[m.end():], re.IGNORECASE):
            return None  # "to mar it", "this may work": the verb
        return DateHit("date", m.start("mon"), m.end(), f"{today.year:04d}-{MONTHS[g['mon'].lower()]:02d}")
    if name == "mdr":  # november 19-20, april ninth through seventeenth, between 3 and 12 of sept, 1-15 june
        if g["d3"] and ((g["sep3"] or "").lower() == "and") != (g["pre"].lower() == "between"):
            return None  # "from 3 and 12 May" lists two days; "between" asks for "and"
        if g["and1"] and not g["pre1"]:
            return None  # "june 2 and 3" lists two days
        month = MONTHS[(g["mon"] or g["mon2"] or g["mon3"]).lower()]
        year = int(g["y"]) if g["y"] else today.year
        keys = ("d1", "d2") if g["mon"] else ("d5", "d6") if g["mon3"] else ("d3", "d4")
        first_day, last_day = (safe_date(year, month, _day_number(g[key])) for key in keys)
        if first_day is None or last_day is None or last_day <= first_day:
            return None
        return DateHit("daterange", m.start(), m.end(), f"{first_day.isoformat()}/{last_day.isoformat()}")
    if name == "yrng":
        a, b = int(g["a"]), int(g["b"])
        if b <= a:
            return None
        return DateHit("daterange", m.start(), m.end(), f"{a:04d}/{b:04d}")
    if name == "yr":
        return DateHit("date", m.start("y"), m.end("y"), g["y"])
    if name == "wyr":  # in nineteen eighty-four
        return DateHit("date", m.start("y"), m.end("y"), f"{year_value(g['y']):04d}")
    if name == "cent":  # the 15th century: 1400 up to 1500
        c = int(g["c"])
        return DateHit("daterange", m.start(), m.end(), f"{(c - 1) * 100:04d}/{c * 100:04d}")
    if name == "cy":  # cy 2008, cy18, calendar year 2008: that year
        cy: str = g["y"]
        return DateHit("date", m.start(), m.end(), cy if len(cy) == 4 else f"20{cy}")
    if name == "dec":  # the 1990s, the 90s, the nineties, the nineteen-eighties
        if g["word"]:
            tens = _DECADE_WORDS.index(g["word"].lower()) * 10 + 20
            century = 1800 if (g["cw"] or "").lower() == "eighteen" else 1900
            start = century + tens
        else:
            start = int(g["full"]) if g["full"] else (1900 if int(g["short"]) >= 30 else 2000) + int(g["short"])
        lo, hi = _DECADE_PARTS[(g["mod"] or "").lower()]
        return DateHit("daterange", m.start(), m.end(), f"{start + lo:04d}/{start + hi:04d}")
    if name == "isow":  # 2024-W23 (that ISO week), 2024-W23-3 (its Wednesday)
        try:
            monday = date.fromisocalendar(int(g["y"]), int(g["w"]), 1)
        except ValueError:
            return None
        if g["wd"]:
            return DateHit("date", m.start(), m.end(), (monday + timedelta(days=int(g["wd"]) - 1)).isoformat())
        return DateHit("daterange", m.start(), m.end(), f"{monday.isoformat()}/{monday + timedelta(days=7)}")
    if name == "mil":  # at 0800, at 1530 hrs: a four-digit clock time
        return DateHit("time", m.start(), m.end(), f"{int(g['h0'] or g['h1']):02d}:{g['m0'] or g['m1']}:00")
    if name == "clock":
        clock = _clock(m)
        return DateHit("time", m.start(), m.end(), clock) if clock else None
    if name in ("oclock", "at"):
        hour = _HOURS.get(g["th"].lower()) or int(g["th"])
        return DateHit("time", m.start(), m.end(), f"{hour:02d}:{int(g.get('tm') or 0):02d}:00")
    if name == "wclock":  # at nine thirty, two forty-five pm, march 18th nine thirty
        if not g["ap"] and not _CLOCK_CUE.search(m.string, max(0, m.start() - 30), m.start()):
            return None  # "nine thirty" alone is as often two counts
        hour = _HOURS[g["hw"].lower()]
        minute = CLOCK_MINUTES[re.sub(r"[ -]+", " ", g["mw"].lower())]
        ap = (g["ap"] or "").replace(".", "").lower()[:1]
        return DateHit("time", m.start(), m.end(), f"{_meridiem(hour, ap):02d}:{minute:02d}:00")
    if name == "lunch":  # before lunch: until 11; after lunch: from 13; at lunch: 11 to 13
        dinner = (g["w"] or "").lower().startswith("dinner")
        opened = (_DINNER_OPEN if dinner else _LUNCH_OPEN).get((g["pre"] or "").lower())
        start = m.start() if opened else m.start("w2" if g["w2"] else "w")
        return DateHit("timerange", start, m.end(), opened or ("18:00:00/20:00:00" if dinner else "11:00:00/13:00:00"))
    if name == "noon":
        word = re.sub(r"[\s-]", "", (g["w"] or g["ish"]).lower())
        hour = _MID_HOURS.get(word) or _HOURS.get(word) or int(word)
        return DateHit("time", m.start(), m.end(), f"{hour % 24:02d}:00:00")
    if name == "past":  # half past seven, a quarter to eight, 20 min past eight
        if g["dir"].lower() == "to" and g["mn"] and not g["unit"]:
            return None  # "two to four people" is a range of counts, not 3:58
        hour = _HOURS.get(g["hh"].lower()) or int(g["hh"])
        if g["ap"]:  # half past 3 pm
            hour = _meridiem(hour, g["ap"][0].lower())
        minutes = 30 if g["half"] else 15 if g["q"] else _MINUTES.get(g["mn"].lower()) or int(g["mn"])
        if g["dir"].lower() == "to":
            hour, minutes = (hour - 1) % 24, 60 - minutes
        return DateHit("time", m.start(), m.end(), f"{hour:02d}:{minutes:02d}:00")
    if name == "pod":
        return _part_of_day(m, today)
    if name == "wam":  # nine am, eleven p.m.
        hour = _meridiem(_HOURS[g["hw"].lower()], g["ap"][0].lower())
        return DateHit("time", m.start(), m.end(), f"{hour:02d}:00:00")
    if name == "bwda":  # Tue 3pm, on Thu: the next such weekday (today counts), as a weekday alone
        if g["listed"] is not None and _LISTED_WEEKDAY.search(m.string, max(0, m.start() - 24), m.start()) is None:
            return None  # "or Sun" after no weekday (and no "on", no clock time): the word, not the day
        short = g["wd"].lower()
        wd = next(i for full, i in WEEKDAYS.items() if full.startswith(short[:3]))
        return DateHit("date", m.start(), m.end(), (today + timedelta(days=(wd - today.weekday()) % 7)).isoformat())
    if name == "yq":  # next year's first quarter, last year's H2: that quarter or half of that year
        year = today.year + {"next": 1, "last": -1, "previous": -1}.get(g["rel"].lower(), 0)
        half = (g["qh"] or "").lower() == "half" or (g["hq"] or "").lower() == "h"
        months = 6 if half else 3
        ordinal = (g["ord"] or "").lower()
        k = int(g["n"]) if g["n"] else 12 // months if ordinal in ("last", "final") else _ORD.get(ordinal, 0)
        if not 1 <= k <= 12 // months:
            return None
        first = date(year, (k - 1) * months + 1, 1)
        return DateHit("daterange", m.start(), m.end(), f"{first.isoformat()}/{add_months(first, months).isoformat()}")
    if name == "nrng":
        return _counted_range(m, ref)
    if name == "nwk":  # next week Monday: that weekday of that week
        monday = today - timedelta(days=today.weekday())
        monday += timedelta(weeks={"next": 1, "last": -1}.get(g["which"].lower(), 0))
        return DateHit("date", m.start(), m.end(), (monday + timedelta(days=WEEKDAYS[g["wd"].lower()])).isoformat())
    if name == "wk":
        return _week(m, today)
    if name == "endof":  # end of the day, EOD, COB, close of business: the day's last second (parts of longer
        # periods, "the end of 2008", are dates_en_periods')
        # … of a named day: EOD friday, end of day tomorrow
        last_day = today + timedelta(days=1) if (g["rel"] or "").lower() == "tomorrow" else \
            today + timedelta(days=(WEEKDAYS[(g["wd"] or g["wd2"]).lower()] - today.weekday()) % 7) \
            if g["wd"] or g["wd2"] else today
        return DateHit("datetime", m.start(), m.end(), f"{last_day.isoformat()}T23:59:59")
    if name == "wdn":  # sunday 31: the nearest coming month whose 31st is a Sunday
        target, day = WEEKDAYS[g["wd"].lower()], int(g["d"])
        for k in range(0, 28):
            first = add_months(today.replace(day=1), k)
            d = safe_date(first.year, first.month, day)
            if d is not None and d.weekday() == target and (k or d >= today):
                return _with_time(m, d)
        return None
    if name == "md":  # on 6/4, friday 5/12: month/day after a word that announces a date; 11/20 alone
        if g["a2"] and day_first:
            return None  # Chinese text writes the day first: a bare 12/20 is left alone there
        month, day = int(g["a"] or g["a2"] or g["a3"]), int(g["b"] or g["b2"] or g["b3"])
        d = safe_date(today.year, month, day)
        if d is None and (month, day) == (2, 29):
            d = date(leap_year_from(today.year), 2, 29)  # the next leap day
        if d is not None and g["next"] and d <= today:
            d = safe_date(today.year + 1, month, day)  # next 5/12: the coming one
        start = m.start() if g["next"] else m.start("a") if g["a"] else m.start()
        return DateHit("date", start, m.end(), d.isoformat()) if d else None
    if name == "ndr":
        return _numeric_date_range(m, today, day_first)
    if name == "mtr":
        from_minute, to_minute = int(g["h1"]) * 60 + int(g["n1"]), int(g["h2"]) * 60 + int(g["n2"])
        if to_minute <= from_minute and to_minute < 12 * 60:
            to_minute += 12 * 60
        if to_minute >= 24 * 60:
            return None
        clocks = [f"{minutes // 60:02d}:{minutes % 60:02d}:00" for minutes in (from_minute, to_minute)]
        return DateHit("timerange", m.start(), m.end(), "/".join(clocks))
    if name == "decp":  # the next decade: 2020/2030 from 2016
        start = today.year // 10 * 10 + 10 * {"next": 1, "coming": 1, "last": -1, "previous": -1, "past": -1}.get(
            g["which"].lower(), 0)
        return DateHit("daterange", m.start(), m.end(), f"{start:04d}/{start + 10:04d}")
    if name == "trng":
        return _time_range(m)
    if name == "hwin":
        hour = _HOURS.get(g["th"].lower()) or int(g["th"])
        return DateHit("time", m.start(), m.end(), f"{hour:02d}:00:00")
    if name == "hpod":  # 5 in the afternoon, in the morning at 7
        word = (g["th"] or g["th0"]).lower()
        hour = _HOURS.get(word) or int(word)
        if POD_HOURS[(g["pod"] or g["pod0"]).lower()][0] >= 12 and hour < 12:
            hour += 12
        return DateHit("time", m.start(), m.end(), f"{hour:02d}:{int(g['tm'] or 0):02d}:00")
    if name == "now":
        return DateHit("datetime", m.start(), m.end(), ref.replace(microsecond=0).isoformat())
    if name == "todate":
        return DateHit("daterange", m.start(), m.end(), f"../{today.isoformat()}")
    if name == "mofy":
        month = _day_number(g["o"])
        year = int(g["y"]) if g["y"] else today.year + {"next": 1, "last": -1}.get((g["rel"] or "").lower(), 0)
        return DateHit("date", m.start(), m.end(), f"{year:04d}-{month:02d}") if 1 <= month <= 12 else None
    if name == "qtr":
        return _quarter(m, today)
    return None


#: The decades of a century in words, from the twenties: ``the nineties`` are 1990 up to 2000.
#: Early / mid / late of a decade as years from its start, [lo, hi): overlapping as the parts of a
#: month do (early 1st–15th, mid 10th–20th): early 0–3, mid 3–6, late 6–9 (the mid-2010s: 2013–2016).
_DECADE_PARTS = {"": (0, 10), "early": (0, 4), "mid": (3, 7), "late": (6, 10)}
_LUNCH_OPEN = {"before": "../11:00:00", "by": "../11:00:00", "until": "../11:00:00", "till": "../11:00:00",
               "after": "13:00:00/.."}
#: Dinner as the Recognizers-Text gold closes it (after dinner: from 20:00), and opens it at 18:00.
_DINNER_OPEN = {"before": "../18:00:00", "by": "../18:00:00", "until": "../18:00:00", "till": "../18:00:00",
                "after": "20:00:00/.."}
_MID_HOURS = {"noon": 12, "midday": 12, "midnight": 24, "midmorning": 10, "midafternoon": 14}
_DECADE_WORDS = ("twenties", "thirties", "forties", "fifties", "sixties", "seventies", "eighties", "nineties")
_UNIT_CODE = {"y": "Y", "mo": "M", "w": "W", "f": "W", "d": "D", "n": "D", "h": "H", "mi": "M", "s": "S"}


def _numeric_date_range(m: re.Match[str], today: date, day_first: bool) -> DateHit | None:
    """``5/1-5/7, 2020``, ``10/1-11/2/2017``, ``2/29-3/1``: the end's year is the start's too (a year earlier when the
    start's month comes after the end's); with no year at all, this year."""
    g = m.groupdict()
    if day_first or (g["s"] == "-" and not (g["y1"] and g["y2"])):
        return None  # Chinese text writes the day first; 5-1-5-7 is no pair of dates
    m1, d1, m2, d2 = int(g["m1"]), int(g["d1"]), int(g["m2"]), int(g["d2"])
    if not (g["pre"] or g["y1"] or g["y2"] or g["y3"] or max(d1, d2) > 12):
        return None  # 1/2-3/4 may be fractions: a year, "from" or a day past 12 says these are dates
    end_year = int(g["y2"] or g["y3"] or g["y1"] or today.year)
    if not (g["y1"] or g["y2"] or g["y3"]) and (m1, d1) == (2, 29):
        end_year = leap_year_from(today.year)  # the next leap day
    start_year = int(g["y1"]) if g["y1"] else end_year - ((m1, d1) > (m2, d2))
    start, end = safe_date(start_year, m1, d1), safe_date(end_year, m2, d2)
    if start is None or end is None or end < start:
        return None
    return DateHit("daterange", m.start(), m.end(), f"{start.isoformat()}/{end.isoformat()}")


def _amount_of_time(m: re.Match[str], ref: datetime) -> DateHit | None:
    """``two hours`` / ``3h`` / ``one and a half hours`` (a duration); with a direction it is a point in
    time: ``3 minutes from now``, ``in two months``, ``3 weeks later``, ``a fortnight ago``;
    ``within 2h`` is the window from now."""
    g = m.groupdict()
    if g["all"]:
        return DateHit("duration", m.start(), m.end(), f"P1{g['au'][0].upper()}")
    word = re.sub(r"\s+", " ", g["n"].lower())
    if word in ("a", "an") and g["u"].lower() == "second":
        return None  # "a second time" is an ordinal, not one second
    if word in ("a", "an") and g["u"].lower() == "night":
        return None  # "a night out" is an evening, not an amount of time
    n = float(COUNTS[word]) if word in COUNTS else float(g["n"])
    if g["fn"] and g["n"][0].isdigit():
        n += int(g["fn"]) / int(g["fd"])  # 1 1/2 hours, 2 and 3/4 years
    elif g["fn"]:
        return None
    if g["half1"] or (g["frac"] or "").lower() == "half":
        n += 0.5
    elif g["frac"]:
        n += 0.25
    u = g["u"].lower()
    if u.startswith("weekend"):  # three weekends: their days (two each), as the gold counts them; no point in time
        return None if g["dir"] or (g["pre"] or "").lower() in ("in", "within") else \
            DateHit("duration", m.start("n") if g["pre"] else m.start(), m.end(), f"P{2 * n:g}D")
    key = "mo" if u.startswith("mo") else "mi" if u.startswith("mi") else u[0]
    if key == "f":
        n *= 2
    count = f"{n:g}"
    pre = (g["pre"] or "").lower()
    direction = re.sub(r"\s+", " ", (g["dir"] or "").lower())
    if not direction and pre != "in" and pre != "within":
        start = m.start("n") if pre else m.start()
        value = f"PT{count}{_UNIT_CODE[key]}" if key in ("h", "mi", "s") else f"P{count}{_UNIT_CODE[key]}"
        return DateHit("duration", start, m.end(), value)
    if word in ("few", "a few", "couple of", "a couple", "a couple of") and pre == "in":
        return None  # "in a few days" names no day
    sign = -1 if direction in ("ago",) or direction.startswith("before") else 1
    base = ref
    for day, shift in (("tomorrow", 1), ("yesterday", -1)):
        if direction.endswith(day):
            base = ref.replace(hour=0, minute=0, second=0) + timedelta(days=shift)
    if direction.endswith("today"):
        base = ref.replace(hour=0, minute=0, second=0)
    if key in ("h", "mi", "s"):
        delta = timedelta(seconds=n * {"h": 3600, "mi": 60, "s": 1}[key])
        end = (base + sign * delta).replace(microsecond=0)
        if pre == "within":
            return DateHit("daterange", m.start(), m.end(), f"{base.isoformat()}/{end.isoformat()}")
        return DateHit("datetime", m.start(), m.end(), end.isoformat())
    if n != int(n):
        return None
    k = int(n)
    if key in ("d", "n", "w", "f"):
        d = base.date() + timedelta(days=sign * k * (1 if key in ("d", "n") else 7))
    else:
        d = add_months(base.date(), sign * k * (12 if key == "y" else 1))
    if pre == "within":
        lo, hi = sorted((base.date(), d))
        return DateHit("daterange", m.start(), m.end(), f"{lo.isoformat()}/{hi.isoformat()}")
    return DateHit("date", m.start(), m.end(), d.isoformat())


_DAY_BEFORE = re.compile(rf"(?:{WEEKDAY_ALT}|today|tomorrow|yesterday|tonight|morning|afternoon|evening)"
                         r"\s*(?:from\s*)?$", re.IGNORECASE)
_DAY_AFTER = re.compile(rf"\s*(?:on\s+|,\s*)?(?:{WEEKDAY_ALT}|today|tomorrow|yesterday|tonight|\d{{1,2}}/\d)",
                        re.IGNORECASE)


_ORD_WEEK = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4,
             "5th": 5}


def _week(m: re.Match[str], today: date) -> DateHit | None:
    """``week 10`` (ISO week of this year), ``the second week of 2021``, ``the last week of 2019``,
    ``the first week of jan 2015`` (counted from the week holding the month's first day; the last week of a
    month is the one holding its last day)."""
    g = m.groupdict()
    if g["n"]:
        year = int(g["y2"]) if g["y2"] else today.year
        try:
            monday = date.fromisocalendar(year, int(g["n"]), 1)
        except ValueError:
            return None
    else:
        # the first week of july: this year's
        year, ord_ = int(g["y"] or g["my"] or today.year), g["ord"].lower()
        if g["ry"] is not None or (not g["mon"] and g["y"] is None and "year" in m.group().lower()):
            year += {"next": 1, "following": 1, "last": -1, "previous": -1}.get((g["ry"] or "").lower(), 0)
        if g["mon"] or not (g["y"] or "year" in m.group().lower()):  # a named month, or the month
            shift = {"next": 1, "following": 1, "last": -1, "previous": -1}.get((g["rm"] or "").lower(), 0)
            first = date(year, MONTHS[g["mon"].lower()], 1) if g["mon"] else add_months(today.replace(day=1), shift)
            if ord_ == "last":  # the week holding the month's last day, as the first holds its first
                first = add_months(first, 1) - timedelta(days=1)
            monday = first - timedelta(days=first.weekday()) + timedelta(weeks=0 if ord_ == "last"
                                                                               else _ORD_WEEK[ord_] - 1)
        elif ord_ == "last":
            monday = date.fromisocalendar(year, date(year, 12, 28).isocalendar()[1], 1)
        else:
            monday = date.fromisocalendar(year, _ORD_WEEK[ord_], 1)
    return DateHit("daterange", m.start(), m.end(), f"{monday.isoformat()}/{(monday + timedelta(days=7)).isoformat()}")


def _shift(d: date, unit: str, k: int) -> date:
    """``d`` moved by ``k`` days, weeks, months or years."""
    if unit in ("day", "week"):
        return d + timedelta(days=k * (7 if unit == "week" else 1))
    return add_months(d, k * (12 if unit == "year" else 1))


def _counted_range(m: re.Match[str], ref: datetime) -> DateHit | None:
    """``next two days`` (from tomorrow), ``last 3 weeks`` (up to today), ``5 upcoming years``,
    ``last 2 quarters`` (whole quarters), ``last minute`` / ``next hour`` (from now)."""
    g = m.groupdict()
    direction = (g["dir"] or g["dir2"] or g["dir3"]).lower()
    word = re.sub(r"\s+", " ", (g["n"] or g["n2"] or "1").lower())
    n = COUNTS.get(word) if word in COUNTS else int(word)
    if n is None or n != int(n) or n <= 0:
        return None
    k = int(n)
    unit = re.sub(r"\s+", " ", (g["u"] or g["u2"] or g["u3"]).lower()).rstrip("s")
    future = direction in ("next", "upcoming", "coming", "following", "this")
    if unit in ("hour", "minute"):
        delta = timedelta(hours=k) if unit == "hour" else timedelta(minutes=k)
        now = ref.replace(second=0, microsecond=0)
        first, last = (now, now + delta) if future else (now - delta, now)
        return DateHit("daterange", m.start(), m.end(), f"{first.isoformat()}/{last.isoformat()}")
    today = ref.date()
    if unit.endswith(" day"):  # business / working days: weekdays only, today not counted
        return _business_days(m, today, k, future) if k <= 1000 else None
    if unit == "quarter":
        start = date(today.year, (today.month - 1) // 3 * 3 + 1, 1)
        lo, hi = (add_months(start, 3), add_months(start, 3 + 3 * k)) if future else (add_months(start, -3 * k), start)
        return DateHit("daterange", m.start(), m.end(), f"{lo.isoformat()}/{hi.isoformat()}")
    if future:
        lo = today + timedelta(days=1)
        hi = _shift(lo, unit, k)
    else:
        lo, hi = _shift(today, unit, -k), today
    return DateHit("daterange", m.start(), m.end(), f"{lo.isoformat()}/{hi.isoformat()}")


def _business_days(m: re.Match[str], today: date, k: int, future: bool) -> DateHit:
    """``the next 3 business days`` (the first three weekdays after today, up to the day after the
    last), ``the previous 4 working days`` (the four weekdays before today, up to today)."""
    step = 1 if future else -1
    days: list[date] = []
    d = today
    while len(days) < k:
        d += timedelta(days=step)
        if d.weekday() < 5:
            days.append(d)
    lo, hi = (days[0], days[-1] + timedelta(days=1)) if future else (days[-1], today)
    return DateHit("daterange", m.start(), m.end(), f"{lo.isoformat()}/{hi.isoformat()}")


def _time_range(m: re.Match[str]) -> DateHit | None:
    """``5 to 6pm``, ``from 3:30 to 5:55``, ``9.30-4.30pm``, ``between 5 and 6 in the afternoon``;
    bare hours (``11-4``, ``from 2 to 4``) only beside a day, else they are counts."""
    g = m.groupdict()
    sep = g["sep"].lower()
    between = (g["pre"] or "").lower().startswith("between")
    if (sep == "and" and not between) or (between and sep not in ("and", "-", "–", "to")):
        return None  # "between" asks for "and" (or a dash: between 4-5pm; or "to", as many write it); "and" alone lists
    marked = g["ap1"] or g["ap2"] or g["pod"] or g["m1"] or g["m2"]
    if not marked and not (_DAY_BEFORE.search(m.string, 0, m.start()) or _DAY_AFTER.match(m.string, m.end())):
        return None
    if sep == "-" and not marked and not _DAY_BEFORE.search(m.string, 0, m.start()):
        return None
    h1, h2 = (_HOURS.get(g[k].lower()) or int(g[k]) for k in ("h1", "h2"))
    ap1 = (g["ap1"] or "").replace(".", "").lower()[:1]
    ap2 = (g["ap2"] or "").replace(".", "").lower()[:1]
    if g["pod"] and POD_HOURS[g["pod"].lower()][0] >= 12:
        ap1 = ap1 or "p"
        ap2 = ap2 or "p"
    if ap2 and not ap1:
        # 2 to 4 pm: both afternoon; 11 to 1 pm or 2:30 to 2:15 pm: the start is before noon
        later = (h1 % 12, int(g["m1"] or 0)) <= (h2 % 12, int(g["m2"] or 0))
        ap1 = ap2 if later or h2 == 12 else ("a" if ap2 == "p" else "p")
    h1, h2 = _meridiem(h1, ap1), _meridiem(h2, ap2)
    if not ap2 and ap1 != "p" and h2 < h1 <= 12:
        h2 += 12  # 11-4, 8am-3: until three or four in the afternoon
    if h1 > 23 or h2 > 23:
        return None
    return DateHit("timerange", m.start(), m.end(),
                   f"{h1:02d}:{int(g['m1'] or 0):02d}:00/{h2:02d}:{int(g['m2'] or 0):02d}:00")


def _meridiem(hour: int, ap: str) -> int:
    if ap == "p" and hour < 12:
        return hour + 12
    if ap == "a" and hour == 12:
        return 0
    return hour


def _part_of_day(m: re.Match[str], today: date) -> DateHit | None:
    """``tomorrow night`` / ``this afternoon`` / ``tonight`` → that day's window; ``in the morning`` → hours."""
    g = m.groupdict()
    pod = "night" if g["tonight"] else g["pod"].lower()
    start, end = POD_HOURS[pod]
    early_late = (g["el"] or g["el2"] or "").lower()
    if early_late == "early":
        end = (start + end) // 2
    elif early_late in ("late", "later"):  # later in the afternoon: its second half, as late is
        start = (start + end) // 2
    clock = f"{start:02d}:00:00", ("23:59:59" if end == 24 else f"{end:02d}:00:00")
    bare = g["inthe"] is None and not (g["rel"] or g["wd"] or g["tonight"])
    if bare and re.match(r"\s+at\s+\d", m.string[m.end():]):
        return None  # early morning at 8:00: the clock time says when
    if g["inthe"] is not None or bare:  # in the morning, early morning
        return DateHit("timerange", m.start(), m.end(), f"{clock[0]}/{clock[1]}")
    rel = (g["rel"] or "today").lower()
    if g["wd"]:
        day = today + timedelta(days=(WEEKDAYS[g["wd"].lower()] - today.weekday()) % 7)
    else:
        day = today + timedelta(days={"tomorrow": 1, "next": 1, "yesterday": -1, "last": -1}.get(rel, 0))
    d = day.isoformat()
    return DateHit("daterange", m.start(), m.end(), f"{d}T{clock[0]}/{d}T{clock[1]}")


_ORD = {"first": 1, "second": 2, "third": 3, "fourth": 4, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4}


def _quarter(m: re.Match[str], today: date) -> DateHit:
    """``next quarter``, ``q1``, ``2017 q1``, ``q1-2019``, ``2019-h2``, ``the first half of 2019``."""
    g = m.groupdict()
    year, months = today.year, 3
    if g["rel"]:
        shift = {"next": 1, "coming": 1, "last": -1, "previous": -1}.get(g["rel"].lower(), 0)
        first = add_months(date(year, (today.month - 1) // 3 * 3 + 1, 1), 3 * shift)
    else:
        if (g["y2"] and g["hq"].lower() == "h") or g["h"] or (g["qh"] or "").lower() == "half":
            months = 6
        ordinal = (g["ord"] or "").lower()
        n = int(g["q"] or g["q2"] or g["h"] or 0) or (12 // months if ordinal in ("last", "final") else _ORD[ordinal])
        y = g["y"] or g["y2"] or g["y3"] or g["y4"] or g["y5"]
        if y:
            year = int(y)
        elif g["oy"] or g["qy"]:
            year += {"next": 1, "last": -1}.get((g["oy"] or g["qy"]).split()[0].lower(), 0)
        first = date(year, (n - 1) * months + 1, 1)
    return DateHit("daterange", m.start(), m.end(), f"{first.isoformat()}/{add_months(first, months).isoformat()}")


_POD_TAIL = re.compile(r"\s+in\s+the\s+(?P<pod>morning|afternoon|evening|night)\b", re.IGNORECASE)


def _with_time(m: re.Match[str], d: date | None) -> DateHit | None:
    if d is None:
        return None
    t = _clock(m)
    g = m.groupdict()
    if t is None and g.get("th") is not None and g.get("tm") is None \
            and re.search(r"\bat\s+$", m.string[m.start():m.start("th")], re.IGNORECASE) \
            and not re.match(r"\s*(?:[-–~]|to\b|until\b|till\b)", m.string[m.end():], re.IGNORECASE):
        t = f"{int(g['th']):02d}:00:00"  # friday 23 at 4: a bare hour after "at" follows a date
    if t is None:
        end = m.start("th") if m.groupdict().get("th") is not None else m.end()
        text_end = end
        while text_end > m.start() and m.string[text_end - 1] in " \t":
            text_end -= 1
        if m.string[m.start():text_end].lower().endswith(" at"):
            text_end -= 3
        return DateHit("date", m.start(), text_end, d.isoformat())
    pod = _POD_TAIL.match(m.string, m.end()) if not g.get("ap") else None
    if pod is not None:  # tomorrow at 7 in the evening: the hour falls in that part of the day
        hour = int(t[:2])
        if pod.group("pod").lower() != "morning" and hour < 12 and (hour >= 6 or pod.group("pod").lower() != "night"):
            t = f"{hour + 12:02d}{t[2:]}"
        return DateHit("datetime", m.start(), pod.end(), f"{d.isoformat()}T{t}")
    return DateHit("datetime", m.start(), m.end(), f"{d.isoformat()}T{t}")
