"""Per-tenant thresholds: stored calibrated values, else the shipped default for the model.

A stored value is per (tenant, model id, mode). When a tenant calibrated only the intercept
threshold, fallback keeps the shipped gap below it (uncalibrated, and reported as derived).
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING

from lastline import InvalidInput

from . import _validate as v
from ._config import Mode, Threshold
from .thresholds import default_threshold

if TYPE_CHECKING:
    from ._config import CacheConfig
    from ._store import Store
    from .calibration import Calibration
    from .pairs import LabelledPairs

__all__ = ["ThresholdsMixin"]


class ThresholdsMixin:
    _store: Store
    config: CacheConfig
    model_id: str

    _threshold_memo: dict[tuple[str, str], tuple[float, Threshold]]

    def get_threshold(self, *, tenant: str = "default", mode: Mode = "intercept") -> Threshold:
        """The threshold lookups use for ``tenant`` in ``mode`` with this cache's model.

        Reused for ``config.threshold_cache_s`` seconds (a lookup needs it on every call);
        ``set_threshold`` in this process takes effect at once, in another within that time.
        """
        v.check_tenant(tenant)
        v.check_mode(mode)
        memo: dict[tuple[str, str], tuple[float, Threshold]] = self.__dict__.setdefault("_threshold_memo", {})
        now = time.monotonic()
        hit = memo.get((tenant, mode))
        if hit is not None and hit[0] > now:
            return hit[1]
        value = self._read_threshold(tenant, mode)
        memo[(tenant, mode)] = (now + self.config.threshold_cache_s, value)
        return value

    def _read_threshold(self, tenant: str, mode: Mode) -> Threshold:
        stored = self._store.get_threshold(tenant, self.model_id, mode)
        if stored is not None:
            return stored
        default = default_threshold(self.model_id, mode, self.config.default_thresholds)
        if mode == "fallback":
            strict = self._store.get_threshold(tenant, self.model_id, "intercept")
            if strict is not None:
                base = default_threshold(self.model_id, "intercept", self.config.default_thresholds)
                gap = base.value - default.value
                value = min(max(strict.value - gap, 0.0), 1.0)
                return replace(default, value=round(value, 6), source="derived_from_intercept")
        return default

    def set_threshold(self, *, tenant: str = "default", threshold: Threshold) -> None:
        """Store ``threshold`` for ``tenant`` (its ``mode``; its model id, else this cache's)."""
        v.check_tenant(tenant)
        if not isinstance(threshold, Threshold):
            raise InvalidInput("threshold must be a Threshold", field="threshold")
        v.check_threshold(threshold.value)
        model_id = threshold.model_id or self.model_id
        source = threshold.source if threshold.source != "default" else (
            "calibrated" if threshold.calibrated else "manual")
        self._store.set_threshold(tenant, model_id, replace(threshold, model_id=model_id, source=source))
        self.__dict__.setdefault("_threshold_memo", {}).clear()

    def reset_threshold(self, *, tenant: str = "default", mode: Mode | None = None) -> int:
        """Forget stored thresholds (one mode or both); the shipped default applies again."""
        v.check_tenant(tenant)
        modes = ("intercept", "fallback") if mode is None else (v.check_mode(mode),)
        removed = 0
        with self._store.storage.atomic() as conn:
            for m in modes:
                removed += conn.execute(
                    "DELETE FROM cache_thresholds WHERE tenant = ? AND model_id = ? AND mode = ?",
                    (tenant, self.model_id, m)).rowcount
        self.__dict__.setdefault("_threshold_memo", {}).clear()
        return removed

    def calibrate(self, pairs: LabelledPairs | None = None, *, tenant: str = "default", target: float = 0.02,
                  method: str = "wilson", confidence: float = 0.95, mode: Mode = "intercept",
                  from_feedback: bool = False, store: bool = True, source: str | None = None) -> Calibration:
        """Calibrate ``tenant``'s threshold from labelled pairs or from feedback on served hits, and store it.

        The one path behind ``lastline cache calibrate`` and ``POST /v1/cache/calibrate``: pairs are
        scored the way a lookup judges them (:func:`~lastline.cache.pairs.score_pairs`), so the bound
        holds for the cache as configured. ``store=False`` is a dry run.
        """
        from .calibration import calibrate, calibrate_from_feedback
        from .pairs import score_pairs

        v.check_tenant(tenant)
        v.check_mode(mode)
        if (pairs is None) != from_feedback:
            raise InvalidInput("give labelled pairs, or from_feedback (not both)", field="pairs")
        if pairs is not None:
            cal = calibrate(score_pairs(self, pairs), pairs.labels, target, method=method, confidence=confidence)
        else:
            served = [(sim, ok) for layer, sim, ok in self._store.feedback(tenant)
                      if layer == "semantic" and sim is not None]
            cal = calibrate_from_feedback([sim for sim, _ in served], [ok for _, ok in served], target,
                                          method=method, confidence=confidence)
        if store:
            self.set_threshold(tenant=tenant, threshold=Threshold(
                value=cal.threshold, calibrated=True, target=cal.target, bound=cal.bound,
                n_negatives=cal.n_negatives, model_id=self.model_id, mode=mode,
                source=source or ("feedback" if from_feedback else "pairs")))
        return cal
