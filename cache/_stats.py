"""``stats()``: what the cache did for a tenant, over all time or a recent window."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._cache import SemanticCache

__all__ = ["build_stats"]

LAYERS = ("exact", "fuzzy", "semantic")


def build_stats(cache: SemanticCache, tenant: str, window_s: float | None) -> dict[str, Any]:
    now = time.time()
    if window_s is not None and (isinstance(window_s, bool) or not window_s > 0):
        from lastline import InvalidInput

        raise InvalidInput("window_s must be a positive number of seconds", field="window_s")
    if window_s is not None and window_s >= now:
        window_s = None if window_s == float("inf") else window_s  # reported as asked, counted as "all"
        since_bucket = None
        since_time = None
    else:
        since_bucket = None if window_s is None else int((now - window_s) // cache.config.stats_bucket_s)
        since_time = None if window_s is None else now - window_s
    counts = cache._store.counters(tenant, since_bucket)
    hits = {layer: counts.get(layer, 0) for layer in LAYERS}
    misses = {k.removeprefix("miss:"): n for k, n in counts.items() if k.startswith("miss:")}
    n_hits, n_misses = sum(hits.values()), sum(misses.values())
    lookups = n_hits + n_misses
    feedback = cache._store.feedback_counts(tenant, since_time)
    judged = feedback["correct"] + feedback["incorrect"]
    entries, nbytes = cache._store.usage(tenant)
    intercept = cache.get_threshold(tenant=tenant, mode="intercept")
    fallback = cache.get_threshold(tenant=tenant, mode="fallback")
    return {
        "tenant": tenant,
        "window_s": window_s,
        "lookups": lookups,
        "hits": hits,
        "hits_total": n_hits,
        "misses": misses,
        "misses_total": n_misses,
        "hit_rate": (n_hits / lookups) if lookups else None,
        "entries": entries,
        "bytes": nbytes,
        "feedback": {**feedback, "false_hit_rate": (feedback["incorrect"] / judged) if judged else None},
        "model_id": cache.model_id,
        "calibrated": intercept.calibrated,
        "threshold": {"intercept": intercept.to_dict(), "fallback": fallback.to_dict()},
        "index": cache.index.stats(),
    }
