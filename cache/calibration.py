"""Threshold calibration: pick the cache threshold that keeps false hits under a target *on fresh data*.

Plain numpy functions, no storage and no model, so the CLI, the replay tool and the benchmarks all
share one implementation.

Why a bound and not the point estimate: on 2–4k labelled non-duplicates, the threshold whose
*observed* false-hit rate is 1% realises 1.2–1.7% on fresh pairs (the lowest threshold that looks
good is, by selection, one that got lucky). So :func:`calibrate` picks the lowest threshold whose
one-sided upper confidence bound (Wilson score or exact Clopper–Pearson) on the false-hit rate
among labelled non-duplicates stays at or under the target, and reports that bound and the number
of pairs it rests on. With zero observed false hits the bound is still about ``3 / n``, so a target
needs at least that many labelled non-duplicates; fewer and calibration refuses rather than guess.

A *score* is what the cache's semantic layer compares with its threshold: the cosine, ``-inf``
when the slot guard vetoes the pair (it never hits) and ``+inf`` when an earlier layer (exact or
near-exact text) serves it whatever the threshold. A pair hits when ``score >= threshold``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Literal

import numpy as np

from lastline.errors import InvalidInput

__all__ = [
    "DEFAULT_CONFIDENCE",
    "Calibration",
    "CurvePoint",
    "Method",
    "calibrate",
    "calibrate_from_feedback",
    "clopper_pearson_upper",
    "false_hit_curve",
    "min_negatives",
    "upper_bound",
    "wilson_upper",
]

Method = Literal["wilson", "clopper-pearson"]
METHODS: tuple[str, ...] = ("wilson", "clopper-pearson")
DEFAULT_CONFIDENCE = 0.95
#: Thresholds are reported on this grid (rounded *up*, which can only lower the false-hit count).
GRID = 1e-4


def _check_kn(k: int, n: int, confidence: float) -> None:
    if n <= 0:
        raise InvalidInput(f"need at least one trial to bound a rate (n={n})")
    if not 0 <= k <= n:
        raise InvalidInput(f"k must be between 0 and n (k={k}, n={n})")
    if not 0.5 <= confidence < 1:
        raise InvalidInput(f"confidence must be in [0.5, 1) (got {confidence})")


def wilson_upper(k: int, n: int, confidence: float = DEFAULT_CONFIDENCE) -> float:
    """One-sided Wilson score upper bound on a rate after ``k`` events in ``n`` trials.

    Close to exact for moderate ``n``, never below ``k / n`` (for confidence ≥ 0.5) and never 0,
    unlike the normal approximation whose bound collapses to 0 when ``k = 0``.
    """
    _check_kn(k, n, confidence)
    z = NormalDist().inv_cdf(confidence)
    p = k / n
    z2 = z * z
    centre = p + z2 / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return float(min(1.0, (centre + spread) / (1 + z2 / n)))


def clopper_pearson_upper(k: int, n: int, confidence: float = DEFAULT_CONFIDENCE) -> float:
    """One-sided exact (Clopper–Pearson) upper bound: the ``confidence`` quantile of Beta(k+1, n-k).

    Conservative by construction (coverage is at least ``confidence`` for every true rate).
    """
    _check_kn(k, n, confidence)
    if k == n:
        return 1.0
    if k == 0:  # closed form, and exact where the beta quantile loses digits
        return float(1.0 - (1.0 - confidence) ** (1.0 / n))
    # The Beta(k+1, n-k) quantile is the p at which P(Binomial(n, p) <= k) = 1 - confidence; that
    # tail falls as p rises, so bisect on it (60 halvings reach float precision). Exact, and no
    # scipy in the core install for this one number.
    alpha = 1.0 - confidence
    lo, hi = k / n, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if _binomial_cdf(k, n, mid) > alpha:
            lo = mid
        else:
            hi = mid
    return float(hi)


def _binomial_cdf(k: int, n: int, p: float) -> float:
    """P(X <= k) for X ~ Binomial(n, p), summed in log space (stable for n in the hundreds of thousands)."""
    if p <= 0.0:
        return 1.0
    if p >= 1.0:
        return 1.0 if k >= n else 0.0
    lp, lq = math.log(p), math.log1p(-p)
    terms = [n * lq]  # log P(X = 0); then log P(X = i) = log P(X = i-1) + log((n-i+1)/i) + log(p/q)
    step = lp - lq
    for i in range(1, k + 1):
        terms.append(terms[-1] + math.log((n - i + 1) / i) + step)
    top = max(terms)
    return min(1.0, math.exp(top) * math.fsum(math.exp(t - top) for t in terms))


def upper_bound(k: int, n: int, method: str = "wilson", confidence: float = DEFAULT_CONFIDENCE) -> float:
    """Dispatch to the named bound."""
    if method == "wilson":
        return wilson_upper(k, n, confidence)
    if method == "clopper-pearson":
        return clopper_pearson_upper(k, n, confidence)
    raise InvalidInput(f"unknown bound method {method!r}; choose one of {', '.join(METHODS)}")


def min_negatives(target: float, method: str = "wilson", confidence: float = DEFAULT_CONFIDENCE) -> int:
    """Fewest labelled non-duplicates whose bound can reach ``target`` (with zero false hits)."""
    _check_target(target)
    if method == "wilson":
        z2 = NormalDist().inv_cdf(confidence) ** 2
        n = math.ceil(z2 * (1 - target) / target - 1e-9)
    elif method == "clopper-pearson":
        n = math.ceil(math.log(1 - confidence) / math.log(1 - target) - 1e-9)
    else:
        upper_bound(0, 1, method, confidence)  # raises the readable error
        raise AssertionError
    n = max(n, 1)
    while upper_bound(0, n, method, confidence) > target:  # float fuzz at the boundary
        n += 1
    return n


def _check_target(target: float) -> None:
    if not 0 < target < 1:
        raise InvalidInput(f"target false-hit rate must be between 0 and 1 (got {target})")


@dataclass(frozen=True)
class CurvePoint:
    """Rates at one threshold: what an operator reads to choose a target."""

    threshold: float
    hit_rate: float          # share of labelled duplicates that hit (recall)
    false_hit_rate: float    # share of labelled non-duplicates that hit (point estimate)
    bound: float             # upper confidence bound on false_hit_rate
    hits: int
    false_hits: int


@dataclass(frozen=True)
class Calibration:
    """The chosen threshold and the evidence behind it."""

    threshold: float
    bound: float
    n_negatives: int
    n_positives: int
    false_hit_rate: float
    hit_rate: float
    target: float
    method: str = "wilson"
    confidence: float = DEFAULT_CONFIDENCE
    basis: str = "pairs"     # "served": pairs judged as a full cache serves; "pairs": pair by pair;
                             # "feedback": served hits marked correct/incorrect
    curve: tuple[CurvePoint, ...] = field(default=(), repr=False)
    #: Served-decision basis: entries in the scratch partition, and the share of answers served at
    #: the threshold that were right (labels are incomplete: unlabelled duplicates count as wrong).
    partition_size: int | None = None
    precision: float | None = None
    language: str = "*"

    def to_dict(self) -> dict[str, object]:
        data = {k: v for k, v in self.__dict__.items() if k != "curve"}
        data["curve"] = [p.__dict__ for p in self.curve]
        return data


def _as_arrays(scores: Sequence[float] | np.ndarray, labels: Sequence[object] | np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    s = np.asarray(scores, dtype=np.float64).ravel()
    y = np.asarray(labels).ravel()
    if s.shape != y.shape:
        raise InvalidInput(f"scores and labels differ in length ({s.size} vs {y.size})")
    if y.dtype.kind not in "biuf" or not np.isin(y, (0, 1)).all():
        raise InvalidInput("labels must be 0 (not a duplicate) or 1 (duplicate)")
    s = np.where(np.isnan(s), -np.inf, s)  # an unscorable pair never hits
    return s, y.astype(bool)


def _count_at_or_above(sorted_scores: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    return sorted_scores.size - np.searchsorted(sorted_scores, thresholds, side="left")


def false_hit_curve(scores: Sequence[float] | np.ndarray, labels: Sequence[object] | np.ndarray,
                    thresholds: Sequence[float] | np.ndarray, method: str = "wilson",
                    confidence: float = DEFAULT_CONFIDENCE) -> list[CurvePoint]:
    """Hit rate, false-hit rate and its bound at each threshold (hit means ``score >= threshold``)."""
    s, y = _as_arrays(scores, labels)
    pos, neg = np.sort(s[y]), np.sort(s[~y])
    t = np.asarray(thresholds, dtype=np.float64)
    hits, false_hits = _count_at_or_above(pos, t), _count_at_or_above(neg, t)
    points = []
    for i, thr in enumerate(t):
        fh = int(false_hits[i])
        points.append(CurvePoint(
            threshold=float(thr),
            hit_rate=float(hits[i] / pos.size) if pos.size else 0.0,
            false_hit_rate=float(fh / neg.size) if neg.size else 0.0,
            bound=upper_bound(fh, neg.size, method, confidence) if neg.size else 1.0,
            hits=int(hits[i]), false_hits=fh,
        ))
    return points


def _default_grid(s: np.ndarray, negatives: np.ndarray, chosen: float, points: int = 21) -> np.ndarray:
    """Evenly spaced from where a quarter of the non-duplicates would hit up to the top score."""
    finite, neg = s[np.isfinite(s)], negatives[np.isfinite(negatives)]
    lo = float(np.quantile(neg, 0.75)) if neg.size else 0.0
    hi = float(min(1.0, finite.max())) if finite.size else 1.0
    lo = min(lo, chosen)
    grid = np.round(np.linspace(lo, hi, points), 3)
    return np.unique(np.append(grid, chosen))


def _grid_above(value: float) -> float:
    """Smallest point of the reporting grid at least 1e-6 above ``value``.

    The margin absorbs float32 summation-order differences between our scoring and FAISS.
    """
    t = round(math.floor(value / GRID) * GRID + GRID, 6)
    while t <= value + 1e-6:
        t = round(t + GRID, 6)
    return t


def calibrate(scores: Sequence[float] | np.ndarray, labels: Sequence[object] | np.ndarray, target: float,
              method: str = "wilson", confidence: float = DEFAULT_CONFIDENCE,
              grid: Sequence[float] | None = None) -> Calibration:
    """Lowest threshold whose upper bound on the false-hit rate among non-duplicates is ≤ ``target``.

    ``scores``: what the cache compares with its threshold, one per labelled pair (``-inf``/NaN for
    a pair that can never hit); ``labels``: 1 duplicate, 0 not. Raises :class:`InvalidInput` when
    there are too few labelled non-duplicates for the target to be reachable at all.
    """
    _check_target(target)
    upper_bound(0, 1, method, confidence)  # validates method and confidence
    s, y = _as_arrays(scores, labels)
    neg_desc = np.sort(s[~y])[::-1]
    n_neg, n_pos = int(neg_desc.size), int(y.sum())
    need = min_negatives(target, method, confidence)
    if n_neg < need:
        raise InvalidInput(
            f"a {target:.2%} false-hit target needs at least {need} labelled non-duplicates "
            f"(is_duplicate=0) for its {confidence:.0%} {method} bound; got {n_neg}. "
            "Label more pairs or raise the target."
        )
    # Largest number of false hits whose bound is still within the target (bound rises with k).
    lo, hi = 0, n_neg
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if upper_bound(mid, n_neg, method, confidence) <= target:
            lo = mid
        else:
            hi = mid - 1
    k_max = lo
    if k_max < n_neg and neg_desc[k_max] >= 1.0:
        always = int((neg_desc >= 1.0).sum())
        raise InvalidInput(
            f"no threshold in [0, 1] meets {target:.2%}: {always} of {n_neg} labelled non-duplicates "
            f"({always / n_neg:.2%}) hit at any threshold (same or near-same text, or cosine 1.0) and the "
            f"bound allows at most {k_max}; check those labels or raise the target"
        )
    if k_max >= n_neg or not np.isfinite(neg_desc[k_max]):
        finite = s[np.isfinite(s)]
        threshold = max(0.0, float(np.floor(finite.min() / GRID) * GRID)) if finite.size else 0.0
    else:
        threshold = _grid_above(float(neg_desc[k_max]))  # just above the (k_max+1)-th best negative
    threshold = min(threshold, 1.0)
    point = false_hit_curve(s, y, [threshold], method, confidence)[0]
    grid_t = np.asarray(grid, dtype=np.float64) if grid is not None else _default_grid(s, neg_desc, threshold)
    return Calibration(
        threshold=threshold, bound=point.bound, n_negatives=n_neg, n_positives=n_pos,
        false_hit_rate=point.false_hit_rate, hit_rate=point.hit_rate, target=target,
        method=method, confidence=confidence, basis="pairs",
        curve=tuple(false_hit_curve(s, y, grid_t, method, confidence)),
    )


def calibrate_from_feedback(similarities: Sequence[float] | np.ndarray, correct: Sequence[object] | np.ndarray,
                            target: float, method: str = "wilson",
                            confidence: float = DEFAULT_CONFIDENCE) -> Calibration:
    """Threshold from served semantic hits that users marked correct or incorrect.

    Feedback only exists for pairs that *were* served, so it bounds a different rate: the share of
    served answers that are wrong among hits scoring at or above a threshold. The threshold is the
    lowest observed similarity ``t`` whose served hits at or above ``t`` are numerous enough and
    whose upper bound on the wrong share is ≤ ``target``; nothing below the lowest served
    similarity can be learned, so the result never goes below it. ``n_negatives`` here counts the
    served hits the bound rests on; ``hit_rate`` is the share of correct hits kept.
    """
    _check_target(target)
    upper_bound(0, 1, method, confidence)
    s, ok = _as_arrays(similarities, correct)
    need = min_negatives(target, method, confidence)
    if s.size < need:
        raise InvalidInput(
            f"a {target:.2%} wrong-answer target needs feedback on at least {need} served hits "
            f"for its {confidence:.0%} {method} bound; got {s.size}"
        )
    order = np.argsort(-s, kind="stable")
    s_desc, wrong_desc = s[order], ~ok[order]
    n_wrong_cum = np.cumsum(wrong_desc)
    chosen: tuple[float, int, int] | None = None
    i = s_desc.size - 1
    while i >= need - 1:  # candidates from the lowest similarity up; ties share one threshold
        t = s_desc[i]
        j = int(np.searchsorted(-s_desc, -t, side="right")) - 1  # last index with score >= t
        n, k = j + 1, int(n_wrong_cum[j])
        if n >= need and upper_bound(k, n, method, confidence) <= target:
            chosen = (float(t), n, k)
            break
        i = int(np.searchsorted(-s_desc, -t, side="left")) - 1
    if chosen is None:
        raise InvalidInput(
            f"no similarity threshold keeps the {confidence:.0%} bound on wrong answers under "
            f"{target:.2%} with the {s.size} feedback rows given ({int((~ok).sum())} marked incorrect)"
        )
    t, n, k = chosen
    threshold = round(math.floor(t / GRID) * GRID, 6)  # round *down* to the grid: still only admits rows ≥ it
    threshold = t if _count_at_or_above(np.sort(s), np.array([threshold]))[0] != n else threshold
    correct_total = int(ok.sum())
    return Calibration(
        threshold=float(threshold), bound=upper_bound(k, n, method, confidence), n_negatives=n,
        n_positives=correct_total, false_hit_rate=k / n,
        hit_rate=float((n - k) / correct_total) if correct_total else 0.0,
        target=target, method=method, confidence=confidence, basis="feedback",
    )
