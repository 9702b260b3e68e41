"""Fixed-shape entities: phone numbers, emails, URLs, Chinese resident ID numbers and order/ID codes.

Phone values are digits with a leading ``+`` when a country code was written; Chinese mobiles are
always ``+86…`` so ``138 1234 5678`` and ``+86-13812345678`` compare equal. ID numbers must pass the
GB 11643 checksum.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ._types import Entity

__all__ = ["find_patterns", "id_card_valid"]

_SEP = r"[ \-./]{1,3}"
PHONE_RE = re.compile(
    r"(?<![0-9A-Za-z+./_])(?<![0-9A-Za-z]-)"  # "#-(123) 456-7890" is a phone; "12-345", "91a-677" are not
    r"(?:\(\+?\d{1,4}\)[ \-]{0,2}|\+\d{1,4}(?:[ \-]{0,2}\(0\))?[ \-/]{0,2})?"
    r"(?:\(\d{1,5}\)[ \-.]{0,2})?"
    r"\d+(?:(?:[ \-./]{1,3}|[ \-]?\(\d{1,4}\)[ \-]?)\d+)*"
    r"(?:[ ]?(?:ext\.?|[xX]|转)[ ]?\d{1,6})?"
    r"(?![0-9A-Za-z]|\.\d|/\d|-\d)"
)
_PHONE_CUE = re.compile(r"(?:电话|手机|热线|传真|座机|tel|phone|fax|mobile)[^\n]{0,4}$", re.IGNORECASE)
_EXT = re.compile(r"\s?(?:ext\.?|[xX]|转)\s?")
_DATE_SHAPE = re.compile(
    r"^(?:\d{4}[/.\-](?:0?[1-9]|1[0-2])[/.\-](?:0?[1-9]|[12]\d|3[01])"
    r"|(?:0?[1-9]|[12]\d|3[01])[/.\-](?:0?[1-9]|1[0-2])[/.\-](?:\d{2}|\d{4}))$"
)
#: Digits of the longest number dialled within a country (Chinese landlines with the trunk 0: 0xxx-xxxxxxxx).
_LONGEST_NATIONAL = 12
_CN_MOBILE_GROUPS = ([11], [13], [15], [3, 4, 4], [3, 8], [2, 11], [4, 11], [2, 3, 4, 4], [4, 3, 4, 4])
_CN_MOBILE = re.compile(r"^(?:0086|86)?(1[3-9]\d{9})$")
EMAIL_RE = re.compile(r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}")
URL_RE = re.compile(r"\b(?:https?://|www\.)[^\s<>\"'，。；、）》」】\u3000]+", re.IGNORECASE)
ID_CARD_RE = re.compile(
    r"(?<![0-9A-Za-z])[1-9]\d{5}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx](?![0-9A-Za-z])"
)
ORDER_RE = re.compile(
    r"(?:(?<![A-Za-z])(?:order|invoice|ticket|case|ref(?:erence)?|tracking|booking|contract|po)|订单|訂單|单号|單號|编号|編號|"
    r"合同号|发票号|運單|运单|快递单|工单|流水号|交易号|申请号)"
    r"[ \t]*(?:no\.?|number|num|#|id|号|號|编号)?[ \t]*[:：#]?[ \t]*"
    r"(?P<id>[A-Za-z0-9][A-Za-z0-9\-_/]{2,40})",
    re.IGNORECASE,
)
CODE_RE = re.compile(r"(?<![A-Za-z0-9\-_])(?=[A-Za-z0-9\-]*\d)(?=[A-Za-z0-9\-]*[A-Za-z])[A-Za-z][A-Za-z0-9\-]{4,39}"
                     r"(?![A-Za-z0-9\-_@.]\w)")
_DIGIT = re.compile(r"\d")
_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_CHECK = "10X98765432"


def id_card_valid(number: str) -> bool:
    """GB 11643-1999 checksum of an 18-character resident ID number."""
    if len(number) != 18 or not number[:17].isdigit():
        return False
    total = sum(int(ch) * w for ch, w in zip(number[:17], _WEIGHTS, strict=True))
    return _CHECK[total % 11] == number[17].upper()


def phone_value(raw: str, cue: bool = False) -> str | None:
    """Digits (``+`` kept for a written country code; ``x123`` for an extension) or ``None``."""
    main, ext = raw, ""
    split = _EXT.search(raw)
    if split:
        main, ext = raw[: split.start()], raw[split.end():]
    if _DATE_SHAPE.match(main.strip()):
        return None
    digits = re.sub(r"\D", "", main.replace("(0)", ""))
    plus = main.lstrip("( ").startswith("+")
    if not 7 <= len(digits) <= 16:
        return None
    if re.fullmatch(r"\d+\.\d+", main.strip()):
        return None  # a decimal number
    if len(digits) < 8 and not re.search(r"[\-()]", main) and not cue:
        return None  # a local number is 223-4567; "500 1000 notes", "Thunderbird 350 2014" are numbers
    mobile = _CN_MOBILE.match(digits)
    if mobile and [len(g) for g in re.findall(r"\d+", main)] not in _CN_MOBILE_GROUPS:
        mobile = None
    if mobile and (digits.startswith(("86", "0086")) or (len(digits) == 11 and not plus)):
        return "+86" + mobile.group(1)
    if len(digits) > _LONGEST_NATIONAL and main.isdecimal() and not cue \
            and not digits.startswith("00") and not _CN_MOBILE.match(digits):
        return None  # an unbroken run this long is an account or card number unless dialled abroad (00…, 86…)
    if digits.startswith("00") and len(digits) > 10:
        plus, digits = True, digits[2:]
    value = ("+" if plus else "") + digits
    ext_digits = re.sub(r"\D", "", ext or "")
    return value + ("x" + ext_digits if ext_digits else "")


def find_patterns(text: str, folded: str) -> Iterator[Entity]:
    """Emails, URLs, ID numbers, phones and order codes, in that order of precedence."""
    for m in EMAIL_RE.finditer(folded):
        yield Entity("email", text[m.start():m.end()], m.start(), m.end(), m.group().lower())
    for m in URL_RE.finditer(folded):
        end = m.end()
        while end > m.start() and folded[end - 1] in ".,;:!?)]}'\"":
            end -= 1
        raw = folded[m.start():end]
        yield Entity("url", text[m.start():end], m.start(), end, _url_value(raw))
    for m in ID_CARD_RE.finditer(folded):
        if id_card_valid(m.group()):
            yield Entity("id_card", text[m.start():m.end()], m.start(), m.end(), m.group().upper())
    if _DIGIT.search(folded):
        for m in PHONE_RE.finditer(folded):
            yield from _phones(text, folded, m.start(), m.group())
        for m in ORDER_RE.finditer(folded):
            ident = m.group("id")
            if any(ch.isdigit() for ch in ident):
                yield Entity("order_id", text[m.start("id"):m.end("id")], m.start("id"), m.end("id"),
                             ident.upper())
        for m in CODE_RE.finditer(folded):
            yield Entity("order_id", text[m.start():m.end()], m.start(), m.end(), m.group().upper())


def _phones(text: str, folded: str, start: int, raw: str) -> Iterator[Entity]:
    """One phone, or — when the run is too long to be one — its space-separated parts that are."""
    cue = bool(_PHONE_CUE.search(folded, max(0, start - 12), start))
    value = phone_value(raw, cue)
    if value:
        yield Entity("phone", text[start:start + len(raw)], start, start + len(raw), value)
        return
    if len(re.sub(r"\D", "", raw)) <= 16 or " " not in raw:
        return
    offset = 0
    for part in raw.split(" "):
        if part and len(part) >= 7 and (v := phone_value(part, cue)):
            s = start + raw.index(part, offset)
            yield Entity("phone", text[s:s + len(part)], s, s + len(part), v)
        offset += len(part) + 1


def _url_value(raw: str) -> str:
    scheme, sep, rest = raw.partition("://")
    if not sep:
        return "http://" + raw.split("/", 1)[0].lower() + (("/" + raw.split("/", 1)[1]) if "/" in raw else "")
    host, slash, path = rest.partition("/")
    return f"{scheme.lower()}://{host.lower()}{slash}{path}"
