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

from lastline.text import is_cjk_dominant

from ._types import ENTITY_TYPES, Entity, fold
from .dates import find_dates
from .money import find_money, find_word_money
from .numbers import find_number_forms, find_numbers, find_ordinals
from .numbers_en import find_word_number_entities, find_word_numbers
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


def find_entities(
    text: str,
    *,
    reference_time: datetime | None = None,
    types: Collection[str] | None = None,
    lang: str | None = None,
) -> list[Entity]:
    """All entities in ``text``, sorted by position, non-overlapping.

    ``reference_time`` anchors relative dates (``明天``, ``next Friday``); it defaults to now.
    ``types`` keeps only those types (overlaps are still resolved against all of them, so
    ``2024年6月15日`` never yields the number 2024). ``lang`` ("zh"/"en") overrides the language
    guess that decides what a bare ``¥`` means (for a snippet cut from a longer document).
    Never raises on any string.
    """
    if not isinstance(text, str) or not text:
        return []
    text = text[:MAX_CHARS]
    try:
        folded = fold(text)
        cjk = lang == "zh" if lang in ("zh", "en") else is_cjk_dominant(text)
    except Exception:  # pragma: no cover - fold is total on str
        return []
    ref = reference_time or datetime.now()
    if ref.tzinfo is not None:
        ref = ref.replace(tzinfo=None)
    try:  # read once for the three recognizers of numbers in words (money, percent, number)
        words = find_word_numbers(folded, lone_one=True)
    except Exception:  # as for any recognizer: skipped, never raised
        log.exception("English number words failed; skipped")
        words = []
    recognizers: list[Callable[[], Iterable[Entity]]] = [
        lambda: find_patterns(text, folded),
        lambda: find_money(text, folded, cjk),
        lambda: find_word_money(text, folded, words),
        lambda: find_percent(text, folded),
        lambda: find_word_percent(text, folded, words),
        lambda: find_dates(text, folded, ref, cjk),
        lambda: find_numbers(text, folded),
        lambda: find_number_forms(text, folded),
        lambda: find_word_number_entities(text, folded, words),
        lambda: find_ordinals(text, folded),
    ]
    candidates: list[Entity] = []
    for recognize in recognizers:
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
