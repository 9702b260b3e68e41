"""Reports behind the dashboard and the entries gauge, built only from the tiers' public APIs.

The hit rate shown anywhere is the cache's own ``stats()`` figure, so the dashboard, ``GET
/v1/cache/stats`` and the CLI can never disagree. The series over time is the same call over
nested windows (``stats(window_s=k·step)``), differenced into buckets.
"""

from __future__ import annotations

import time
from typing import Any

from ..http.deps import DEFAULT_TENANT
from .runtime import Runtime

__all__ = ["cache_entry_counts", "hit_rate_report", "known_tenants"]

MAX_BUCKETS = 48


def known_tenants(runtime: Runtime) -> list[str]:
    return sorted(set(runtime.settings.api_keys.values())) or [DEFAULT_TENANT]


def _cache(runtime: Runtime) -> Any:
    return getattr(runtime, "cache", None)


def cache_entry_counts(runtime: Runtime) -> dict[str, int]:
    """``{tenant: entries}`` for every configured tenant (empty when no cache is wired)."""
    cache = _cache(runtime)
    if cache is None:
        return {}
    return {t: int(cache.stats(tenant=t).get("entries", 0) or 0) for t in known_tenants(runtime)}


def _hits_lookups(stats: dict[str, Any]) -> tuple[int, int]:
    hits = stats.get("hits_total", stats.get("hits", 0))
    return int(hits or 0), int(stats.get("lookups", 0) or 0)


def _by_layer(stats: dict[str, Any]) -> dict[str, int]:
    layers = stats.get("hits")
    return {str(k): int(v or 0) for k, v in layers.items()} if isinstance(layers, dict) else {}


def hit_rate_report(runtime: Runtime, tenant: str, *, window_s: int, buckets: int) -> dict[str, Any]:
    """Hit rate (as ``/v1/cache/stats`` reports it), its series, hits by layer, ladder outcomes."""
    buckets = max(1, min(buckets, MAX_BUCKETS))
    # The cache counts in buckets of ``stats_bucket_s`` (60 s); a step finer than that is noise.
    cache = _cache(runtime)
    grain = int(getattr(getattr(cache, "config", None), "stats_bucket_s", 60) or 60)
    step = max(grain, (window_s // buckets) // grain * grain)
    buckets = max(1, min(buckets, window_s // step))
    now = time.time()
    report: dict[str, Any] = {
        "tenant": tenant, "window_s": window_s, "bucket_s": step, "generated_at": now,
        "cache": cache is not None, "hit_rate": None, "hits": 0, "lookups": 0, "entries": 0,
        "hits_by_layer": {}, "misses_by_reason": {}, "series": [],
    }
    if cache is not None:
        stats = dict(cache.stats(tenant=tenant, window_s=window_s))
        hits, lookups = _hits_lookups(stats)
        report.update(
            hit_rate=stats.get("hit_rate"), hits=hits, lookups=lookups,
            entries=int(stats.get("entries", 0) or 0), hits_by_layer=_by_layer(stats),
            misses_by_reason={str(k): int(v) for k, v in dict(stats.get("misses") or {}).items()},
        )
        cumulative = [(0, 0)] + [
            _hits_lookups(dict(cache.stats(tenant=tenant, window_s=k * step))) for k in range(1, buckets + 1)
        ]
        for k in range(buckets, 0, -1):  # oldest bucket first
            h = cumulative[k][0] - cumulative[k - 1][0]
            n = cumulative[k][1] - cumulative[k - 1][1]
            report["series"].append(
                {"start": now - k * step, "end": now - (k - 1) * step, "hits": h, "lookups": n,
                 "hit_rate": (h / n) if n else None}
            )
    events = runtime.events.summary(tenant=tenant, since=now - window_s)
    report["answers"] = events["answers"]
    report["events_by_tier"] = events["by_tier"]
    report["fallback_requests"] = events["total"]
    return report
