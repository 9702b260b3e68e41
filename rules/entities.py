"""``find_entities``: every typed value in a text, with exact spans and normalized values.

Recognizers run on a width-folded copy of the text (offsets unchanged) and propose candidates;
overlaps are resolved longest-first, then by a fixed precedence (an ID number beats the phone it
looks like, money beats the bare number inside it). Any recognizer that fails on odd input is
skipped rather than raised: the semantic cache calls this on every candidate answer.
"""

from __future__ import annotations

import bisect
import logging
from collections.abc import Callable, Collection, Iterable
from datetime import datetime
from decimal import localcontext

from lastline.text import is_cjk_dominant

from ._types import DECIMALS, ENTITY_TYPES, Entity, fold
from .dates import find_dates
from .money import find_money, find_word_money
from .numbers import find_number_forms, find_numbers, find_ordinals
from .numbers_en import WordNumber, find_word_number_entities, find_word_numbers
from .patterns import find_patterns
from .percent import find_percent, find_word_percent

__all__ = ["ENTITY_TYPES", "Entity", "find_entities"]

log = logging.getLogger(__name__)

#: Lower wins a tie between overlapping candidates of equal length.
PRECEDENCE = {t: i for i, t in enumerate((
    "email", "url", "id_card", "money", "percent", "datetime", "daterange", "timerange", "date", "time",
    "duration", "set", "order_id", "phone", "ordinal", "number",
))}
MAX_CHARS = 200_000
#: The types each recognizer yields (``rivals=False`` skips the ones a caller does not ask for).
TEMPORAL_TYPES = frozenset({"date", "datetime", "time", "daterange", "timerange", "duration", "set"})
_PATTERN_TYPES = frozenset({"email", "url", "id_card", "order_id", "phone"})
_MONEY, _PERCENT = frozenset({"money"}), frozenset({"percent"})
_NUMBER, _ORDINAL = frozenset({"number"}), frozenset({"ordinal"})


def find_entities(
    text: str,
    *,
    reference_time: datetime | None = None,
    types: Collection[str] | None = None,
    lang: str | None = None,
    rivals: bool = True,
) -> list[Entity]:
    """All entities in ``text``, sorted by position, non-overlapping.

    ``reference_time`` anchors relative dates (``明天``, ``next Friday``); it defaults to now.
    ``types`` keeps only those types (overlaps are still resolved against all of them, so
    ``2024年6月15日`` never yields the number 2024). ``lang`` ("zh"/"en") overrides the language
    guess that decides what a bare ``¥`` means (for a snippet cut from a longer document).
    ``rivals=False`` (with ``types``) runs only the recognizers that can yield those types: for a
    caller that knows the kind of the text already — a pack rule whose label names a money or a date
    field reads its value without asking whether a date or a phone could take the span (the date
    grammars are most of the cost of a short English text).
    Never raises on any string, and reads numbers the same whatever the caller's decimal context.
    """
    if not isinstance(text, str) or not text:
        return []
    with localcontext(DECIMALS):
        return _find(text, reference_time, types, lang, rivals)


def _find(text: str, reference_time: datetime | None, types: Collection[str] | None, lang: str | None,
          rivals: bool) -> list[Entity]:
    text = text[:MAX_CHARS]
    try:
        folded = fold(text)
        cjk = lang == "zh" if lang in ("zh", "en") else is_cjk_dominant(text)
    except Exception:  # pragma: no cover - fold is total on str
        return []
    ref = reference_time or datetime.now()
    if ref.tzinfo is not None:
        ref = ref.replace(tzinfo=None)
    wanted_kinds = set(types) if types is not None and not rivals else None
    words: list[WordNumber] = []
    if wanted_kinds is None or wanted_kinds & {"money", "percent", "number"}:
        try:  # read once for the three recognizers of numbers in words (money, percent, number)
            words = find_word_numbers(folded, lone_one=True)
        except Exception:  # as for any recognizer: skipped, never raised
            log.exception("English number words failed; skipped")
    recognizers: list[tuple[frozenset[str], Callable[[], Iterable[Entity]]]] = [
        (_PATTERN_TYPES, lambda: find_patterns(text, folded)),
        (_MONEY, lambda: find_money(text, folded, cjk)),
        (_MONEY, lambda: find_word_money(text, folded, words)),
        (_PERCENT, lambda: find_percent(text, folded)),
        (_PERCENT, lambda: find_word_percent(text, folded, words)),
        (TEMPORAL_TYPES, lambda: find_dates(text, folded, ref, cjk)),
        (_NUMBER, lambda: find_numbers(text, folded)),
        (_NUMBER, lambda: find_number_forms(text, folded)),
        (_NUMBER, lambda: find_word_number_entities(text, folded, words)),
        (_ORDINAL, lambda: find_ordinals(text, folded)),
    ]
    candidates: list[Entity] = []
    for kinds, recognize in recognizers:
        if wanted_kinds is not None and not kinds & wanted_kinds:
            continue
        try:
            candidates.extend(recognize())
        except Exception:  # a recognizer bug must not take the caller down
            log.exception("entity recognizer failed; skipped")
    chosen = _resolve(candidates)
    if types is not None:
        wanted = set(types)
        chosen = [e for e in chosen if e.type in wanted]
    return chosen


def _resolve(candidates: list[Entity]) -> list[Entity]:
    ordered = sorted(
        (c for c in candidates if c.end > c.start),
        key=lambda e: (-(e.end - e.start), PRECEDENCE.get(e.type, 99), e.start),
    )
    # Taken spans never overlap, so sorted by start they are also sorted by end: a candidate only
    # needs checking against its two neighbours (O(log n) each, not O(n)).
    starts: list[int] = []
    taken: list[Entity] = []
    for cand in ordered:
        i = bisect.bisect_right(starts, cand.start)
        if i > 0 and taken[i - 1].end > cand.start:
            continue
        if i < len(taken) and taken[i].start < cand.end:
            continue
        starts.insert(i, cand.start)
        taken.insert(i, cand)
    return taken
