"""Calibration maths: the bounds, the threshold choice, and refusing to calibrate on too little data."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lastline import InvalidInput
from lastline.cache.calibration import (
    calibrate,
    calibrate_from_feedback,
    clopper_pearson_upper,
    false_hit_curve,
    min_negatives,
    upper_bound,
    wilson_upper,
)

METHODS = ["wilson", "clopper-pearson"]
kn = st.integers(min_value=1, max_value=5000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n)))


@pytest.mark.parametrize(
    ("k", "n", "method", "expected"),
    [
        (0, 100, "clopper-pearson", 0.029513),  # 1 - 0.05 ** (1/100): the "rule of three" regime
        (1, 10, "clopper-pearson", 0.394163),   # textbook one-sided 95% exact bound
        (5, 100, "clopper-pearson", 0.102253),  # P(Binomial(100, 0.102253) <= 5) = 0.05
        (0, 100, "wilson", 0.026343),           # z² / (n + z²) with z = 1.645
        (5, 100, "wilson", 0.099161),
        (20, 1000, "wilson", 0.028682),
    ],
)
def test_bounds_match_known_values(k: int, n: int, method: str, expected: float) -> None:
    assert upper_bound(k, n, method) == pytest.approx(expected, abs=2e-6)


@pytest.mark.parametrize("method", METHODS)
@given(kn)
@settings(max_examples=60, deadline=None)
def test_bound_is_at_least_the_point_estimate(method: str, pair: tuple[int, int]) -> None:
    k, n = pair
    assert upper_bound(k, n, method) >= k / n - 1e-12
    assert 0 < upper_bound(k, n, method) <= 1


@pytest.mark.parametrize("method", METHODS)
@given(kn)
@settings(max_examples=60, deadline=None)
def test_bound_rises_with_false_hits_and_falls_with_more_trials(method: str, pair: tuple[int, int]) -> None:
    k, n = pair
    if k < n:
        assert upper_bound(k + 1, n, method) > upper_bound(k, n, method)
    assert upper_bound(k, n + 1, method) <= upper_bound(k, n, method) + 1e-12


@given(kn)
@settings(max_examples=60, deadline=None)
def test_exact_bound_is_never_below_wilson_by_much(pair: tuple[int, int]) -> None:
    k, n = pair  # Clopper–Pearson is the conservative one; Wilson may sit slightly above it at k≈0
    assert clopper_pearson_upper(k, n) >= wilson_upper(k, n) - 0.02


def test_higher_confidence_gives_a_higher_bound() -> None:
    assert wilson_upper(3, 200, 0.99) > wilson_upper(3, 200, 0.95) > wilson_upper(3, 200, 0.8)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("target", [0.005, 0.01, 0.02, 0.05])
def test_min_negatives_is_where_zero_false_hits_first_fits_the_target(method: str, target: float) -> None:
    n = min_negatives(target, method)
    assert upper_bound(0, n, method) <= target < upper_bound(0, n - 1, method)
    assert 2.5 / target < n < 4 / target  # about 3 / target, the "rule of three"


@pytest.mark.parametrize("method", METHODS)
def test_calibrate_refuses_too_few_negatives_and_says_how_many_it_needs(method: str) -> None:
    need = min_negatives(0.02, method)
    scores = np.linspace(0, 1, need - 1 + 50)
    labels = np.r_[np.zeros(need - 1), np.ones(50)]
    with pytest.raises(InvalidInput) as err:
        calibrate(scores, labels, 0.02, method=method)
    assert f"at least {need} labelled non-duplicates" in err.value.detail
    assert f"got {need - 1}" in err.value.detail


def test_calibrate_rejects_bad_target_method_and_labels() -> None:
    with pytest.raises(InvalidInput, match="between 0 and 1"):
        calibrate([0.5], [0], 0.0)
    with pytest.raises(InvalidInput, match="unknown bound method"):
        calibrate([0.5], [0], 0.02, method="normal")
    with pytest.raises(InvalidInput, match=r"0 \(not a duplicate\) or 1"):
        calibrate([0.5, 0.6], [0, 2], 0.02)
    with pytest.raises(InvalidInput, match="differ in length"):
        calibrate([0.5, 0.6], [0], 0.02)


def _synthetic(seed: int = 0, n_neg: int = 3000, n_pos: int = 2000) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    scores = np.r_[rng.normal(0.6, 0.1, n_neg), rng.normal(0.85, 0.07, n_pos)]
    return scores, np.r_[np.zeros(n_neg), np.ones(n_pos)]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("target", [0.01, 0.02])
def test_calibrated_threshold_is_the_lowest_whose_bound_fits(method: str, target: float) -> None:
    scores, labels = _synthetic()
    cal = calibrate(scores, labels, target, method=method)
    assert cal.bound <= target
    assert cal.false_hit_rate < cal.bound
    below = false_hit_curve(scores, labels, [cal.threshold - 1e-4], method)[0]
    assert below.bound > target  # one grid step lower would break the target
    assert (cal.n_negatives, cal.n_positives) == (3000, 2000)
    assert cal.curve and any(p.threshold == cal.threshold for p in cal.curve)


def test_bound_choice_is_stricter_than_the_point_estimate() -> None:
    scores, labels = _synthetic()
    cal = calibrate(scores, labels, 0.02)
    naive = min(p.threshold for p in false_hit_curve(scores, labels, np.arange(0.5, 1, 1e-4))
                if p.false_hit_rate <= 0.02)
    assert cal.threshold > naive


def test_guard_vetoed_pairs_never_count_as_hits() -> None:
    scores, labels = _synthetic()
    vetoed = scores.copy()
    vetoed[:100] = -np.inf  # the 100 first negatives blocked by the slot guard
    vetoed[3000] = np.nan   # and an unscorable duplicate
    assert calibrate(vetoed, labels, 0.02).threshold <= calibrate(scores, labels, 0.02).threshold
    point = false_hit_curve(vetoed, labels, [0.0])[0]
    assert point.false_hits == 2900 and point.hits == 1999


def test_when_the_guard_vetoes_every_negative_the_threshold_drops_to_the_lowest_score() -> None:
    scores = np.r_[np.full(400, -np.inf), np.linspace(0.4, 0.9, 10)]
    labels = np.r_[np.zeros(400), np.ones(10)]
    cal = calibrate(scores, labels, 0.01)
    assert cal.threshold == pytest.approx(0.4) and cal.hit_rate == 1.0 and cal.false_hit_rate == 0


def test_target_unreachable_below_cosine_one_is_refused() -> None:
    scores = np.r_[np.full(300, 1.0), np.full(10, 1.0)]  # identical pairs labelled non-duplicates
    labels = np.r_[np.zeros(300), np.ones(10)]
    with pytest.raises(InvalidInput, match="no threshold in"):
        calibrate(scores, labels, 0.02)


def test_calibration_serializes_with_its_curve() -> None:
    data = calibrate(*_synthetic(), 0.02).to_dict()
    assert data["basis"] == "pairs" and data["curve"][0].keys() >= {"threshold", "bound", "hit_rate"}


def test_feedback_calibration_keeps_wrong_answers_under_the_target() -> None:
    rng = np.random.default_rng(1)
    sims = rng.uniform(0.7, 1.0, 2000)
    correct = rng.random(2000) > np.where(sims < 0.8, 0.2, 0.002)  # low scores are often wrong
    cal = calibrate_from_feedback(sims, correct, 0.02)
    kept = sims >= cal.threshold
    assert cal.basis == "feedback" and cal.bound <= 0.02
    assert cal.n_negatives == int(kept.sum())
    assert cal.false_hit_rate == pytest.approx((~correct[kept]).mean())
    assert 0.75 <= cal.threshold <= 0.85
    assert calibrate_from_feedback(sims, correct, 0.02, method="clopper-pearson").threshold >= cal.threshold


def test_feedback_calibration_refuses_too_little_feedback() -> None:
    with pytest.raises(InvalidInput, match="feedback on at least"):
        calibrate_from_feedback([0.9] * 20, [True] * 20, 0.02)


def test_feedback_calibration_refuses_when_every_level_is_too_wrong() -> None:
    with pytest.raises(InvalidInput, match="no similarity threshold"):
        calibrate_from_feedback([0.9] * 400, [False] * 400, 0.02)
