"""One lookup through the layers: exact → fuzzy → semantic, each candidate guarded and aged.

Kept apart from the class so the decision reads top to bottom in one function. Confidence:
exact and fuzzy hits are ``high``; a semantic hit is ``high`` at or above the tenant's strict
(intercept) threshold and ``medium`` below it (only reachable in fallback mode or with a looser
per-call threshold); any stale answer (fallback mode only) is ``low``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rapidfuzz import fuzz, process

from . import _validate as v
from ._config import LookupResult
from ._fuzzy import typo_similarity
from ._store import EntryRow, context_hash

if TYPE_CHECKING:
    from ._cache import SemanticCache

__all__ = ["run_lookup"]

_FUZZY_LIMIT = 10


@dataclass
class _Trace:
    """Why candidates were turned down, to name the reason of a miss."""

    guard_blocked: bool = False
    expired: bool = False
    stale: tuple[EntryRow, str, float] | None = None  # best expired candidate (fallback mode)


def _accept(cache: SemanticCache, row: EntryRow, prompt: str, now: float, mode: str, trace: _Trace,
            layer: str, similarity: float, guarded: bool = True) -> bool:
    """Guard, then age. An expired candidate is remembered for fallback mode, never served fresh."""
    if guarded and cache.config.slot_guard and not cache.guard.ok(prompt, row.prompt):
        trace.guard_blocked = True
        return False
    if row.expired(now):
        trace.expired = True
        if mode == "fallback" and trace.stale is None:
            trace.stale = (row, layer, similarity)
        return False
    return True


def run_lookup(cache: SemanticCache, prompt: str, *, tenant: str, context: Any, mode: str,
               threshold: float | None, exact_only: bool) -> LookupResult:
    now = time.time()
    v.check_tenant(tenant)
    v.check_mode(mode)
    override = v.check_threshold(threshold)
    norm, phash = v.check_prompt(prompt, cache.config.max_prompt_chars)
    ctx = context_hash(v.check_context(context))
    key = (tenant, ctx)
    strict = cache.get_threshold(tenant=tenant, mode="intercept").value
    t = override if override is not None else (
        strict if mode == "intercept" else cache.get_threshold(tenant=tenant, mode="fallback").value)
    trace = _Trace()
    best: float | None = None

    def done(row: EntryRow | None, layer: str | None, sim: float | None, *, stale: bool = False,
             reason: str | None = None) -> LookupResult:
        hit = row is not None
        if not hit:
            confidence = None
        elif stale:
            confidence = "low"
        elif layer == "semantic" and sim is not None and sim < strict:
            confidence = "medium"
        else:
            confidence = "high"
        outcome = (layer or "") if hit else f"miss:{reason}"
        lookup_id = cache._record(tenant=tenant, mode=mode, outcome=outcome, now=now, hit=row, layer=layer,
                                  similarity=sim)
        return LookupResult(
            hit=hit, answer=row.response if row else None, entry_id=row.id if row else None,
            layer=layer if hit else None, similarity=sim if hit else None,  # type: ignore[arg-type]
            confidence=confidence, stale=stale, age_s=(now - row.created_at) if row else None,
            lookup_id=lookup_id, reason=reason, best_similarity=best, threshold=t, mode=mode,  # type: ignore[arg-type]
            metadata=row.metadata if row else None,
        )

    def first_fuzzy(seqs: list[int], rows: dict[int, EntryRow]) -> LookupResult | None:
        """The first candidate that is a typo-level rewrite of the prompt and passes the guard."""
        for seq in seqs:
            cand = rows.get(seq)
            if cand is None or cand.prompt_hash == phash:
                continue
            sim = typo_similarity(norm, cand.prompt_norm, cache.config.fuzzy_min_ratio)
            if sim is not None and _accept(cache, cand, prompt, now, mode, trace, "fuzzy", sim):
                return done(cand, "fuzzy", sim)
        return None

    # 1. exact: same normalized text, same tenant and context
    row = cache._store.by_key(tenant, ctx, phash)
    if row is not None and _accept(cache, row, prompt, now, mode, trace, "exact", 1.0, guarded=False):
        return done(row, "exact", 1.0)
    if exact_only:
        return _miss_or_stale(done, trace, row is None)

    # 2. fuzzy among a small partition's prompts, before any embedding
    choices = cache.index.fuzzy_choices(key)
    if choices:
        matches = process.extract(norm, choices, scorer=fuzz.ratio, score_cutoff=cache.config.fuzzy_min_ratio,
                                  limit=_FUZZY_LIMIT)
        seqs = [m[2] for m in matches]
        found = first_fuzzy(seqs, cache._store.by_seqs(tenant, ctx, seqs))
        if found is not None:
            return found

    # 3. semantic kNN in the partition (plus fuzzy among the neighbours when it is too big to scan)
    if not cache.index.partition_size(key):
        return _miss_or_stale(done, trace, row is None, empty=True)
    vector = cache.embedder.encode([norm])[0]
    neighbours = cache.index.search(key, vector, cache.config.knn_k)
    best = neighbours[0][1] if neighbours else None
    rows = cache._store.by_seqs(tenant, ctx, [seq for seq, _ in neighbours])
    if choices is None:
        found = first_fuzzy([seq for seq, _ in neighbours], rows)
        if found is not None:
            return found
    for seq, cos in neighbours:
        if cos < t:
            break
        cand = rows.get(seq)
        if cand is not None and cand.prompt_hash != phash and _accept(
                cache, cand, prompt, now, mode, trace, "semantic", cos):
            return done(cand, "semantic", round(cos, 6))
    return _miss_or_stale(done, trace, False)


def _miss_or_stale(done: Any, trace: _Trace, nothing: bool, empty: bool = False) -> LookupResult:
    if trace.stale is not None:
        row, layer, sim = trace.stale
        return done(row, layer, round(sim, 6), stale=True)  # type: ignore[no-any-return]
    if trace.guard_blocked:
        reason = "slot_mismatch"
    elif trace.expired:
        reason = "expired"
    elif empty and nothing:
        reason = "empty"
    else:
        reason = "below_threshold"
    return done(None, None, None, reason=reason)  # type: ignore[no-any-return]
