"""Reports behind the dashboard and the entries gauge, built only from the tiers' public APIs.

The hit rate shown anywhere is the cache's own ``stats()`` figure, so the dashboard, ``GET
/v1/cache/stats`` and the CLI can never disagree. The series over time is the same call over
nested windows (``stats(window_s=k·step)``), differenced into buckets.
"""

from __future__ import annotations

import time
from typing import Any

from .runtime import Runtime

__all__ = ["MAX_BUCKETS", "hit_rate_report"]

MAX_BUCKETS = 48


def _hits_lookups(stats: dict[str, Any]) -> tuple[int, int]:
    return int(stats["hits_total"]), int(stats["lookups"])


def hit_rate_report(runtime: Runtime, tenant: str, *, window_s: int, buckets: int) -> dict[str, Any]:
    """Hit rate (as ``/v1/cache/stats`` reports it), its series, hits by layer, ladder outcomes."""
    cache = runtime.cache
    buckets = max(1, min(buckets, MAX_BUCKETS))
    runtime.flush_telemetry()  # this process's own lookups and events are counted too
    # The cache counts in buckets of ``stats_bucket_s`` (60 s); a step finer than that is noise.
    grain = cache.config.stats_bucket_s
    step = max(grain, (window_s // buckets) // grain * grain)
    buckets = max(1, min(buckets, window_s // step))
    now = time.time()
    stats = cache.stats(tenant=tenant, window_s=window_s)
    hits, lookups = _hits_lookups(stats)
    report: dict[str, Any] = {
        "tenant": tenant, "window_s": window_s, "bucket_s": step, "generated_at": now,
        "hit_rate": stats["hit_rate"], "hits": hits, "lookups": lookups, "entries": int(stats["entries"]),
        "hits_by_layer": {str(k): int(v) for k, v in stats["hits"].items()},
        "misses_by_reason": {str(k): int(v) for k, v in stats["misses"].items()},
        "series": [],
    }
    cumulative = [(0, 0)] + [
        _hits_lookups(cache.stats(tenant=tenant, window_s=k * step)) for k in range(1, buckets + 1)
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
