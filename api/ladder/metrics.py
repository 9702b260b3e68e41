"""Prometheus metrics, on a registry owned by one app (never the process-global one).

A per-app registry keeps two apps in one process (tests, embedding in another service) from
double-registering or mixing counts. Under ``lastline serve --workers N`` prometheus-client's
multiprocess mode sums every worker's counters at scrape time (see :meth:`Metrics.render`).
Names, as DESIGN.md promises:

- ``lastline_cache_lookups_total{layer,result}`` — cache layers are tried in order, so a lookup
  that hits at ``semantic`` counts ``exact``/``fuzzy`` misses and a ``semantic`` hit; a lookup
  restricted to the exact layer counts only ``exact``.
- ``lastline_lookup_duration_seconds{endpoint}`` — wall time of one cache lookup.
- ``lastline_answers_total{source,confidence}`` — degraded answers served.
- ``lastline_fallback_total{outcome}`` — ladder outcomes: answered, no_answer, refused_write, error.
- ``lastline_cache_entries{tenant}`` — read from storage at scrape time.
- ``lastline_http_requests_total{method,route,status}`` — by route template, not raw path.
- ``lastline_shed_total{bulkhead,reason}`` — requests refused with 503 ``overloaded``
  (``full``, ``tenant_share``, ``draining``).
- ``lastline_tier_skips_total{tier,reason}`` — ladder rungs skipped (``timeout``, ``overloaded``).
- ``lastline_writer_items_total{outcome}`` — the background telemetry writer: ``written``,
  ``dropped`` (queue full), ``failed`` (given up after retries); ``errors`` counts failed writes.
- ``lastline_kb_calls_total{ran_in}`` — KB searches and answers of the server, by where they ran:
  ``process`` (the KB's own process) or ``worker`` (before it was ready, or after it died).
- ``lastline_gc_pause_seconds{generation}`` — the server's garbage-collector pauses (every thread
  of the process waits them out), from :meth:`Metrics.watch_gc`.
"""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.metrics import MetricWrapperBase
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

__all__ = ["CACHE_LAYERS", "CONTENT_TYPE", "Metrics"]

CACHE_LAYERS = ("exact", "fuzzy", "semantic")
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


class _EntriesCollector(Collector):
    """Asks storage for cache entry counts per tenant at scrape time (cheap COUNT queries)."""

    def __init__(self, source: Callable[[], dict[str, int]]) -> None:
        self.source = source

    def collect(self) -> Iterator[Metric]:
        family = GaugeMetricFamily("lastline_cache_entries", "Cache entries stored, by tenant.", labels=["tenant"])
        for tenant, count in sorted(self.source().items()):
            family.add_metric([tenant], float(count))
        yield family

    def describe(self) -> Iterable[Metric]:
        return [GaugeMetricFamily("lastline_cache_entries", "Cache entries stored, by tenant.", labels=["tenant"])]


class Metrics:
    """All counters of one app; ``entries_source`` returns ``{tenant: n}`` from storage."""

    def __init__(self, entries_source: Callable[[], dict[str, int]] | None = None) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.cache_lookups = Counter(
            "lastline_cache_lookups_total", "Cache lookups by layer and result.", ["layer", "result"],
            registry=self.registry,
        )
        self.lookup_duration = Histogram(
            "lastline_lookup_duration_seconds", "Cache lookup wall time.", ["endpoint"],
            buckets=_BUCKETS, registry=self.registry,
        )
        self.answers = Counter(
            "lastline_answers_total", "Degraded answers by source and confidence.", ["source", "confidence"],
            registry=self.registry,
        )
        self.fallback = Counter(
            "lastline_fallback_total", "Fallback ladder outcomes.", ["outcome"], registry=self.registry
        )
        self.requests = Counter(
            "lastline_http_requests_total", "HTTP requests by method, route template and status.",
            ["method", "route", "status"], registry=self.registry,
        )
        self.shed = Counter(
            "lastline_shed_total", "Requests refused with 503 overloaded, by bulkhead and reason.",
            ["bulkhead", "reason"], registry=self.registry,
        )
        self.abandoned = Counter(
            "lastline_abandoned_total", "Requests dropped before their work began because their client left"
            " (a lookup queued for its round, a caller in a bulkhead's line), by bulkhead.",
            ["bulkhead"], registry=self.registry,
        )
        self.tier_skips = Counter(
            "lastline_tier_skips_total", "Ladder tiers skipped: timed out or their bulkhead full.",
            ["tier", "reason"], registry=self.registry,
        )
        self.writer = Counter(
            "lastline_writer_items_total", "Telemetry items of the background writer: written, dropped, failed;"
            " errors counts failed sink calls.", ["outcome"], registry=self.registry,
        )
        self.kb_calls = Counter(
            "lastline_kb_calls_total", "KB searches and answers by where they ran: the KB's own process or the worker.",
            ["ran_in"], registry=self.registry,
        )
        self.gc_pause = Histogram(
            "lastline_gc_pause_seconds", "Garbage-collector pauses of the server process, by generation.",
            ["generation"], buckets=_BUCKETS, registry=self.registry,
        )
        self._children: dict[tuple[str, tuple[str, ...]], Any] = {}
        if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
            self._declare_series()
        self._entries = _EntriesCollector(entries_source) if entries_source is not None else None
        if self._entries is not None:
            self.registry.register(self._entries)

    def _declare_series(self) -> None:
        """Create the known label sets at zero: in multiprocess mode a family with no series is not
        exported at all, and a scrape should name every metric before its first event."""
        from lastline import Confidence, Source

        for layer in CACHE_LAYERS:
            for result in ("hit", "miss"):
                self.cache_lookups.labels(layer=layer, result=result)
        for endpoint in ("cache", "fallback"):
            self.lookup_duration.labels(endpoint=endpoint)
        for source in Source:
            for confidence in Confidence:
                self.answers.labels(source=source.value, confidence=confidence.value)
        for outcome in ("answered", "no_answer", "refused_write", "error"):
            self.fallback.labels(outcome=outcome)
        for outcome in ("written", "dropped", "failed", "errors"):
            self.writer.labels(outcome=outcome)
        for ran_in in ("process", "worker"):
            self.kb_calls.labels(ran_in=ran_in)
        for generation in ("0", "1", "2"):
            self.gc_pause.labels(generation=generation)

    def watch_gc(self) -> Callable[[], None]:
        """Time every garbage collection of this process into ``lastline_gc_pause_seconds``.

        Why: a collection stops every thread of the process, so a long one is a latency spike on
        all requests in flight that no request's own timing explains. Returns the function that
        stops watching.
        """
        children = [self.gc_pause.labels(generation=str(g)) for g in range(3)]
        started = [0.0]

        def on_gc(phase: str, info: dict[str, int]) -> None:
            if phase == "start":
                started[0] = time.perf_counter()
            else:
                children[min(info["generation"], 2)].observe(time.perf_counter() - started[0])

        gc.callbacks.append(on_gc)
        return lambda: gc.callbacks.remove(on_gc)

    def _child(self, metric: MetricWrapperBase, *values: str) -> Any:
        """``metric.labels(*values)`` (values in the order of its label names), remembered.

        Why: ``labels()`` checks its arguments and takes the metric's lock on every call; the
        request path counts five to seven series per request, and that was ≈6 % of the interpreter
        lock's time in a semantic lookup at 16 clients (py-spy ``--gil``). The child for a label set
        never changes, so it is looked up once. The label sets are bounded (route templates,
        statuses, layers), as the metric's own children are.
        """
        key = (metric._name, values)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = metric.labels(*values)
        return child

    def count_request(self, method: str, route: str, status: int) -> None:
        """Count one HTTP request by method, route template and status."""
        self._child(self.requests, method, route, str(status)).inc()

    def count_lookup(self, *, hit: bool, layer: str | None, exact_only: bool = False,
                     duration_s: float, endpoint: str) -> None:
        """Count one cache lookup down the layers it passed through."""
        self._child(self.lookup_duration, endpoint).observe(duration_s)
        layers = CACHE_LAYERS[:1] if exact_only else CACHE_LAYERS
        for name in layers:
            if hit and name == layer:
                self._child(self.cache_lookups, name, "hit").inc()
                return
            self._child(self.cache_lookups, name, "miss").inc()

    def count_answer(self, source: str, confidence: str) -> None:
        self.answers.labels(source=source, confidence=confidence).inc()
        self.fallback.labels(outcome="answered").inc()

    def _scraped(self) -> CollectorRegistry:
        """The registry to read: this app's, or — under ``lastline serve --workers N`` — every worker's.

        With several workers ``PROMETHEUS_MULTIPROC_DIR`` is set before they start: each worker's
        counters live in files there, and a scrape answered by any worker sums them all.
        """
        if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
            return self.registry
        registry = CollectorRegistry()
        MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        if self._entries is not None:
            registry.register(self._entries)  # read from the shared SQLite file: the same for every worker
        return registry

    def render(self) -> bytes:
        return generate_latest(self._scraped())

    def value(self, name: str, **labels: Any) -> float:
        """A sample's current value (0 when absent), summed over workers; for reports and tests."""
        got = self._scraped().get_sample_value(name, {k: str(v) for k, v in labels.items()})
        return float(got or 0.0)
