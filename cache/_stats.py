"""``stats()``: what the cache did for a tenant, over all time or a recent window."""

from __future__ import annotations

import time
from typing import Any

from ._config import CacheConfig
from ._index import VectorIndex
from ._store_api import CacheStore
from ._tenant_thresholds import Thresholds

__all__ = ["build_stats"]

LAYERS = ("exact", "fuzzy", "semantic")


def build_stats(*, store: CacheStore, thresholds: Thresholds, index: VectorIndex, config: CacheConfig,
                tenant: str, window_s: float | None) -> dict[str, Any]:
    """The ``stats()`` dict (see :meth:`SemanticCache.stats`)."""
    now = time.time()
    if window_s is not None and (isinstance(window_s, bool) or not window_s > 0):
        from lastline import InvalidInput

        raise InvalidInput("window_s must be a positive number of seconds", field="window_s")
    if window_s is not None and window_s >= now:
        window_s = None if window_s == float("inf") else window_s  # reported as asked, counted as "all"
        since_bucket = None
        since_time = None
    else:
        since_bucket = None if window_s is None else int((now - window_s) // config.stats_bucket_s)
        since_time = None if window_s is None else now - window_s
    counts = store.counters(tenant, since_bucket)
    hits = {layer: counts.get(layer, 0) for layer in LAYERS}
    misses = {k.removeprefix("miss:"): n for k, n in counts.items() if k.startswith("miss:")}
    n_hits, n_misses = sum(hits.values()), sum(misses.values())
    lookups = n_hits + n_misses
    feedback = store.feedback_counts(tenant, since_time)
    judged = feedback["correct"] + feedback["incorrect"]
    entries, nbytes = store.usage(tenant)
    intercept = thresholds.get(tenant, "intercept")
    fallback = thresholds.get(tenant, "fallback")
    by_language = {lang: {mode: thresholds.get(tenant, mode, lang) for mode in ("intercept", "fallback")}
                   for lang in ("en", "zh")}
    due = sorted({f"{t.language}:{t.mode}" for modes in [{"*": intercept, "*f": fallback}, *by_language.values()]
                  for t in modes.values() if t.recalibrate_above is not None and entries > t.recalibrate_above})
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
        "model_id": thresholds.model_id,
        # any language calibrated: lookups in it use a threshold from the tenant's own labels
        "calibrated": intercept.calibrated or any(m["intercept"].calibrated for m in by_language.values()),
        "threshold": {"intercept": intercept.to_dict(), "fallback": fallback.to_dict()},
        # what lookups in each language use: stored for that language, else for any, else shipped
        "threshold_by_language": {lang: {mode: t.to_dict() for mode, t in modes.items()}
                                  for lang, modes in by_language.items()},
        # thresholds calibrated on served decisions in a partition smaller than half the tenant now
        "recalibration_due": due,
        "index": index.stats(),
    }
