"""Percentages and rates: ``15%``, ``百分之十五``, ``千分之五``, ``12个百分点``, ``15 percent``, ``5 per cent``,
``2 percentage points``, ``150 basis points`` / ``150bps`` (1.5),
``八折`` / ``八五折`` (a price rate: 80 / 85) and ``七成`` (70).

The value is the percent number as a decimal string: ``15%`` → ``"15"``, ``千分之五`` → ``"0.5"``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from decimal import Decimal

from ._types import Entity, format_decimal
from .numbers import CN_DIGITS, CN_NUM_CHARS, DIGIT_VALUES, parse_number
from .numbers_en import WordNumber, find_word_numbers

__all__ = ["find_percent", "find_word_percent"]

# Bounded repetition everywhere: per start position the work is constant, so a scan stays linear
# even on adversarial input (a long run of digits and spaces).
_N = (rf"(?:(?<![0-9A-Za-z])[-+]|[负負])?(?<![0-9{CN_NUM_CHARS}点點.,])"
      rf"(?:[0-9{CN_NUM_CHARS}点點.,](?:[ ]{{0,3}}[0-9{CN_NUM_CHARS}点點.,]){{0,24}})[kK]?")
_SP = "[ ]{0,3}"
#: A fraction in digits before the unit: ``1/2%``, ``3/4 percent`` (a half and three quarters of one).
_DIGIT_FRACTION = r"(?<![\w./])\d{1,3}[ ]?/[ ]?[1-9]\d{0,2}(?![\d/])"
_FRACTION_PARTS = re.compile(r"(\d+)[ ]?/[ ]?(\d+)")
#: A decimal comma (``1,5%``, as most of Europe writes it): one or two decimals, so ``1,500%`` is grouped.
_DECIMAL_COMMA = re.compile(r"(-?\d+),(\d{1,2})")
_FRACTION: dict[str, Decimal] = {
    "百": Decimal(1), "佰": Decimal(1), "千": Decimal("0.1"), "仟": Decimal("0.1"), "万": Decimal("0.01"),
             "萬": Decimal("0.01"), "百万": Decimal("0.0001"), "百萬": Decimal("0.0001"),
             "万万": Decimal("0.000001"), "萬萬": Decimal("0.000001")}
PERCENT_RE = re.compile(
    rf"(?=[-+负負.0-9{CN_NUM_CHARS}对半])(?P<neg>[负負-])?(?P<of>百万|百萬|万万|萬萬|[百佰千仟万萬]){_SP}分{_SP}之{_SP}(?P<n1>{_N}|百)"
    rf"|(?P<n2>{_DIGIT_FRACTION}|{_N}){_SP}(?:%|[个個]{_SP}百{_SP}分{_SP}[点點]"
    r"|[ ]?(?:(?i:percentage[ ]points?|percentage|percents?|per[ -]?cent(?:um|s)?|pct)"
    r"|pc(?![ ]?(?:set|pack|kit|box|lot)\b)"
    r"|(?P<bp>(?i:basis[ ]points?)|(?<![A-Za-z])bps?))\b|[ ]?p\.c\.)"
    rf"|(?P<half>对折|半成)"
    rf"|(?P<n3>(?<![0-9{CN_DIGITS}十点點.])[0-9{CN_DIGITS}十](?:[ ]{{0,3}}[0-9{CN_DIGITS}点點.]){{0,6}})"
    rf"{_SP}(?P<unit>[折成])(?P<tail>{_SP}[{CN_DIGITS}])?"
)
_HAN = re.compile(r"[\u3400-\u9fff]")
_SKIP_CHENG = re.compile(r"成(?:为|功|本|立|交|年|员|就|绩|果|熟|长|都|品|分|人|型|全|效|事)")


def find_percent(text: str, folded: str) -> Iterator[Entity]:
    """Percent values; ``折``/``成`` only when the numeral reads as a rate (one or two digits)."""
    for m in PERCENT_RE.finditer(folded):
        value = _value(m, folded)
        if value is None:
            continue
        start, end = m.span()
        while end > start and folded[end - 1] == " ":
            end -= 1
        yield Entity("percent", text[start:end], start, end, format_decimal(value))


def _value(m: re.Match[str], folded: str) -> Decimal | None:
    if m.group("of"):
        n = Decimal(100) if m.group("n1") == "百" else parse_number(m.group("n1"))
        if n is None:
            return None
        n *= _FRACTION[m.group("of")]
        return -n if m.group("neg") else n
    if m.group("n2"):
        fraction = _FRACTION_PARTS.fullmatch(m.group("n2"))
        comma = _DECIMAL_COMMA.fullmatch(m.group("n2"))
        if fraction:
            n = Decimal(fraction.group(1)) / Decimal(fraction.group(2))
        elif comma and not _HAN.search(folded, max(0, m.start() - 1), m.start()):
            n = Decimal(f"{comma.group(1)}.{comma.group(2)}")
        else:
            n = parse_number(m.group("n2").replace("負", "负"))
        if n is not None and m.group("bp"):
            return n / 100  # 150 basis points: 1.5 percent
        return n
    if m.group("half"):
        return Decimal(50) if m.group("half") == "对折" else Decimal(5)
    if m.group("unit") == "成" and _SKIP_CHENG.match(folded, m.end("unit") - 1) and not m.group("tail"):
        return None
    return _rate(m.group("n3").replace(" ", ""), m.group("unit"), (m.group("tail") or "").strip())


def _rate(num: str, unit: str, tail: str) -> Decimal | None:
    """``八`` → 80, ``八五`` → 85, ``8.5``/``八点五`` → 85, ``七成六`` → 76, ``十成`` → 100."""
    if len(num) == 2 and all(ch.isdigit() or ch in DIGIT_VALUES for ch in num) and num[1] not in "0零〇":
        digits = [int(ch) if ch.isdigit() else DIGIT_VALUES[ch] for ch in num]
        value = Decimal(digits[0] * 10 + digits[1])
    else:
        n = parse_number(num)
        if n is None or n < 0 or n > 10 or (n == 10 and unit == "折"):
            return None
        value = n * 10
    if tail:
        value += DIGIT_VALUES.get(tail, 0)
    return value if 0 < value <= 100 else None


_WORD_PERCENT = re.compile(r"[ ]?(?:(?:of[ ]+)?an?[ ]+(?=per|pct))?"  # three quarters of a percent
                           r"(?:percentage[ ]points?|percentages?|percents?|per[ -]?cent(?:um|s)?|pct)\b",
                           re.IGNORECASE)
#: Half of one percent, which no number word reads alone: ``half a percent``, ``half of a per cent``.
_HALF_PERCENT = re.compile(r"\bhalf[ ]+(?:of[ ]+)?an?[ ]+(?:percentage[ ]point|percent|per[ -]?cent|pct)\b",
                           re.IGNORECASE)


_PERCENT_OF = re.compile(r"\b(?:percentages?|percents?|per[ ]cents?)[ ]+of[ ]+", re.IGNORECASE)
_DIGITS = re.compile(r"\d+(?:\.\d+)?(?![\d.])")


def find_word_percent(text: str, folded: str, words: Sequence[WordNumber] | None = None) -> Iterator[Entity]:
    """``fifteen percent``, ``minus five percent``, ``one hundred percents`` (English number words), and
    the rate named first: ``percent of 10``, ``a percentage of twelve``.

    ``words``: the text's word numbers when the caller has read them already.
    """
    if "per" not in folded.lower() and "pct" not in folded.lower():
        return
    if words is None:
        words = find_word_numbers(folded, lone_one=True)  # "one percent": no pronoun before "percent"
    for w in words:
        m = _WORD_PERCENT.match(folded, w.end)
        if m is not None and (w.value < 1 or not m.group().lstrip().startswith(("of", "a"))):
            yield Entity("percent", text[w.start:m.end()], w.start, m.end(), format_decimal(w.value))
    for h in _HALF_PERCENT.finditer(folded):
        yield Entity("percent", text[h.start():h.end()], h.start(), h.end(), "0.5")
    by_start = {w.start: w for w in words if not w.lone}
    counts_before = {w.end for w in words} | {d.end() for d in _DIGITS.finditer(folded)}
    for m in _PERCENT_OF.finditer(folded):
        if m.start() - 1 in counts_before or m.start() in counts_before:
            continue  # "2 percent of 2024": the rate is the 2, the 2024 is what it is a rate of
        rate = by_start.get(m.end())
        d = _DIGITS.match(folded, m.end())
        end, value = (rate.end, rate.value) if rate is not None else (d.end(), Decimal(d.group())) if d else (0, None)
        if value is not None:
            yield Entity("percent", text[m.start():end], m.start(), end, format_decimal(value))
