"""Per-field normalizers of rule packs: raw matched text → the value put in ``fields``.

Entity normalizers (date, money, percent …) reuse :func:`find_entities` on the matched text, so a
pack field and ``/v1/rules/entities`` always agree on what ``伍拾万元整`` is worth. A normalizer
that finds nothing raises :class:`NormalizeError`; the field then stays ``null`` — never guessed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from typing import Any

from .entities import find_entities

__all__ = ["NORMALIZERS", "SCHEMA_TYPES", "NormalizeError", "normalize"]

MAX_TEXT_CHARS = 500


class NormalizeError(ValueError):
    """The matched text does not hold a value of the field's kind."""


_TRIM = re.compile(r"^[\s:：|,，;；。.、\"'“”‘’（）()\[\]【】]+|[\s:：|,，;；。.、\"'“”‘’\[\]【】]+$")


_ABBREV_END = re.compile(r"\b(?:Inc|Ltd|Corp|Co|Bros|Jr|Sr|Plc|PLC|S\.A|N\.V|L\.P|P\.C|L\.L\.C|Pty)\.$")


def _text(raw: str, ref: datetime | None, lang: str | None = None) -> str:
    """Trimmed, single-spaced text; a final period survives only after an abbreviation (``XYZ Corp.``)."""
    value = re.sub(r"\s+", " ", raw).strip()
    keep_dot = bool(_ABBREV_END.search(value.rstrip(" ,;:)\"'”’")))
    value = _TRIM.sub("", value)
    if keep_dot and not value.endswith("."):
        value += "."
    if not value:
        raise NormalizeError("empty text")
    return value[:MAX_TEXT_CHARS]


def _entity(*types: str, rivals: bool = False) -> Callable[[str, datetime | None, str | None], Any]:
    """The first entity of ``types`` in the matched text. The rule's label named the kind, so other
    kinds are not read as rivals for its span (``rivals=False``), except for numbers: a year or a
    day inside a date is no count (``2024年6月15日`` holds no number)."""
    def norm(raw: str, ref: datetime | None, lang: str | None = None) -> Any:
        for entity in find_entities(raw, reference_time=ref, lang=lang, types=types, rivals=rivals):
            if entity.type in types:
                return entity.value
        raise NormalizeError(f"no {' or '.join(types)} in {raw[:40]!r}")
    return norm


def _amount(raw: str, ref: datetime | None, lang: str | None = None) -> Any:
    """Money whose currency may be implied (``500,000`` in a ``合同金额`` line): number → CNY-less amount."""
    for entity in find_entities(raw, reference_time=ref, lang=lang):
        if entity.type == "money":
            return entity.value
        if entity.type == "number":
            return {"amount": entity.value, "currency": None}
    raise NormalizeError(f"no amount in {raw[:40]!r}")


#: What "between A and B" also joins that is no party: times, dates, amounts, counts
#: ("between 2am and 4am", "between June 1 and June 30", "between 10 and 20 units").
_NOT_A_PARTY = frozenset({"date", "datetime", "time", "daterange", "timerange", "duration", "set", "money",
                          "percent", "number", "ordinal"})
_LOWER_WORD = re.compile(r"\s+[a-z]")
#: Only a value that could open with a time, date, amount or count is read for entities (a name that
#: starts with another capitalized word cannot): the entity grammars cost more than the whole pack.
_COULD_BE_A_VALUE = re.compile(
    r"[^A-Z]|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec|Mon|Tue|Wed|Thu|Fri|Sat|Sun|Noon|Midnight|Dawn"
    r"|Dusk|Morning|Evening|Night|Today|Tomorrow|Yesterday|One|Two|Three|Four|Five|Six|Seven|Eight|Nine|Ten"
    r"|Eleven|Twelve|Twenty|Thirty|Forty|Fifty|Sixty|Seventy|Eighty|Ninety|Hundred|Thousand|Half|Quarter|Next"
    r"|Last|This|The|An?|US|USD|EUR|GBP|RMB|CNY)[a-z]*\b")


def _party(raw: str, ref: datetime | None, lang: str | None = None) -> str:
    """A contracting party's name: :func:`_text`, unless a time, date, amount or count is the whole of
    it, or starts it with a lower-case word after ("4am on working days", "20 units a day": names are
    capitalized) — then the match was some other "between A and B", and the pattern's next match is
    tried. A count that starts a name stays ("3M Company", "7-Eleven, Inc.")."""
    value = _text(raw, ref)
    if not _COULD_BE_A_VALUE.match(value):
        return value
    for e in find_entities(value, reference_time=ref, lang=lang):
        if e.start == 0 and e.type in _NOT_A_PARTY and (e.end == len(value) or _LOWER_WORD.match(value, e.end)):
            raise NormalizeError(f"{value[:40]!r} starts with a {e.type}, not a party")
    return value


def _upper(raw: str, ref: datetime | None, lang: str | None = None) -> str:
    return _text(raw, ref).upper()


def _lower(raw: str, ref: datetime | None, lang: str | None = None) -> str:
    return _text(raw, ref).lower()


NORMALIZERS: dict[str, Callable[[str, datetime | None, str | None], Any]] = {
    "text": _text,
    "party": _party,
    "upper": _upper,
    "lower": _lower,
    "date": _entity("date", "datetime"),
    "datetime": _entity("datetime", "date"),
    "daterange": _entity("daterange"),
    "duration": _entity("duration"),
    "time": _entity("time", "datetime"),
    "money": _entity("money"),
    "amount": _amount,
    "percent": _entity("percent"),
    "number": _entity("number", "percent", rivals=True),
    "phone": _entity("phone"),
    "email": _entity("email"),
    "url": _entity("url"),
    "id_card": _entity("id_card"),
    "order_id": _entity("order_id", "number", rivals=True),
}
_MONEY_SCHEMA = {"type": "object", "properties": {"amount": {"type": "string"},
                                                    "currency": {"type": ["string", "null"]}},
                 "required": ["amount", "currency"]}
#: JSON Schema of each normalizer's output (used when a pack declares no schema).
SCHEMA_TYPES: dict[str, dict[str, Any]] = {name: {"type": "string"} for name in NORMALIZERS}
SCHEMA_TYPES["money"] = SCHEMA_TYPES["amount"] = _MONEY_SCHEMA


def normalize(name: str, raw: str, reference_time: datetime | None = None, lang: str | None = None) -> Any:
    """Apply normalizer ``name``; raises :class:`NormalizeError` when the text holds no such value.

    ``lang`` is the language of the whole document, so ``¥`` in a Chinese contract stays CNY.
    """
    return NORMALIZERS[name](raw, reference_time, lang)
