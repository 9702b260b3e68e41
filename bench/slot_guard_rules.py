"""What each slot-guard rule earns and costs, on labelled pairs and on value-changed variants.

For every guard configuration and development set (QQP val, LCQMC dev, BQ dev; whole files):
- ``dup kept``: share of labelled duplicates the guard lets through (1.0 = it never blocks a
  true paraphrase), overall and among pairs at/above the cosine threshold;
- ``hit@t`` / ``false@t``: hit rate on duplicates and false-hit rate on non-duplicates of
  "cosine ≥ t and guard ok" at the shipped intercept and fallback thresholds;
- ``hit@own2% / false@own2%``: the same at the set's own plain-cosine threshold for 2% false hits
  (roughly where a tenant calibrated on such data would sit), so the guard's cost at lower
  thresholds shows;
- ``value-changed false hits``: questions with one number changed (bench/_cache_common.py),
  looked up against the original: share served (cosine ≥ t and guard ok);
- ``rewrites kept``: trivial rewrites (case, spacing, punctuation width, trailing ?) that still
  pass the guard.

Then, per rule that judges only the changed words (antonym, Chinese negation, role swap, name),
each alone on top of the value guard: labelled pairs it vetoes that the value guard lets through,
duplicates (right answers lost) against non-duplicates (false hits saved), over all pairs and
among pairs at or above the set's own 2% threshold (where a veto changes what is served).

Run: ``python bench/slot_guard_rules.py [--embedder use] [--limit N] [--sets qqp_val … atec_train]
[--max-pairs N] [--rules-only] [--write]``; prints markdown tables. ``--rules-only`` measures the
per-rule veto counts alone and writes them as their own subsection of "Slot guard: polarity and
names". ``--max-pairs`` scores a random sample of that many pairs per set (seeded; the sample size
is printed with the set). Cosines are kept on disk under ``$LASTLINE_COSINE_CACHE`` (default
``/tmp/lastline-bench-cosines``), keyed by the model and the texts, so a re-run after a rule
change does not embed the sets again.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import os
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _cache_common import CACHE_DATA, SETS, rewrite, value_variant
from _common import Section

from lastline import get_embedder, normalize_text
from lastline.cache import SlotGuard, default_threshold

SECTION = "### Slot guard rules (`bench/slot_guard_rules.py`)"
#: ``--rules-only`` writes the per-rule veto counts alone, as their own section.
RULES_SECTION = "### Per rule on the labelled pairs (`bench/slot_guard_rules.py --rules-only`)"

_CHANGED_OFF = {"antonyms": False, "changed_negation_zh": False, "role_swaps": False, "names": False,
                "names_zh_spans": False, "swapped_nouns_zh": False, "derived_zh": False, "affixes_en": False,
                "reversals_zh": False, "composed_zh": False, "swapped_word_en": False}
_CONSTRUCTIONS = {"affixes_en": True, "reversals_zh": True, "composed_zh": True}
CONFIGS = {
    "none": None,
    "values, compared only when both carry a kind": SlotGuard(one_sided="both", negation_en=False, **_CHANGED_OFF),
    "values, one-sided counts as different": SlotGuard(negation_en=False, **_CHANGED_OFF),
    "values + EN negation": SlotGuard(**_CHANGED_OFF),
    "values + EN + ZH negation anywhere (不没无未别非)": SlotGuard(negation_zh=True, **_CHANGED_OFF),
    "values + EN negation + antonyms": SlotGuard(**{**_CHANGED_OFF, "antonyms": True}),
    "… + ZH opposites bridged from CC-CEDICT": SlotGuard(**{**_CHANGED_OFF, "antonyms": True, "derived_zh": True}),
    "… + EN affixes, ZH reversal verbs and composed characters": SlotGuard(
        **{**_CHANGED_OFF, "antonyms": True, "derived_zh": True, **_CONSTRUCTIONS}),
    "… + ZH negation, when it is all that differs": SlotGuard(**{**_CHANGED_OFF, "antonyms": True, "derived_zh": True,
                                                                 **_CONSTRUCTIONS, "changed_negation_zh": True}),
    "… + role swaps": SlotGuard(names=False, names_zh_spans=False, swapped_nouns_zh=False),
    "… + names": SlotGuard(names_zh_spans=False, swapped_nouns_zh=False),
    "… + ZH names, differing stretches taken whole": SlotGuard(swapped_nouns_zh=False),
    "… + ZH one-noun swaps": SlotGuard(swapped_word_en=False),
    "… + EN swapped word in place (default)": SlotGuard(),
    "default + minimal-edit swaps (EN, ZH) and ZH swapped stretches (off by default)":
        SlotGuard(swaps_en=True, swaps_zh=True, stretch_zh=True),
}
_ALONE = {"values": False, "negation_en": False, **_CHANGED_OFF}
#: Each changed-words rule alone, for the per-rule veto counts.
RULES = {
    "antonym": SlotGuard(**{**_ALONE, "antonyms": True}),
    "antonym + CC-CEDICT bridge": SlotGuard(**{**_ALONE, "antonyms": True, "derived_zh": True}),
    "antonym + bridge + EN opposite affixes": SlotGuard(**{**_ALONE, "antonyms": True, "derived_zh": True,
                                                           "affixes_en": True}),
    "antonym + bridge + ZH reversal verbs": SlotGuard(**{**_ALONE, "antonyms": True, "derived_zh": True,
                                                         "reversals_zh": True}),
    "antonym + bridge + ZH composed characters": SlotGuard(**{**_ALONE, "antonyms": True, "derived_zh": True,
                                                              "composed_zh": True}),
    "antonym, all lists and constructions (default)": SlotGuard(**{**_ALONE, "antonyms": True, "derived_zh": True,
                                                                   **_CONSTRUCTIONS}),
    "negation_zh, any in the changed words (before)": SlotGuard(**{**_ALONE, "changed_negation_zh": True,
                                                                   "negation_zh_alone": False}),
    "negation_zh, all that differs (default)": SlotGuard(**{**_ALONE, "changed_negation_zh": True}),
    "swap, one English word swapped in place (default)": SlotGuard(**{**_ALONE, "swapped_word_en": True}),
    "swap, one English word without a synonym, any order (off)": SlotGuard(**{**_ALONE, "swaps_en": True}),
    "swap, one Chinese word without a synonym (off)": SlotGuard(**{**_ALONE, "swaps_zh": True}),
    "stretch_zh, one swapped Chinese stretch (off)": SlotGuard(**{**_ALONE, "stretch_zh": True}),
    "role_swap": SlotGuard(**{**_ALONE, "role_swaps": True}),
    "name": SlotGuard(**{**_ALONE, "names": True}),
    "name_zh, differing stretches taken whole (new)": SlotGuard(**{**_ALONE, "names_zh_spans": True}),
    "noun_zh (one-noun swap)": SlotGuard(**{**_ALONE, "swapped_nouns_zh": True}),
}
DEFAULT_OFF = SlotGuard(**_CHANGED_OFF)
#: Each construction judged on top of the whole default guard: (the default, the default without it).
ON_DEFAULT = {
    "EN opposite affixes (unsafe / safe, over / under)": (SlotGuard(), SlotGuard(affixes_en=False)),
    "ZH reversal verbs (申请 / 撤销, 开通 / 注销)": (SlotGuard(), SlotGuard(reversals_zh=False)),
    "ZH composed characters (质量好 / 质量差)": (SlotGuard(), SlotGuard(composed_zh=False)),
    "EN swapped word in place (real / fake, install / remove)": (SlotGuard(), SlotGuard(swapped_word_en=False)),
    "minimal-edit swaps EN (off)": (SlotGuard(swaps_en=True), SlotGuard()),
    "minimal-edit swaps ZH (off)": (SlotGuard(swaps_zh=True), SlotGuard()),
    "ZH swapped stretches (off)": (SlotGuard(stretch_zh=True), SlotGuard()),
}


#: The sets the bar is read on: the three development sets and ATEC (Chinese, the hit verifier's
#: training file, never tuned on here).
BAR_SETS = {**SETS, "atec_train": "zh"}
COSINE_CACHE = Path(os.environ.get("LASTLINE_COSINE_CACHE", "/tmp/lastline-bench-cosines"))


def load(name: str, limit: int | None, max_pairs: int | None = None) -> tuple[list[str], list[str], np.ndarray]:
    """The pairs of a set: the first ``limit``, or a seeded random sample of ``max_pairs``."""
    with open(CACHE_DATA / f"{name}.csv", encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.DictReader(fh))[:limit]
    if max_pairs is not None and max_pairs < len(rows):
        rows = random.Random(13).sample(rows, max_pairs)
    return ([r["question1"] for r in rows], [r["question2"] for r in rows],
            np.array([int(r["is_duplicate"]) for r in rows]))


def cosines(embedder, a: list[str], b: list[str]) -> np.ndarray:  # type: ignore[no-untyped-def]
    """Cosine of each pair, read from the disk cache when the same model scored the same texts before."""
    key = hashlib.sha1("\x00".join([embedder.model_id, *a, "\x01", *b]).encode()).hexdigest()[:20]
    path = COSINE_CACHE / f"{key}.npy"
    if path.exists():
        return np.load(path)

    def enc(texts: list[str]) -> np.ndarray:
        norm = [normalize_text(t) or t for t in texts]
        return np.concatenate([embedder.encode(norm[i:i + 256]) for i in range(0, len(norm), 256)])
    out = (enc(a) * enc(b)).sum(axis=1)
    COSINE_CACHE.mkdir(parents=True, exist_ok=True)
    np.save(path, out)
    return out


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--embedder", default="use")
    parser.add_argument("--limit", type=int, default=None, help="first N pairs of each file (smoke runs)")
    parser.add_argument("--max-pairs", type=int, default=None, help="a seeded random sample of N pairs per set")
    parser.add_argument("--sets", nargs="+", default=list(SETS), choices=list(BAR_SETS))
    parser.add_argument("--rules-only", action="store_true", help="the per-rule veto counts alone")
    parser.add_argument("--write", action="store_true", help="replace this script's section of docs/benchmarks.md")
    return parser.parse_args()


def main() -> None:
    args = _args()
    rules_only = args.rules_only
    emb = get_embedder(args.embedder, 1)
    t_int = default_threshold(emb.model_id, "intercept").value
    t_fb = default_threshold(emb.model_id, "fallback").value
    out = Section(RULES_SECTION if rules_only else SECTION,
                  None)
    out(f"Embedder {emb.model_id}, thresholds intercept {t_int} / fallback {t_fb}.\n")
    rng = random.Random(11)
    for name in args.sets:
        lang = BAR_SETS[name]
        q1, q2, y = load(name, args.limit, args.max_pairs)
        started = time.perf_counter()
        cos = cosines(emb, q1, q2)
        uniq = list(dict.fromkeys(q1 + q2))
        variants = [] if rules_only else [(q, v) for q in uniq if (v := value_variant(q, rng)) is not None]
        rewrites = [] if rules_only else [(q, rewrite(q, rng)[1]) for q in uniq[:3000]]
        vcos = cosines(emb, [q for q, _ in variants], [v for _, v in variants]) if variants else np.zeros(0)
        sample = f" (a seeded sample of {args.max_pairs})" if args.max_pairs and len(y) == args.max_pairs else ""
        out(f"### {name} ({lang}): {len(y)} pairs{sample} ({int(y.sum())} duplicates), "
            f"{len(variants)} value-changed variants, {len(rewrites)} rewrites "
            f"(cosines in {time.perf_counter() - started:.0f}s)\n")
        t_own = float(np.sort(cos[y == 0])[::-1][int(0.02 * int((y == 0).sum()))])
        out(f"Own 2% plain-cosine threshold: {t_own:.4f}. The first guard row's time includes entity "
            "extraction (cached for the later rows).\n")
        if not rules_only:
            _configs_table(out, q1, q2, y, cos, variants, vcos, rewrites, t_int, t_fb, t_own)
        _rules_table(out, q1, q2, y, cos, t_own)
    out.done(args.write)


def _configs_table(out: Section, q1: list[str], q2: list[str], y: np.ndarray, cos: np.ndarray,
                   variants: list[tuple[str, str]], vcos: np.ndarray, rewrites: list[tuple[str, str]],
                   t_int: float, t_fb: float, t_own: float) -> None:
    out("| guard | dup kept (all) | dup kept (cos≥fb) | hit@int | false@int | hit@fb | false@fb "
        "| hit@own2% | false@own2% | value-changed false hits @int / @fb / guard only | rewrites kept "
        "| ms per pair |")
    out("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for label, guard in CONFIGS.items():
        started = time.perf_counter()
        ok = np.ones(len(y), bool) if guard is None else np.array(
            [guard.ok(a, b) for a, b in zip(q1, q2, strict=True)])
        per_pair = (time.perf_counter() - started) / len(y) * 1000
        vok = np.ones(len(variants), bool) if guard is None else np.array(
            [guard.ok(v, q) for q, v in variants])
        rok = 1.0 if guard is None else float(np.mean([guard.ok(r, q) for q, r in rewrites]))
        dup, neg = y == 1, y == 0
        above = cos >= t_fb
        cells = [
            f"{ok[dup].mean():.3f}", f"{ok[dup & above].mean():.3f}",
            f"{(ok & (cos >= t_int))[dup].mean():.3f}", f"{(ok & (cos >= t_int))[neg].mean():.4f}",
            f"{(ok & above)[dup].mean():.3f}", f"{(ok & above)[neg].mean():.4f}",
            f"{(ok & (cos > t_own))[dup].mean():.3f}", f"{(ok & (cos > t_own))[neg].mean():.4f}",
            f"{(vok & (vcos >= t_int)).mean():.3f} / {(vok & (vcos >= t_fb)).mean():.3f} / {vok.mean():.3f}",
            f"{rok:.3f}", f"{per_pair:.3f}",
        ]
        out(f"| {label} | " + " | ".join(cells) + " |")
    out()


def _rules_table(out: Section, q1: list[str], q2: list[str], y: np.ndarray, cos: np.ndarray, t_own: float) -> None:
    base_ok = np.array([DEFAULT_OFF.ok(b, a) for a, b in zip(q1, q2, strict=True)])
    out("Each rule alone, on pairs the default guard minus its changed-words rules lets through: "
        "*dup vetoed* = right answers it costs, *non-dup vetoed* = false hits it saves. A rule earns its "
        "place when, above the own-2% threshold, it saves at least as many as it costs.\n")
    out("| rule (alone, on top of values + EN negation) | dup vetoed (all) | non-dup vetoed (all) "
        "| dup vetoed (cos > own 2%) | non-dup vetoed (cos > own 2%) | ms per pair |")
    out("|---|---|---|---|---|---|")
    for label, rule in RULES.items():
        started = time.perf_counter()
        veto = ~np.array([rule.ok(b, a) for a, b in zip(q1, q2, strict=True)]) & base_ok
        per_pair = (time.perf_counter() - started) / len(y) * 1000
        dup, neg, top = y == 1, y == 0, cos > t_own
        out(f"| {label} | {int((veto & dup).sum())} of {int(dup.sum())} | {int((veto & neg).sum())} of "
            f"{int(neg.sum())} | {int((veto & dup & top).sum())} of {int((dup & top & base_ok).sum())} | "
            f"{int((veto & neg & top).sum())} of {int((neg & top & base_ok).sum())} | {per_pair:.3f} |")
    out()
    out("Each construction on top of the whole default guard (what switching it on or off changes): pairs the "
        "default guard vetoes that it lets through without the construction.\n")
    out("| construction (on top of the default guard) | dup vetoed (all) | non-dup vetoed (all) "
        "| dup vetoed (cos > own 2%) | non-dup vetoed (cos > own 2%) |")
    out("|---|---|---|---|---|")
    dup, neg, top = y == 1, y == 0, cos > t_own
    judged: dict[SlotGuard, np.ndarray] = {}  # each configuration judged once (the default recurs)

    def oks(guard: SlotGuard) -> np.ndarray:
        if guard not in judged:
            judged[guard] = np.array([guard.ok(b, a) for a, b in zip(q1, q2, strict=True)])
        return judged[guard]
    notes: list[str] = []
    for label, (with_rule, without) in ON_DEFAULT.items():
        veto = ~oks(with_rule) & oks(without)
        out(f"| {label} | {int((veto & dup).sum())} | {int((veto & neg).sum())} | {int((veto & dup & top).sum())} "
            f"| {int((veto & neg & top).sum())} |")
        if "(off)" not in label:
            for kind, mask in (("duplicate vetoed", dup), ("non-duplicate vetoed", neg)):
                shown = [(a, b) for a, b, v, m, t in zip(q1, q2, veto, mask, top, strict=True) if v and m and t][:5]
                notes += [f"- {label.split(' (')[0]}, {kind}: {a!r} / {b!r}" for a, b in shown]
    out()
    if notes:
        out("Pairs above the own-2% threshold the default constructions veto (first five of each kind):\n")
        out("\n".join(notes) + "\n")


if __name__ == "__main__":
    main()
