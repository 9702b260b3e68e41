"""Years written in words, as English says them: ``nineteen seventy-two``, ``eighteen oh five``,
``nineteen hundred``, ``two thousand``, ``two thousand and eight``, ``twenty twenty-one``.

A spoken year is read in two-digit halves (``nineteen | seventy-two``), which a cardinal reader
would take for two numbers (19 and 72), so it is its own small grammar. The date grammars put
:data:`WORDED_YEAR` where they accept a four-digit year and read the match with :func:`year_value`.
"""

from __future__ import annotations

import re

from .regexes import alternation

__all__ = ["WORDED_YEAR", "year_value"]

_UNITS = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
_TEENS = ["ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
          "nineteen"]
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
#: 1 … 99 in words (``seventy two`` spaced or hyphened), and ``oh five`` for 05.
_TWO_DIGITS = {**{w: i + 1 for i, w in enumerate(_UNITS)}, **{w: i + 10 for i, w in enumerate(_TEENS)}, **_TENS,
               **{f"{t} {u}": v + i + 1 for t, v in _TENS.items() for i, u in enumerate(_UNITS)}}
_OH = {f"oh {u}": i + 1 for i, u in enumerate(_UNITS)}
#: The first half of a spoken year: its century (``sixteen`` … ``twenty``).
_CENTURIES = {"sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20}
_PAIR_ALT = alternation(w.replace(" ", "[ -]") for w in (*_TWO_DIGITS, *_OH))
_TAIL_ALT = alternation(w.replace(" ", "[ -]") for w in _TWO_DIGITS)
#: A year in words: ``<century> <two digits | oh five | hundred>`` or ``two thousand [and] <1 … 99>``.
WORDED_YEAR = (rf"(?:(?:{alternation(_CENTURIES)})[ -](?:hundred|{_PAIR_ALT})"
               rf"|two[ -]thousand(?:(?:[ -]and)?[ -](?:{_TAIL_ALT}))?)\b"
               r"(?![ -]?(?:hundred|thousand|million|billion|point)\b)")
_SPLIT = re.compile(r"[\s-]+")


def year_value(text: str) -> int:
    """The year a match of :data:`WORDED_YEAR` (or four digits) names: ``nineteen seventy two`` → 1972."""
    if text.isdigit():
        return int(text)
    words = [w for w in _SPLIT.split(text.lower()) if w != "and"]
    if words[:2] == ["two", "thousand"]:
        return 2000 + (_TWO_DIGITS[" ".join(words[2:])] if words[2:] else 0)
    century, rest = _CENTURIES[words[0]], " ".join(words[1:])
    return century * 100 + (0 if rest == "hundred" else _OH.get(rest) or _TWO_DIGITS[rest])
