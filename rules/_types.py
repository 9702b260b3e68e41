"""Shared value types and helpers of the entity recognizers.

``fold`` maps full-width ASCII and the ideographic space to their ASCII forms one character for
one character, so recognizers match on the folded text and their offsets stay valid for the
original input (NFKC could change the length; this never does).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Context, Decimal, DivisionByZero, InvalidOperation, Overflow
from typing import Any

from pydantic import ConfigDict, with_config

__all__ = ["DECIMALS", "ENTITY_TYPES", "Entity", "fold", "format_decimal"]

#: Types find_entities can return (``daterange``/``timerange`` values are ISO 8601 intervals
#: ``start/end``, ``..`` marking an open end; ``set`` values are repeating intervals ``R/P1D``).
ENTITY_TYPES = (
    "date", "datetime", "time", "daterange", "timerange", "duration", "set", "number", "ordinal", "percent", "money",
    "phone", "email", "url", "id_card", "order_id",
)

#: The decimal arithmetic every reader of numbers runs under (``decimal.localcontext(DECIMALS)``),
#: whatever the calling thread's context is: Python's default, pinned. A host may lower the
#: thread's precision — importing Recognizers-Text's Chinese number parser sets it to 15 for the
#: whole process — and ``two thirds`` or ``1,234,567,890.12 dollars`` must read the same there.
DECIMALS = Context(prec=28, rounding=ROUND_HALF_EVEN, Emin=-999999, Emax=999999, capitals=1, clamp=0,
                   traps=[InvalidOperation, DivisionByZero, Overflow])

_FOLD = {cp: cp - 0xFEE0 for cp in range(0xFF01, 0xFF5F) if cp != 0xFF0C}
_FOLD.update({0x3000: 0x20, 0xFFE5: 0xA5, 0xFFE0: 0xA2, 0xFFE1: 0xA3, 0x2212: 0x2D, 0x3002: 0x3002})
# No-break, thin, narrow no-break and figure spaces: typesetting's spaces, read as one (``40 000``, ``10 %``).
_FOLD.update({0x00A0: 0x20, 0x2009: 0x20, 0x202F: 0x20, 0x2007: 0x20})


# Every field is in every answer: the HTTP schema marks them all required.
@with_config(ConfigDict(json_schema_serialization_defaults_required=True))
@dataclass(frozen=True)
class Entity:
    """One recognized value: ``text == input[start:end]``; ``value`` is its normalized form."""

    type: str
    text: str
    start: int
    end: int
    value: Any

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "text": self.text, "start": self.start, "end": self.end, "value": self.value}


_WIDE_GROUPING = re.compile("(?<=[０-９])，(?=[０-９]{3})")


def fold(text: str) -> str:
    """Length-preserving width fold: ``１２％`` → ``12%``, ``￥`` → ``¥``, ideographic, no-break and thin
    spaces → space.

    The full-width comma stays a list separator (``$20，300美圆`` is two amounts) unless it sits
    between full-width digits as a thousands separator (``４，５６５``).
    """
    if "，" in text:
        text = _WIDE_GROUPING.sub(",", text)
    return text.translate(_FOLD)


def format_decimal(value: Decimal) -> str:
    """Plain decimal string without exponent or trailing zeros: ``Decimal('5E+3')`` → ``'5000'``."""
    if not value.is_finite():
        raise ValueError("not a finite number")
    text = format(value.normalize(), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text
