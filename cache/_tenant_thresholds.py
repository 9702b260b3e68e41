"""Per-tenant thresholds: stored calibrated values, else the shipped default for the model.

A stored value is per (tenant, model id, mode). When a tenant calibrated only the intercept
threshold, fallback keeps the shipped gap below it (uncalibrated, and reported as derived).
Every lookup needs its tenant's threshold, so reads are memoised for ``ttl_s`` seconds
(``threshold_cache_s``; on a database shared by replicas at most ``replica_sync_s``); a write
through this object clears the memo at once, one through another process or replica is seen
within that time.
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace

from lastline import InvalidInput

from . import _validate as v
from ._config import CacheConfig, Mode, Threshold
from ._store_api import CacheStore
from .thresholds import default_threshold

__all__ = ["Thresholds"]


class Thresholds:
    """The thresholds of one cache's model, read through a short-lived memo."""

    def __init__(self, store: CacheStore, model_id: str, config: CacheConfig, *, ttl_s: float | None = None) -> None:
        self.store = store
        self.model_id = model_id
        self.config = config
        #: How long a read is reused (see the module docstring).
        self.ttl_s = config.threshold_cache_s if ttl_s is None else ttl_s
        self._memo: dict[tuple[str, str, str], tuple[float, Threshold]] = {}
        self._lock = threading.Lock()

    def get(self, tenant: str, mode: Mode, language: str = "*") -> Threshold:
        """The threshold lookups in ``language`` use for ``tenant`` in ``mode`` (validated arguments)."""
        v.check_tenant(tenant)
        v.check_mode(mode)
        v.check_language(language)
        now = time.monotonic()
        hit = self._memo.get((tenant, mode, language))
        if hit is not None and hit[0] > now:
            return hit[1]
        value = self._read(tenant, mode, language)
        with self._lock:
            self._memo[(tenant, mode, language)] = (now + self.ttl_s, value)
        return value

    def _stored(self, tenant: str, mode: Mode, language: str) -> Threshold | None:
        """Stored for this language, else stored for any language."""
        found = self.store.get_threshold(tenant, self.model_id, mode, language)
        if found is None and language != "*":
            found = self.store.get_threshold(tenant, self.model_id, mode, "*")
        return found

    def _read(self, tenant: str, mode: Mode, language: str) -> Threshold:
        stored = self._stored(tenant, mode, language)
        if stored is not None:
            return stored
        overrides = self.config.default_thresholds
        default = default_threshold(self.model_id, mode, overrides, language)
        if mode == "fallback":
            strict = self._stored(tenant, "intercept", language)
            if strict is not None:
                base = default_threshold(self.model_id, "intercept", overrides, language)
                gap = base.value - default.value
                value = min(max(strict.value - gap, 0.0), 1.0)
                return replace(default, value=round(value, 6), source="derived_from_intercept",
                               language=strict.language)
        return default

    def set(self, tenant: str, threshold: Threshold) -> None:
        """Store ``threshold`` for ``tenant`` (its ``mode``; its model id, else this cache's)."""
        v.check_tenant(tenant)
        if not isinstance(threshold, Threshold):
            raise InvalidInput("threshold must be a Threshold", field="threshold")
        v.check_threshold(threshold.value)
        model_id = threshold.model_id or self.model_id
        source = threshold.source if threshold.source != "default" else (
            "calibrated" if threshold.calibrated else "manual")
        self.store.set_threshold(tenant, model_id, replace(threshold, model_id=model_id, source=source))
        self._forget()

    def reset(self, tenant: str, mode: Mode | None = None, language: str | None = None) -> int:
        """Forget stored thresholds (one mode or both, one language or all); the shipped default applies again."""
        v.check_tenant(tenant)
        modes = ("intercept", "fallback") if mode is None else (v.check_mode(mode),)
        if language is not None:
            v.check_language(language)
        removed = self.store.delete_thresholds(tenant, self.model_id, modes, language)
        self._forget()
        return removed

    def _forget(self) -> None:
        with self._lock:
            self._memo.clear()
