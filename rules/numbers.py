"""Numbers written in Arabic digits, Chinese numerals, financial capitals, or a mix of them.

``parse_number`` turns one numeral (``3万5千``, ``壹拾贰万``, ``1,200.50``, ``二〇二四``,
``两千四百五``, ``36.57亿``) into an exact :class:`~decimal.Decimal`; ``find_numbers`` finds them in
text. Written by hand because cn2an rejects mixed forms like ``3万5千`` in strict mode and
accepts nonsense in smart mode; the bench compares both.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation, localcontext
from functools import lru_cache

from ._types import DECIMALS, Entity, format_decimal
from .regexes import alternation

__all__ = ["CN_DIGITS", "CN_NUM_CHARS", "DOT_GROUPED", "INDIAN_GROUPED", "NUMBER_RE", "SPACE_GROUPED", "find_numbers",
           "find_ordinals", "parse_number"]

DIGIT_VALUES = {
    "零": 0, "〇": 0, "○": 0, "洞": 0,
    "一": 1, "壹": 1, "幺": 1, "二": 2, "贰": 2, "貳": 2, "两": 2, "兩": 2, "俩": 2,
    "三": 3, "叁": 3, "參": 3, "仨": 3, "四": 4, "肆": 4, "五": 5, "伍": 5, "六": 6, "陆": 6, "陸": 6,
    "七": 7, "柒": 7, "八": 8, "捌": 8, "九": 9, "玖": 9,
}
SMALL_UNITS = {"十": 10, "拾": 10, "百": 100, "佰": 100, "千": 1000, "仟": 1000}
BIG_UNITS = {"万": 10**4, "萬": 10**4, "亿": 10**8, "億": 10**8, "兆": 10**12}
APPROX = "余多几幾"  # 十多万, 五百余万: the round part is the value
POINT = "点點"
CN_DIGITS = "零〇○一壹二贰貳两兩三叁參四肆五伍六陆陸七柒八捌九玖"
CN_NUM_CHARS = CN_DIGITS + "十拾百佰千仟万萬亿億兆"
#: Thousands grouped by dots, as much of Europe writes them: two groups at least (``1.234.567``), so
#: ``1.234`` stays a decimal.
DOT_GROUPED = r"\d{1,3}(?:\.\d{3}){2,}(?![\d.])"
#: Lakhs and crores grouped as India writes them: the last three digits, then pairs (``1,00,000`` is one
#: lakh, ``12,34,56,789``). Only the full shape counts — pairs between a first group of one or two digits
#: and a final group of three — so ``1,234`` keeps its thousands comma and ``3,50`` stays apart.
INDIAN_GROUPED = r"\d{1,2}(?:,\d{2})+,\d{3}(?![\d]|,\d)(?:\.\d+)?"
#: Thousands grouped by spaces, as SI style and French write them (``40 000``, ``12 500 000``; a no-break or
#: thin space folds to a space). The first group has one or two digits, so a list of three-digit numbers
#: (``rooms 101 102``) and a run of four (``423 0000``) stay apart.
SPACE_GROUPED = r"\d{1,2}(?:[ ]\d{3})+(?![\d,]|[ ]\d)(?:\.\d+)?"
_ARABIC = rf"{DOT_GROUPED}|{INDIAN_GROUPED}|{SPACE_GROUPED}|\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?|\d+(?:\.\d+)?"
_SCI = r"\d+(?:\.\d+)?[eE][-+]?\d+(?![\w.])"
_CN = f"[{CN_NUM_CHARS}]"
_UNITS = "十拾百佰千仟万萬亿億兆"
# Chinese numerals may be spaced (两千 四 百 五) or carry an approximation before a unit (十多万).
_CN_RUN = rf"{_CN}+(?:(?:[ ]*[{APPROX}](?=[ ]*[{_UNITS}])|[ ]+)[ ]*{_CN}+)*"
#: One numeral: Arabic (with thousands separators) and/or Chinese parts, optional Chinese decimals.
_FRAC_PART = rf"(?:[{CN_NUM_CHARS}]+(?:[{POINT}][{CN_DIGITS}]+)?|\d+(?:\.\d+)?)"
_FRAC = rf"[ ]*分[ ]*之[ ]*[负負]?[ ]*{_FRAC_PART}"
#: A classifier after a digit makes it a count of its own: 1万一个月 is 1万 then 一个月, not 11000.
_COUNTED = "[个個次天年月期笔張张位件条份周]"
_TAIL = rf"(?:{_ARABIC}|[{CN_DIGITS}](?!{_COUNTED}))"
#: A minus spaced from its digits (``- 5``) is a sign where nothing before it could make it a dash: at the
#: start of a line or after ``(``, ``=`` or ``:`` (``3 - 5`` is a difference or a range).
_SPACED_MINUS = r"(?:(?<![^\n(\[=:])|(?<=[=:(] ))-[ ](?=\d)"
NUMBER_RE = re.compile(
    rf"(?=[-+负負.0-9{CN_NUM_CHARS}])(?:(?<![0-9A-Za-z])[-+]|[负負]|{_SPACED_MINUS})?(?:{_SCI}|(?<![\d.])\.\d+(?![\d.])"
    rf"|(?:(?:{_CN_RUN}|\d+)[ ]*又[ ]*)?(?:[{CN_NUM_CHARS}]+|\d+){_FRAC}"
    rf"|(?:{_ARABIC})(?:[ ]*[{APPROX}]?[ ]*[{_UNITS}](?:[ ]*零?{_TAIL})?){{0,8}}[kKmMwW]?(?!\.?\d)"
    rf"|{_CN_RUN}(?:[ ]*[{POINT}][ ]*[{CN_DIGITS}](?:[ ]*[{CN_DIGITS}])*)?)"
)
_FRACTION = re.compile(r"^(?P<whole>.*?)又?(?P<den>[^又]+?)分之(?P<num>.+)$")
# Words that contain a numeral character but are not quantities.
_NOT_NUMBERS = (
    "一切", "一些", "一起", "一样", "一般", "一直", "一定", "一旦", "一致", "一向", "一再", "一边", "一度",
    "一律", "一同", "一面", "一下", "一点", "一会", "一番", "一带", "一概", "一行", "一共", "万一", "统一",
    "唯一", "之一", "千万", "万分", "十分", "百分", "一方", "一经", "一并", "第一", "同一", "单一", "一贯",
    "乙方", "甲方", "三方", "双方", "一切", "九州", "五金", "八卦", "千克", "一旦", "万物", "万岁",
    # idioms and verb phrases: 十足 (fully), 两两 (in pairs), 一看就 (at a glance)
    "十足", "两两", "兩兩", "一看",
)
#: Financial capitals that are also everyday characters (队伍 / 退伍, 放肆, 拾起 / 收拾, 大陆): alone, with
#: no other numeral beside them, they are part of a word. Amounts write them in runs (伍拾万, 陆仟).
#: The other capitals (壹, 贰, 叁, 柒 …) are numerals wherever they stand and stay numbers alone.
_LONE_CAPITALS = frozenset("伍肆拾陆陸")
_STOP_RE = re.compile("(?=(" + alternation(set(_NOT_NUMBERS)) + "))")
_SUFFIX_MULT = {"k": 1000, "K": 1000, "m": 10**6, "M": 10**6, "w": 10**4, "W": 10**4}
_TOKEN = re.compile(rf"{_ARABIC}|[{CN_DIGITS}]|[{_UNITS}]|[{POINT}]")


@lru_cache(maxsize=4096)
def parse_number(text: str) -> Decimal | None:
    """Exact value of one numeral, or ``None`` when ``text`` is not a well-formed numeral (the same
    whatever the caller's decimal context: it is cached)."""
    with localcontext(DECIMALS):
        return _parse_number(text)


def _parse_number(text: str) -> Decimal | None:
    s = text.strip().replace(" ", "")
    if not s:
        return None
    if "分之" in s:
        return _parse_fraction(s)
    if re.fullmatch(_SCI, s.lstrip("-+")) or re.fullmatch(r"[-+]?\.\d+", s):
        try:
            return Decimal(s)
        except InvalidOperation:
            return None
    for ch in APPROX:
        s = s.replace(ch, "")
    sign = 1
    if s[0] in "-负負":
        sign, s = -1, s[1:]
    elif s[0] == "+":
        s = s[1:]
    mult = 1
    if s and s[-1] in _SUFFIX_MULT:
        mult, s = _SUFFIX_MULT[s[-1]], s[:-1]
    if not s:
        return None
    try:
        value = _parse_unsigned(s)
    except (InvalidOperation, ValueError, KeyError):
        return None
    return None if value is None else sign * value * mult


def _parse_fraction(s: str) -> Decimal | None:
    """``五分之一`` → 0.2, ``3又一千分之23`` → 3.023, ``负一又二分之一`` → -1.5 (15 significant digits)."""
    sign = 1
    if s[0] in "-负負":
        sign, s = -1, s[1:]
    m = _FRACTION.match(s)
    if not m:
        return None
    whole_text = m.group("whole")
    den = parse_number(m.group("den"))
    num = parse_number(m.group("num"))
    whole = parse_number(whole_text) if whole_text else Decimal(0)
    if den is None or num is None or whole is None or den == 0:
        return None
    if whole_text and "又" not in s:
        return None
    value = whole + num / den
    return sign * Decimal(format(value, ".15g"))


def _parse_unsigned(s: str) -> Decimal | None:
    if re.fullmatch(DOT_GROUPED, s):
        return Decimal(s.replace(".", ""))
    if re.fullmatch(_ARABIC, s):
        return Decimal(s.replace(",", ""))
    frac = ""
    for p in POINT:
        if p in s:
            s, frac = s.split(p, 1)
            if not frac or any(ch not in DIGIT_VALUES for ch in frac):
                return None
            frac = "".join(str(DIGIT_VALUES[ch]) for ch in frac)
            break
    integer = _parse_integer(s) if s else Decimal(0)
    if integer is None:
        return None
    return integer + (Decimal("0." + frac) if frac else 0)


def _parse_integer(s: str) -> Decimal | None:
    tokens = _TOKEN.findall(s)
    if "".join(tokens) != s:
        return None
    if all(t in DIGIT_VALUES for t in tokens) and len(tokens) > 1:  # 二〇二四: digit by digit
        return Decimal("".join(str(DIGIT_VALUES[t]) for t in tokens))
    high = total = wan = section = Decimal(0)  # 兆 / 亿 / 万 levels
    num: Decimal | None = None
    last_unit = 0  # value of the unit just before a trailing bare digit (两千四百五 → 50)
    zero_seen = False
    for tok in tokens:
        if tok in DIGIT_VALUES:
            digit = DIGIT_VALUES[tok]
            if digit == 0:
                zero_seen, num = True, None
                continue
            num = Decimal(digit) if num is None or last_unit else num * 10 + digit
            if num is not None and last_unit and zero_seen:
                last_unit = 0
        elif tok in SMALL_UNITS:
            unit = SMALL_UNITS[tok]
            section += (num if num is not None else Decimal(1)) * unit
            num, last_unit, zero_seen = None, unit, False
        elif tok in BIG_UNITS:
            unit = BIG_UNITS[tok]
            if unit == 10**4:
                wan = (wan + section + (num or 0)) * unit if wan and not section and num is None \
                    else wan + (section + (num or 0)) * unit
            elif unit == 10**8:
                total = (total + wan + section + (num or 0)) * unit
                wan = Decimal(0)
            else:
                high += (total + wan + section + (num or 0)) * unit
                total = wan = Decimal(0)
            section, num, last_unit, zero_seen = Decimal(0), None, unit, False
        else:  # an Arabic run inside a mixed numeral: 3万5千, 36.57亿
            num = Decimal(tok.replace(",", ""))
            last_unit, zero_seen = 0, True  # "3万5" is not shorthand for 3万5千 in writing
    if num is not None and last_unit >= 10 and not zero_seen:
        num *= Decimal(last_unit) / 10  # 两千四百五 = 2450, 一万五 = 15000
    return high + total + wan + section + (num or 0)


def find_numbers(text: str, folded: str) -> Iterator[Entity]:
    """Numerals in ``folded`` (see :func:`fold`); skips words like 一切, 统一 that only look numeric."""
    stops: list[tuple[int, int]] | None = None
    for m in NUMBER_RE.finditer(folded):
        start, end = m.span()
        raw = m.group()
        if end - start <= 2 and stops is None:
            stops = [w.span(1) for w in _STOP_RE.finditer(folded)]
        if end - start <= 2 and _inside_word(stops or [], start, end):
            continue
        if raw in _LONE_CAPITALS or raw in BIG_UNITS:
            continue  # 退伍, 拾起; a 万 with no count before it is no number
        if raw[-1] in "kKmMwW" and _letter_after(folded, end):
            # 4kg, 2mm, 320kbps: the letter starts a unit, not a multiplier; the count is the digits.
            raw, end = raw[:-1], end - 1
            if not raw:
                continue
        value = parse_number(raw)
        if value is None:
            if raw[0] in "-+负負" and len(raw) > 1:
                value, start = parse_number(raw[1:]), start + 1
            if value is None:
                continue
        yield Entity("number", text[start:end], start, end, format_decimal(value))


def _letter_after(folded: str, end: int) -> bool:
    return end < len(folded) and folded[end].isalpha()


def _inside_word(stops: list[tuple[int, int]], start: int, end: int) -> bool:
    """True when the whole match lies inside a word like 一切 or 千万 (so 两千万 is still a number).

    ``stops`` is sorted by start and its words are at most 3 characters long, so only the few
    stops starting just before ``start`` can contain the match (bisect, not a scan).
    """
    i = bisect.bisect_right(stops, (start, 1 << 62))
    return any(a <= start and b >= end for a, b in stops[max(0, i - 4):i])


# Ordinals only where they name an item (第3期, 第十二条, 3rd) or stand alone before a pause or the
# end (他考了第三。; not before a list's next number, 第1,3条): "第一次" / "第三方" / "first" are too
# often plain words, and the semantic cache compares these values between paraphrases.
ORDINAL_RE = re.compile(
    rf"第[ ]{{0,2}}(?P<zh>\d{{1,9}}|[{CN_NUM_CHARS}]{{1,12}})"
    r"(?=[ ]{0,2}(?:期|条|款|项|章|节|页|季度|批|笔|号|部分|阶段|轮|届|名|位|栋|层|单元)"
    rf"|[ ]{{0,2}}(?:$|\n|\.(?!\d)|[，、,](?![ ]?[\d{CN_NUM_CHARS}])|[。；：！？;:!?)）」』】\]\"'”’]))"
    r"|(?<![\w.])(?P<en>\d{1,9})(?:st|nd|rd|th)\b",
    re.IGNORECASE,
)


def find_ordinals(text: str, folded: str) -> Iterator[Entity]:
    """``第3期`` / ``第十二条`` / ``3rd`` → ordinal ``"3"`` / ``"12"`` / ``"3"``."""
    for m in ORDINAL_RE.finditer(folded):
        value = parse_number(m.group("zh") or m.group("en"))
        if value is None or value != value.to_integral_value() or value <= 0:
            continue
        yield Entity("ordinal", text[m.start():m.end()], m.start(), m.end(), format_decimal(value))


# Numeric forms the plain numeral grammar leaves in pieces: powers (``2^-1``, ``-1.1^+23``), mixed and
# bare fractions in digits (``1 3/5``, ``1 and 1/2``, ``minus 1/2``, ``3/4 of a million``, ``1/2的努力``,
# ``1/4 of the cake``; see :func:`_bare_fraction`) and dozens
# (``一打``, ``十打``; ``打开`` / ``打八折`` are verbs).
_SIGNED = r"[-+]?\d+(?:\.\d+)?"
POWER_RE = re.compile(rf"(?<![\w.^])(?P<b>{_SIGNED})\^(?P<e>[-+]{{0,2}}\d{{1,3}})(?![\d.])")
FRACTION_RE = re.compile(
    r"(?<![0-9A-Za-z./])(?P<sign>(?<![\w-])-[ ]?|(?<![\w-])(?i:minus|negative)[ ]+)?"
    r"(?:(?P<w>\d{1,9})[ ]+(?:(?i:and)[ ]+)?)?(?P<n>\d{1,9})[ ]?[/⁄][ ]?(?P<d>\d{1,9})"
    # a fraction of a scale (3/4 of a million, 3/4 million), or a whole and a fraction before one (1 1/2 million)
    r"(?:[ ]+(?i:of)[ ]+(?i:an?)[ ]+(?P<scale>(?i:thousand|million|billion|trillion|dozen))\b"
    r"|[ ]+(?P<scale2>(?i:thousand|million|billion|trillion|dozen))\b)?"
    r"(?![0-9A-Za-z./⁄])"
)
_FRACTION_SCALE = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12, "dozen": 12}
#: Scientific notation written out: ``6.23x10^-4``, ``1.3 × 10^6``.
SCIENTIFIC_RE = re.compile(r"(?<![\w.])(?P<m>[-+]?\d+(?:\.\d+)?)[ ]?[x×*][ ]?10\^(?P<e>[-+]?\d{1,3})(?![\d.])")
#: A decimal comma, as most of Europe writes decimals: ``1,3``, ``-0,5``. One decimal only: ``1,234``
#: keeps its thousands comma, ``pages 3,50 and 7`` stays a list (two decimals are read beside a
#: currency or a percent sign only, see ``money`` and ``percent``), ``1,3,5`` is a list. Not in
#: Chinese text either, where ``第1,3条`` lists two items.
DECIMAL_COMMA_RE = re.compile(r"(?<![\w.,])(?P<sign>-)?(?P<w>\d{1,9}),(?P<f>\d)(?!\w|[.,]\d)")
_HAN = re.compile(r"[\u3400-\u9fff]")
#: Vulgar fraction characters, alone or after a whole number: ``¾``, ``2½``.
VULGAR_RE = re.compile(r"(?<![\d.])(?:(?P<w>\d{1,9})[ ]?)?(?P<v>[¼½¾⅐⅑⅒⅓⅔⅕⅖⅗⅘⅙⅚⅛⅜⅝⅞])")
DOZEN_RE = re.compile(rf"(?P<n>\d{{1,4}}|[{CN_NUM_CHARS}]{{1,6}})打(?![开開算扰擾电電印折车車球工架扫掃包卡针針])")


def _bare_fraction(num: int, den: int) -> bool:
    """``1/4``, ``3/8``, ``2/3`` alone are fractions: a proper one (numerator below denominator) with
    no whole part or sign. An improper one (``12/1``, ``11/3``) is as often a day, a score or a version,
    and ``3/2024`` is a month and its year. Where a date grammar reads the same span (``on 1/4``,
    ``6/15``) the date wins the tie (``find_entities`` precedence)."""
    return num < den and not 1900 <= den <= 2099


def find_number_forms(text: str, folded: str) -> Iterator[Entity]:
    """Powers, digit fractions, decimal commas and dozens as one number each (``1 4/3`` → 2.333…)."""
    if "^" in folded:
        for m in SCIENTIFIC_RE.finditer(folded):
            try:
                value = Decimal(m.group("m")).scaleb(int(m.group("e")))
            except (ArithmeticError, ValueError):
                continue
            yield Entity("number", text[m.start():m.end()], m.start(), m.end(), format_decimal(value.normalize()))
        for m in POWER_RE.finditer(folded):
            base, exp = Decimal(m.group("b")), m.group("e")
            power = int(exp.lstrip("+-")) * (-1 if exp.count("-") % 2 else 1)
            if base == 0 and power <= 0:  # 0^0 and 0^-n are undefined
                continue
            try:  # 15 significant digits, as a float-precision reading would give
                value = Decimal(f"{abs(base) ** power:.15g}") * (-1 if base < 0 else 1)
            except (ArithmeticError, ValueError):
                continue
            yield Entity("number", text[m.start():m.end()], m.start(), m.end(), format_decimal(value))
    if "/" in folded or "⁄" in folded:
        for m in FRACTION_RE.finditer(folded):
            whole, num, den = m.group("w"), int(m.group("n")), int(m.group("d"))
            if den == 0 or not (whole or m.group("sign") or _bare_fraction(num, den)):
                continue
            value = Decimal(int(whole or 0)) + Decimal(int(m.group("n"))) / Decimal(den)
            scale = m.group("scale") or m.group("scale2")
            if scale:
                value *= _FRACTION_SCALE[scale.lower()]
            if m.group("sign"):
                value = -value  # - 1 4/5, minus 1/2
            yield Entity("number", text[m.start():m.end()], m.start(), m.end(), format_decimal(value.normalize()))
    if "," in folded:
        for m in DECIMAL_COMMA_RE.finditer(folded):
            if _HAN.match(folded, max(0, m.start() - 1)) or _HAN.match(folded, m.end()):
                continue
            value = Decimal(f"{m.group('w')}.{m.group('f')}")
            yield Entity("number", text[m.start():m.end()], m.start(), m.end(),
                         format_decimal(-value if m.group("sign") else value))
    for m in VULGAR_RE.finditer(folded):
        value = Decimal(int(m.group("w") or 0)) + Decimal(str(unicodedata.numeric(m.group("v"))))
        value = value.quantize(Decimal("1e-15")).normalize()
        yield Entity("number", text[m.start():m.end()], m.start(), m.end(), format_decimal(value))
    if "打" in folded:
        for m in DOZEN_RE.finditer(folded):
            n = parse_number(m.group("n"))
            if n is not None and n > 0:
                yield Entity("number", text[m.start():m.end()], m.start(), m.end(), format_decimal(n * 12))
