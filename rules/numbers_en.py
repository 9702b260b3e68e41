"""English numbers in words: ``one hundred and six``, ``twenty-one``, ``sixty five point four``,
``two thirds``, ``one hundred and three and two thirds``, ``negative one``, ``three dozen``.

The cardinals are read by text2num (a Rust parser; its ``find_numbers`` works on tokens, so the
words keep their character offsets here); this module adds what it leaves apart: fractions (a
cardinal and a plural ordinal, ``half``/``quarter``), signs and dozens. A lone ``one`` is a number
only where it counts (``one last time``, ``one of us``): after a determiner (``which one``, ``the only
one``) or an auxiliary (``how can one``), or before a modal, ``another`` or ``'s`` (``one should``,
``one another``), it is a pronoun.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from text_to_num import find_numbers as _t2n_find

from ._types import Entity, format_decimal
from .numbers import INDIAN_GROUPED

__all__ = ["SCALED_CHAIN_RE", "WordNumber", "find_word_number_entities", "find_word_numbers"]

#: A word token; ``ninety - five`` / ``five - eighths`` (a hyphen spaced out) is one word as ``ninety-five``.
_TOKEN = re.compile(r"[A-Za-z]+(?:[ ]?-[ ]?[A-Za-z]+)*|" + INDIAN_GROUPED
                    + r"|\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\S")
#: Cheap gate: the text has at least one English number word.
_ASCII_LETTER = re.compile(r"[A-Za-z]")
_HAS_WORD = re.compile(
    r"\b(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\w+teen|twenty|thirty|forty"
    r"|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|billion|trillion|lakh|crore|dozens?|half|quarter|over"
    r"|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|minus|negative|point)", re.I)
_DENOMINATORS = {"half": 2, "halves": 2, "quarter": 4, "quarters": 4}
#: Units of time and of play after "over N": ``5 over 3 years`` is an amount spread out, ``one over three``
#: a fraction.
_SPAN_UNITS = {f"{u}{s}" for u in ("second", "minute", "hour", "day", "week", "month", "quarter", "year", "decade",
                                   "period", "session", "season", "game", "round", "set", "term", "installment",
                                   "instalment", "payment", "visit", "night") for s in ("", "s")}
_SIGN = {"negative", "minus"}


@dataclass(frozen=True)
class WordNumber:
    """A number written in words: its character span and exact value."""

    start: int
    end: int
    value: Decimal
    #: A ``one`` standing alone: kept only for readers that want it (``one dollar``), see ``lone_one``.
    lone: bool = False


class _Token:
    """The token protocol text2num reads (``text`` only; nothing separates tokens but punctuation)."""

    __slots__ = ("word",)

    def __init__(self, word: str) -> None:
        self.word = word

    def text(self) -> str:
        return self.word

    def nt_separated(self, previous: object) -> bool:
        return False

    def not_a_number_part(self) -> bool:
        return False


def _decimal(text: str) -> Decimal | None:
    try:
        return Decimal(re.sub(r"(?:st|nd|rd|th)s?$", "", text))
    except InvalidOperation:
        return None


_ALIASES = {"nought": "zero", "naught": "zero", "-": ","}  # a lone hyphen ends a run of words
_DOZEN = {"dozen", "dozens", "doz", "dozs"}
_A = {"a", "an", "one"}
#: Digits with a scale word or suffix: 2 million, 1.2b, 2.33 k, 10 bln, 2mil, 1,674,200.5 M.
#: A scale word may be plural (``3 millions``, ``2 thousands``, ``5 lakhs``: as many writers outside
#: English-speaking countries use it); ``MM`` is finance's million (``5MM``: capitals only, ``5mm`` is a
#: length); ``doz`` / ``dz`` count dozens (``3 doz``). A ``G`` after digits is left alone: ``4G`` is a network
#: generation far more often than four billion.
SCALED_RE = re.compile(
    r"(?<![\w.,])(?P<n>" + INDIAN_GROUPED + r"|\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)[ ]?"
    r"(?P<s>(?i:(?:hundred|thousand|million|billion|trillion|crore|lakh)s?|mil|mln|bln|bn|tln|dozens?|doz|dz)"
    r"|MM|[kKMB]|(?<=\d)b)(?![\w])"
)
_NO_SCALE = r"[\w.,]|[ ]+(?i:hundred|thousand|million|billion)"
#: Digits with scale words in a chain: ``4 thousand 3 hundred and 21``, ``2 million 500 thousand``,
#: ``3 hundred and 21``.
SCALED_CHAIN_RE = re.compile(
    r"(?<![\w.,])\d{1,3}[ ]+(?i:thousand|million|billion)"
    r"(?:(?:[ ]+(?i:and[ ]+)?\d{1,3}[ ]+(?i:hundred|thousand|million))+"
    r"(?:[ ]+(?i:and[ ]+)?\d{1,3}(?!" + _NO_SCALE + r"))?"
    r"|[ ]+(?i:and)[ ]+\d{1,3}(?!" + _NO_SCALE + r"))"
    # A digit's hundreds and the rest after "and": 3 hundred and 21.
    r"|(?<![\w.,])\d[ ]+(?i:hundred)[ ]+(?i:and)[ ]+\d{1,2}(?!" + _NO_SCALE + r")"
)
#: Scale words a fraction after "and" is a part of (``two million and a half`` = 2,500,000, ``a dozen
#: and a half`` = 18); after ``hundred`` it is a part of one (``one hundred and three and two thirds``).
_BIG_SCALE = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12, "dozen": 12, "dozens": 12,
              "lakh": 10**5, "crore": 10**7}
#: Words that open a number with ``a``/``an`` before them standing for one (``a million``, ``a hundred and ten``).
_ARTICLE_SCALE = {"hundred", "thousand", "million", "billion", "trillion", "lakh", "crore"}
#: India's scales, which text2num does not know: ``five lakh`` (500,000), ``two crore`` (20,000,000).
_INDIAN_SCALE = {"lakh": 10**5, "lakhs": 10**5, "crore": 10**7, "crores": 10**7}
_CHAIN_PART = re.compile(r"(\d+)(?:[ ]+([a-z]+))?", re.IGNORECASE)
_SCALE = {"hundred": 10**2, "thousand": 10**3, "k": 10**3, "million": 10**6, "mil": 10**6, "mln": 10**6,
          "m": 10**6, "mm": 10**6, "billion": 10**9, "bln": 10**9, "bn": 10**9, "b": 10**9, "trillion": 10**12,
          "tln": 10**12, "crore": 10**7, "lakh": 10**5}
#: Scales read after digits only (``3 doz``), and plurals (``3 millions``): their value is the singular's.
_DIGIT_SCALE = {**_SCALE, **{f"{w}s": v for w, v in _SCALE.items() if len(w) > 3},
                "dozen": 12, "dozens": 12, "doz": 12, "dz": 12}


def _cardinals(words: list[str]) -> list[tuple[int, int, Decimal, bool]]:
    """text2num's occurrences as (first token, end token, value, is_ordinal), digit tokens added."""
    out: list[tuple[int, int, Decimal, bool]] = []
    for occ in _t2n_find([_Token(_ALIASES.get(w, w)) for w in words], "en", 0):
        value = _decimal(occ.text)
        if value is not None:
            # text2num reads "twenty-firsts" / "thirty-seconds" as cardinals: plural ordinals, denominators
            plural = occ.end - occ.start <= 2 and re.search(r"(?:\bfirsts|-seconds)$", words[occ.end - 1]) is not None
            out.append((occ.start, occ.end, value, bool(occ.is_ordinal) or plural))
    taken = {t for a, b, _, _ in out for t in range(a, b)}
    for t, w in enumerate(words):
        if w in _DOZEN and t > 0 and words[t - 1] in ("a", "an") and t - 1 not in taken:
            out.append((t - 1, t, Decimal(1), False))  # a dozen: one dozen
            continue
        if w == "trillion" and t not in taken and (t == 0 or words[t - 1] in ("a", "an")):
            out.append((t, t + 1, Decimal(10**12), False))  # a trillion
            continue
        if w in ("trillionth", "trillionths") and t not in taken:
            out.append((t, t + 1, Decimal(10**12), True))  # text2num stops at billionths
            continue
        if w in _INDIAN_SCALE and t not in taken and t > 0 and words[t - 1] in ("a", "an"):
            out.append((t, t + 1, Decimal(_INDIAN_SCALE[w]), False))  # a lakh
            continue
        if t not in taken and (w[0].isdecimal() or w in ("half", "quarter", "halves", "quarters")):
            if w[0].isdecimal():
                out.append((t, t + 1, Decimal(w.replace(",", "")), False))  # 1,234 (minus 1,234)
            else:  # a bare half / quarter: a denominator waiting for its numerator
                out.append((t, t + 1, Decimal(_DENOMINATORS[w]), True))
    return sorted(out)


_DENOMINATOR_TAIL = re.compile(r"[ ]?-[ ]?(?:[a-z]+ths?|thirds?|halves|halfs?|quarters?)$", re.IGNORECASE)


_TENS_VALUE = {w: 20 + 10 * k for k, w in enumerate(("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty",
                                                     "ninety"))}
_TENS = frozenset(_TENS_VALUE)
_DIGIT_WORDS = {"zero", "nought", "naught", "oh", "one", "two", "three", "four", "five", "six", "seven", "eight",
                "nine"}
_HYPHEN = re.compile(r"[ ]?-[ ]?")
_LETTERS = re.compile(r"[A-Za-z]+")


def _split_fraction_word(m: re.Match[str]) -> list[tuple[int, int]]:
    """``five-eighths`` is a numerator and a denominator (two tokens); ``twenty-one`` stays one;
    digits read one by one (``three-nought-four``) and a count joined to its unit (``one-yen``) are
    separate words."""
    if "-" not in m.group():
        return [m.span()]  # most tokens: nothing to split (the token pattern joins words only by a hyphen)
    parts = [(p.start(), p.end()) for p in _LETTERS.finditer(m.group())]
    tail = _DENOMINATOR_TAIL.search(m.group())
    if len(parts) > 1 and tail is None:  # two-thirds is a fraction, not a count joined to its unit
        names = [m.group()[a:b].lower() for a, b in parts]
        if all(n in _DIGIT_WORDS for n in names) or (names[0] in _DIGIT_WORDS and not _HAS_WORD.match(names[-1])):
            spans = [(m.start() + a, m.start() + b) for a, b in parts]
            hyphens = [(spans[i][1], spans[i + 1][0]) for i in range(len(spans) - 1)]  # keep them apart
            return sorted([*spans, *hyphens])
    if tail is None:
        return [m.span()]
    cut = m.start() + tail.start()
    rest = m.start() + tail.start() + tail.group().index("-") + 1
    while m.string[rest] == " ":
        rest += 1
    return [(m.start(), cut), (rest, m.end())]


#: Plural ordinals that are decimal places: before them, the ``and`` is the decimal point, as decimals are
#: read aloud (``two hundred and fifty-four hundredths`` is 200.54).
_DECIMAL_PLACES = {"tenths", "hundredths", "thousandths", "millionths"}


def _whole_and_numerator(words: list[str], *, decimal: bool = False) -> tuple[Decimal, Decimal, int] | None:
    """``twenty and three`` before a plural ordinal → (20, 3, 1): the ``and`` joins a whole and a
    fraction; ``two million and three`` → (2000000, 3, 1000000): a fraction of the scale that ends the whole.
    ``decimal``: the ordinal is a decimal place, so the numerator may be any size below it."""
    if "and" not in words:
        return None
    cut = len(words) - 1 - words[::-1].index("and")
    whole, numerator = _cardinals(words[:cut]), _cardinals(words[cut + 1:])
    if len(whole) != 1 or len(numerator) != 1 or whole[0][3] or numerator[0][3]:
        return None
    if whole[0][1] - whole[0][0] != cut or numerator[0][1] - numerator[0][0] != len(words) - cut - 1:
        return None
    unit = _BIG_SCALE.get(words[cut - 1], 1)
    if not decimal and ((whole[0][2] >= 1000 and unit == 1) or numerator[0][2] >= 20):
        return None  # "one thousand two hundred and three fifths": leave it to the plain reading
    return whole[0][2], numerator[0][2], unit


def _of_a_scale(words: list[str], j: int) -> bool:
    """``of a million`` / ``of a dozen`` starts at ``j``: a fraction before it is a fraction of the scale."""
    return words[j:j + 1] == ["of"] and words[j + 1:j + 2] in (["a"], ["an"]) and j + 2 < len(words) \
        and words[j + 2] in _BIG_SCALE


#: Ordinals of a scale: ``one hundredth`` is a fraction (1/100) as ``one fifth`` is, though text2num reads the
#: pair as one ordinal (100th).
_ROUND_ORDINALS = {"hundredth", "thousandth", "millionth", "billionth", "trillionth"}


def _numerator_inside(words: list[str]) -> Decimal | None:
    """``ninety-five hundred fifths`` read as one ordinal (9505th) → 9500 / 5: the cardinal before the
    plural ordinal word is its numerator; before a singular one it is ``one`` (``one millionth``)."""
    numerator, denominator = _cardinals(words[:-1]), _cardinals(words[-1:])
    if len(numerator) != 1 or numerator[0][:2] != (0, len(words) - 1) or numerator[0][3]:
        return None
    if not words[-1].endswith("s") and numerator[0][2] != 1:
        return None  # "one hundred fifth" is the 105th
    if len(denominator) != 1 or not denominator[0][3] or not denominator[0][2]:
        return None
    split = _whole_and_numerator(words[:-1], decimal=True)
    if split is not None and words[-1] in _DECIMAL_PLACES and split[1] < denominator[0][2]:
        return split[0] + split[1] / denominator[0][2]  # two hundred and fifty-four hundredths: 200.54
    compound = _compound_denominator(words[:-1], denominator[0][2]) if words[-1].endswith("s") else None
    if compound is not None:
        return compound[0] / compound[1]  # one hundred thirty fifths: 100 / 35
    return numerator[0][2] / denominator[0][2]


def _compound_denominator(numerator: list[str], unit: Decimal) -> tuple[Decimal, Decimal] | None:
    """The numerator and the denominator of ``numerator`` + a plural unit ordinal, when the ordinal is a
    compound spoken without its hyphen: an unhyphenated tens word before it joins it (``one hundred thirty
    fifths`` is 100 thirty-fifths, as ``twenty twenty fifths`` is 20/25; hyphened ``one hundred thirty-two
    fifths`` stays 132/5), and so does ``one hundred``/``one thousand`` (``one hundred one thousand
    fifths``: 100 over the 1005th). The words left must still read as one whole number, or the plain
    reading stands (``thirty fifths`` is 6)."""
    if not 1 <= unit < 10:
        return None
    if len(numerator) >= 2 and numerator[-1] in _TENS_VALUE:
        head, denominator = numerator[:-1], _TENS_VALUE[numerator[-1]] + unit
    elif len(numerator) >= 3 and numerator[-2] in _A and numerator[-1] in ("hundred", "thousand"):
        head, denominator = numerator[:-2], _SCALE[numerator[-1]] + unit
    else:
        return None
    whole = _cardinals(head)
    if len(whole) != 1 or whole[0][:2] != (0, len(head)) or whole[0][3]:
        return None
    return whole[0][2], Decimal(denominator)


def _indian_scaled(words: list[str], items: list[tuple[int, int, Decimal, bool]], value: Decimal, j: int,
                   k: int) -> tuple[Decimal, int, int]:
    """``value`` times the lakh or crore at ``j``, and a smaller count after it, as Indian English chains
    them: ``one crore twenty lakh`` (12,000,000), ``two lakh and fifty thousand`` (250,000)."""
    unit = _INDIAN_SCALE[words[j]]
    value, j = value * unit, j + 1
    if unit == 10**5 and j < len(words) and words[j] in ("crore", "crores"):
        unit, value, j = 10**12, value * 10**7, j + 1  # three lakh crore: a lakh of crores
    rest = items[k] if k < len(items) else None
    gap = 1 if j < len(words) and words[j] == "and" else 0
    if rest is not None and rest[0] == j + gap and not rest[3]:
        tail, end = rest[2], rest[1]
        if end < len(words) and words[end] in _INDIAN_SCALE and _INDIAN_SCALE[words[end]] < unit:
            tail, end = tail * _INDIAN_SCALE[words[end]], end + 1
        if tail < unit:
            value, j, k = value + tail, end, k + 1
    return value, j, k


def _chain_value(text: str) -> Decimal | None:
    """``4 thousand 3 hundred and 21`` → 4321; None unless each scale is smaller than the one before
    (``3 thousand 2 million`` is two numbers) and each count is below the scale above it."""
    total, last = 0, None
    for count, scale in _CHAIN_PART.findall(re.sub(r"(?i)\band\b", " ", text)):
        unit = _SCALE[scale.lower()] if scale else 1
        if last is not None and (unit >= last or int(count) * unit >= last):
            return None
        total, last = total + int(count) * unit, unit
    return Decimal(total)


def _more_decimals(words: list[str], items: list[tuple[int, int, Decimal, bool]], value: Decimal, j: int,
                   k: int) -> tuple[Decimal, int, int]:
    """``point seven five``: after the first decimal, further single digit words read one by one (each a
    place further right), as decimals are spoken; ``point seven and five`` stays two numbers."""
    places = len(str(value).split(".")[1]) if "." in str(value) else 0
    while k < len(items) and items[k][0] == j and items[k][1] == j + 1 and not items[k][3] \
            and items[k][2] < 10 and words[j] in _DIGIT_WORDS:
        places += 1
        value, j, k = value + items[k][2].scaleb(-places), j + 1, k + 1
    return value, j, k


def find_word_numbers(folded: str, *, lone_one: bool = False) -> list[WordNumber]:
    """Every number written (at least partly) in English words in ``folded``, as one span each.

    ``lone_one``: keep a ``one`` standing alone (money does: "one dollar", "and one cent").
    """
    if not _ASCII_LETTER.search(folded):
        return []  # every form needs a word or a scale letter (``3k``): Chinese text skips them all
    out = [WordNumber(m.start(), m.end(), Decimal(m.group("n").replace(",", "")) * _DIGIT_SCALE[m.group("s").lower()])
           for m in SCALED_RE.finditer(folded)]
    for m in SCALED_CHAIN_RE.finditer(folded):
        value = _chain_value(m.group())
        if value is not None:
            out.append(WordNumber(m.start(), m.end(), value))
    if not _HAS_WORD.search(folded):
        return out
    spans = [span for m in _TOKEN.finditer(folded) for span in _split_fraction_word(m)]
    words = [folded[a:b].lower().replace(" ", "") for a, b in spans]
    merged: list[tuple[int, int, Decimal]] = []
    items = _cardinals(words)
    k = 0
    while k < len(items):
        i, j, value, ordinal = items[k]
        k += 1
        if ordinal:
            prev = merged[-1] if merged else None
            if prev is not None and prev[1] == i and i - prev[0] > 2 and words[i - 2:i] == ["and", "one"] \
                    and not words[j - 1].endswith("s"):
                before = _cardinals(words[prev[0]:i - 2])  # one hundred seventy and one fourth: 170 + 1/4
                if len(before) == 1 and before[0][:2] == (0, i - 2 - prev[0]) and not before[0][3]:
                    merged.pop()
                    i, value = prev[0], before[0][2] + 1 / value
                else:
                    continue
            elif prev is not None and prev[1] == i and (words[j - 1].endswith("s") or prev[2] == 1):
                a, _, num = merged.pop()  # two thirds, one eighth
                places = words[j - 1] in _DECIMAL_PLACES
                split = _whole_and_numerator(words[a:i], decimal=places)
                if split is not None and places and split[1] >= value:
                    split = None  # "one and two hundred hundredths" names no decimal
                if split is not None:  # twenty and three fifths: 20 + 3/5, not 23/5
                    i, value = a, split[0] + (1 if places else split[2]) * split[1] / value
                else:
                    i, value = a, num / value
            elif i > 0 and words[i - 1] in ("a", "an") and value and words[i] not in ("first", "second"):
                i, value = i - 1, 1 / value  # a third, a half (not "a second": a moment, or the next one)
            elif j - i >= 2 and (words[j - 1].endswith("s") or words[j - 1] in _ROUND_ORDINALS) \
                    and (split_ordinal := _numerator_inside(words[i:j])):
                value = split_ordinal  # ninety - five hundred fifths: 9500 / 5, not a lone 9505th
            elif words[i] in ("half", "quarter") and j < len(words) and words[j] in _SCALE:
                pass  # half million: the scale word below takes it
            elif words[i] in ("half", "quarter") and _of_a_scale(words, j):
                value = 1 / value  # half of a million: "of a million" below scales it
            elif words[i] in ("half", "quarter") and words[j:j + 1] in (["a"], ["an"]) and j + 1 < len(words) \
                    and (words[j + 1] in _SCALE or words[j + 1] in _DOZEN):
                j += 1  # half a million: a half of the scale word below
                while k < len(items) and items[k][0] < j + 1:
                    k += 1  # "a million" read on its own is inside this one
            else:
                continue
            after_and = i > 0 and words[i - 1] == "and" and bool(merged) and merged[-1][1] == i - 1
            if (words[i] in ("half", "quarter") or (words[j - 1] in ("half", "quarter") and not after_and)) \
                    and j < len(words) and (words[j] in _SCALE or words[j] in _DOZEN):  # not "one and a half million"
                share = Decimal(1) / value if words[i] in ("half", "quarter") else value  # "a quarter": 1/4 already
                value, j = share * _SCALE.get(words[j], 12), j + 1  # half a million, a quarter million, half a dozen
        if not ordinal and words[i] in _SCALE and merged and merged[-1][:2] == (i - 1, i) \
                and words[i - 1][0].isdecimal() and value - _SCALE[words[i]] < _SCALE[words[i]]:
            a, _, count = merged.pop()  # 3 million and a half, 3 hundred and one: the digits count the scale
            i, value = a, count * _SCALE[words[i]] + value - _SCALE[words[i]]
        if not ordinal and i > 0 and words[i - 1] == "point" and value == int(value) and j - i == 1 \
                and not (merged and merged[-1][1] == i - 1):
            i, value = i - 1, Decimal("0." + str(int(value)))  # point five: a decimal with no whole part
        nxt = items[k] if k < len(items) else None
        if nxt is not None and j < len(words) and words[j] == "point" and nxt[0] == j + 1 and value == int(value) \
                and not nxt[3] and (nxt[1] - nxt[0] == 1 or (nxt[1] - nxt[0] == 2 and words[nxt[0]] in _TENS)):
            value, j = value + Decimal("0." + str(int(nxt[2]))), nxt[1]  # point seventy-one, point twenty five
            k += 1
        elif nxt is not None and not nxt[3] and nxt[2] and (
                (j < len(words) and words[j] == "over" and nxt[0] == j + 1
                 and (nxt[1] == len(words) or words[nxt[1]] not in _SPAN_UNITS))  # not "5 over 3 years"
                or (j + 1 < len(words) and words[j:j + 2] == ["out", "of"] and nxt[0] == j + 2)):
            value, j = value / nxt[2], nxt[1]  # one over three, two out of five hundred
            k += 1
        if "point" in words[i:j] and value != int(value):
            value, j, k = _more_decimals(words, items, value, j, k)  # point seven five
            if j < len(words) and words[j] in _SCALE and words[j] not in ("hundred", "k", "m", "b"):
                value, j = value * _SCALE[words[j]], j + 1  # one point two million
                while k < len(items) and items[k][0] < j:
                    k += 1  # the scale word read on its own is inside this one
        if j < len(words) and words[j] in _DENOMINATORS and not ordinal:
            denominator, split = _DENOMINATORS[words[j]], _whole_and_numerator(words[i:j])
            j += 1
            scale = _SCALE[words[j]] if j < len(words) and words[j] in _SCALE else None
            if split is not None:  # twenty and three quarters: 20 + 3/4, not 23/4
                whole, numerator, unit = split
                if scale is not None and scale < unit:
                    unit, j = scale, j + 1  # one billion and three quarters million: 1,000,750,000
                value = whole + unit * numerator / denominator
            else:
                value /= denominator  # three quarters
                if scale is not None:
                    value, j = value * scale, j + 1  # three quarters billion
        if j < len(words) and words[j] == "trillion" and not ordinal:  # text2num stops at billions
            value, j = value * 10**12, j + 1
            rest = items[k] if k < len(items) else None
            gap = 1 if j < len(words) and words[j] == "and" else 0
            if rest is not None and rest[0] == j + gap and not rest[3] and rest[2] < 10**12:
                value, j = value + rest[2], rest[1]
                k += 1
        if j < len(words) and words[j] in _INDIAN_SCALE and not ordinal \
                and not (0 < value < 1 and i > 0 and words[i - 1] == "and"):  # "two and a half lakh": below
            value, j, k = _indian_scaled(words, items, value, j, k)  # five lakh, one crore twenty lakh
        if j < len(words) and words[j] in _DOZEN:
            value, j = value * 12, j + 1
        if 0 < value < 1 and _of_a_scale(words, j):
            value, j = value * _BIG_SCALE[words[j + 2]], j + 3  # a quarter of a million, two-thirds of a billion
            while k < len(items) and items[k][0] < j:
                k += 1  # "a million" read on its own is inside this one
        if merged and merged[-1][1] + 1 == i and words[i - 1] == "and" and 0 < value < 1:
            a, end, whole = merged.pop()  # 103 and two thirds, one and a half
            i, value = a, whole + value * _BIG_SCALE.get(words[end - 1], 1)  # two million and a half
            scale_after = _BIG_SCALE.get(words[j]) if j < len(words) else None
            whole_scale = _BIG_SCALE.get(words[end - 1], 1)
            if scale_after is not None and (whole < 1000 or scale_after < whole_scale):
                if whole < 1000:
                    value *= scale_after  # one and a half million
                else:
                    value = whole + (value - whole) / whole_scale * scale_after  # one billion and a half million
                j += 1
                while k < len(items) and items[k][0] < j:
                    k += 1  # the scale word read on its own is inside this one
        if i > 0 and words[i - 1] in _SIGN and not (merged and merged[-1][1] == i - 1) \
                and not (i > 1 and words[i - 2][0].isdecimal()):
            i, value = i - 1, -value  # minus five, negative 3.5 (not "10 minus 3": a difference)
        elif i > 0 and words[i - 1] in ("a", "an") and words[i] in _ARTICLE_SCALE:
            i -= 1  # a million, a hundred and ten: the article is the count
        merged.append((i, j, value))
    for i, j, value in merged:
        if j - i == 1 and words[i][0].isdecimal():
            continue  # lone digits are find_numbers' own
        lone = j - i == 1 and words[i] == "one"  # as often a pronoun as a count
        if lone and not lone_one:
            continue
        out.append(WordNumber(spans[i][0], spans[j - 1][1], value, lone))
    return sorted(out, key=lambda w: w.start)


#: Words right before a ``one`` that make it a pronoun: ``this one``, ``which one``, ``no one``, ``my one``.
_DETERMINERS = frozenset({
    "the", "a", "an", "this", "that", "these", "those", "which", "whichever", "what", "each", "every", "any",
    "no", "some", "another", "such", "my", "your", "his", "her", "its", "our", "their", "whose",
})
#: Determiners that still make it a pronoun with one word between: ``the only one``, ``a new one``.
_DETERMINERS_APART = _DETERMINERS - {"that", "what", "no", "such"}  # "that is one", "what is one thing"
#: Words between such a determiner and ``one`` that are verbs, not adjectives: ``this is one``.
_LINKING_VERBS = frozenset({"is", "was", "are", "were", "be", "been", "has", "have", "had", "does", "do", "did",
                            "makes", "made", "gets", "got", "needs", "takes", "took", "gives", "gave"})
_MODALS = frozenset({"can", "could", "should", "would", "will", "must", "may", "might", "shall"})
#: Auxiliaries right before a ``one`` that make it their subject, a pronoun: ``how does one apply``,
#: ``why should one vote``.
_SUBJECT_AUXILIARIES = _MODALS | {"does", "did"}
#: Words right after a ``one`` that make it a pronoun: ``one should``, ``one another``, ``one's``.
_PRONOUN_FOLLOWERS = _MODALS | {"ought", "another", "'s", "’s"}
_WORDS_BEFORE = re.compile(r"(?:([A-Za-z]+)[ ]+)?([A-Za-z]+)[ ]+$")
_WORD_AFTER = re.compile(r"[ ]*('s|’s|[A-Za-z]+)")


def _numeral_one(folded: str, start: int, end: int) -> bool:
    """Whether the lone ``one`` at ``folded[start:end]`` counts rather than stands for a noun.

    It is a pronoun after a determiner (``that one is good``, ``the right one``) or an auxiliary whose
    subject it is (``how can one apply``), and before a modal, ``another`` or a possessive (``one can
    see``, ``one's own``). Anywhere else it is the numeral: ``one last time``, ``one of the best``.
    """
    before = _WORDS_BEFORE.search(folded, max(0, start - 40), start)
    if before:
        word, farther = before.group(2).lower(), (before.group(1) or "").lower()
        if word in _DETERMINERS or word in _SUBJECT_AUXILIARIES \
                or (farther in _DETERMINERS_APART and word not in _LINKING_VERBS):
            return False
    after = _WORD_AFTER.match(folded, end)
    return not (after and after.group(1).lower() in _PRONOUN_FOLLOWERS)


def find_word_number_entities(text: str, folded: str,
                              words: Sequence[WordNumber] | None = None) -> Iterator[Entity]:
    """:func:`find_word_numbers` as ``number`` entities (rounded to 15 places: ``two thirds``), a lone
    ``one`` only where it counts (:func:`_numeral_one`). ``words``: the text's word numbers when the
    caller has read them already."""
    for w in find_word_numbers(folded, lone_one=True) if words is None else words:
        if w.lone and not _numeral_one(folded, w.start, w.end):
            continue
        value = w.value.quantize(Decimal("1e-15")).normalize() if w.value != int(w.value) else w.value
        yield Entity("number", text[w.start:w.end], w.start, w.end, format_decimal(value))
