"""Judged replay: what a *full* cache serves, judged by duplicate classes, chosen on one half, told on the other.

Set-up, per development file (QQP val, LCQMC dev, BQ dev; ATEC train as a Chinese check):

1. the pairs are split in two halves sharing no question (``split_by_question``); the threshold is
   chosen on half A and every figure below is measured on half B;
2. in each half, questions form classes (transitive closure of the duplicate labels); a seeded half
   of the classes is *stored* (one question each, in one partition), the other half is not;
3. the other members of stored classes are looked up (they should hit their class), and every
   question of a not-stored class is looked up (it should miss: any answer is someone else's).

Each lookup runs once through the real cache at threshold 0 (``lastline.cache.served``): the
answer served at any threshold follows from it. Thresholds compared, each chosen on half A:

- ``pairs`` — today's pair calibration (``calibrate`` on ``score_pairs``) at the target;
- ``served`` — calibration on served decisions (the bound on false hits of not-stored lookups
  ≤ target), what ``SemanticCache.calibrate`` now does;
- ``shipped`` — the uncalibrated defaults (intercept, fallback) for the set's language.

Reported on half B: served precision (right answers / answers served), recall (should-hit lookups
answered with their class), the share of not-stored lookups served an answer, and recall relative to
the best fixed threshold chosen on half B itself at the same false-answer rate. Labels are
incomplete (an unlabelled duplicate served counts as wrong); ``--examples`` prints wrong answers
served at the chosen threshold for reading by hand.

Usage: python bench/served_replay.py [--sets qqp_val lcqmc_dev bq_dev atec_train] [--targets 0.01 0.02]
       [--max-pairs 12000] [--examples 20] [--write]
"""

from __future__ import annotations

import argparse
import random
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _cache_common import MemoEmbedder, faiss_single_thread, load_set, machine_line, split_by_question, temp_cache

from lastline import InvalidInput, get_embedder, language_of, normalize_text
from lastline.cache import CacheConfig, default_threshold
from lastline.cache.calibration import calibrate
from lastline.cache.pairs import LabelledPairs, score_pairs
from lastline.cache.served import ServedScores, duplicate_classes, judge_lookups

SETS = ("qqp_val", "lcqmc_dev", "bq_dev", "atec_train")
HEADING = "## Served decisions: judged replay of a full cache (bench/served_replay.py)"


@dataclass
class Half:
    pairs: LabelledPairs
    served: ServedScores
    wrong: list[tuple[str, str, float, bool]]
    pair_scores: np.ndarray


def build_half(pairs: LabelledPairs, embedder: object, seed: int) -> Half:
    """Store one question of a seeded half of the classes; look up everything else; judge it."""
    classes = duplicate_classes(pairs)
    members: dict[int, list[str]] = {}
    originals: dict[str, str] = {}
    for q in [*pairs.first, *pairs.second]:
        norm = normalize_text(q)
        if norm not in originals:
            originals[norm] = q
            members.setdefault(classes[norm], []).append(q)
    rng = random.Random(seed)
    stored: list[str] = []
    lookups: list[str] = []
    for cls in sorted(members):
        qs = members[cls]
        if rng.random() < 0.5:
            pick = rng.randrange(len(qs))
            stored.append(qs[pick])
            lookups += qs[:pick] + qs[pick + 1:]
        else:
            lookups += qs
    scratch = temp_cache(CacheConfig(record_lookups=False), "served", embedder)
    wrong: list[tuple[str, str, float, bool]] = []
    served = judge_lookups(scratch, stored, lookups, classes, wrong)
    return Half(pairs, served, wrong, score_pairs(scratch, pairs))


def best_fixed_recall(s: ServedScores, max_false: float) -> float:
    """Highest recall of any fixed threshold on these lookups whose not-stored false-hit rate ≤ ``max_false``."""
    y = s.labels.astype(bool)
    neg = np.sort(s.scores[~y])[::-1]
    k = int(np.floor(max_false * neg.size + 1e-9))
    t = float(np.nextafter(neg[k], np.inf)) if k < neg.size else -np.inf
    return float((s.scores[y] >= t).mean()) if y.any() else 0.0


def row(name: str, rule: str, t: float | None, test: ServedScores) -> dict[str, object]:
    if t is None:
        return {"set": name, "rule": rule, "t": None}
    m = test.at(t)
    best = best_fixed_recall(test, float(m["false_hit_not_stored"]))
    return {"set": name, "rule": rule, "t": t, **m, "best_recall": best,
            "ratio": (float(m["recall"]) / best) if best else float("nan")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", nargs="+", default=list(SETS))
    ap.add_argument("--targets", nargs="+", type=float, default=[0.01, 0.02])
    ap.add_argument("--max-pairs", type=int, default=12_000, help="seeded sample of a larger file (ATEC)")
    ap.add_argument("--examples", type=int, default=12)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--write", action="store_true", help="write the section of docs/benchmarks.md")
    args = ap.parse_args()
    faiss_single_thread()
    machine = machine_line()
    embedder = get_embedder("use", 1)
    rows: list[dict[str, object]] = []
    notes: list[str] = []
    examples: list[str] = []
    for name in args.sets:
        pairs = load_set(name)
        if len(pairs) > args.max_pairs:
            pairs = pairs.take(np.sort(np.random.default_rng(args.seed).choice(len(pairs), args.max_pairs, False)))
        memo = MemoEmbedder(embedder, [*pairs.first, *pairs.second])
        a_idx, b_idx = split_by_question(pairs.first, pairs.second, seed=args.seed)
        a = build_half(pairs.take(a_idx), memo, args.seed)
        b = build_half(pairs.take(b_idx), memo, args.seed + 1)
        lang = language_of(" ".join(pairs.first[:50]))
        print(f"{name}: judged ({a.served.lookups} + {b.served.lookups} lookups)", file=sys.stderr, flush=True)
        notes.append(f"{name}: half A {a.served.partition_size} stored / {a.served.lookups} lookups "
                     f"({a.served.should_miss} not stored); half B {b.served.partition_size} stored / "
                     f"{b.served.lookups} lookups ({b.served.should_miss} not stored); language {lang}")
        for mode in ("intercept", "fallback"):  # the defaults a lookup in this language uses
            shipped = default_threshold(embedder.model_id, mode, language=lang).value  # type: ignore[arg-type]
            rows.append(row(name, f"shipped {lang} {mode}", shipped, b.served))
        for target in args.targets:
            try:
                t_pairs: float | None = calibrate(a.pair_scores, a.pairs.labels, target).threshold
            except InvalidInput:
                t_pairs = None
            try:
                t_served: float | None = calibrate(a.served.scores, a.served.labels, target).threshold
            except InvalidInput:
                t_served = None
            rows.append(row(name, f"pairs {target:.1%}", t_pairs, b.served))
            rows.append(row(name, f"served {target:.1%}", t_served, b.served))
            print(rows[-2], rows[-1], sep="\n", file=sys.stderr, flush=True)
            if t_served is not None and target == args.targets[-1]:
                wrong = [w for w in b.wrong if w[2] >= t_served]
                random.Random(args.seed).shuffle(wrong)
                for q, got, score, should in wrong[:args.examples]:
                    examples.append(f"| {name} | {q} | {got} | {score:.3f} | {'yes' if should else 'no'} |")
    out = [HEADING, "", f"Machine: {machine}. Command: `python bench/served_replay.py"
           f" --sets {' '.join(args.sets)} --targets {' '.join(map(str, args.targets))}"
           f" --max-pairs {args.max_pairs}`.", ""]
    out += [f"- {n}" for n in notes]
    out += ["", "Thresholds chosen on half A, every rate measured on half B. *not stored → served*: share of "
            "lookups whose class was not stored that were served an answer (all of them someone else's); "
            "*precision*: right answers / answers served; *recall*: should-hit lookups answered with their "
            "class; *vs best fixed*: recall / recall of the best fixed threshold chosen on half B at the same "
            "not-stored false-hit rate.", "",
            "| set | threshold rule (chosen on A) | t | not stored → served | precision | recall | vs best fixed |",
            "|---|---|---|---|---|---|---|"]
    for r in rows:
        if r.get("t") is None:
            out.append(f"| {r['set']} | {r['rule']} | refused (too few negatives) | | | | |")
            continue
        out.append(f"| {r['set']} | {r['rule']} | {r['t']:.4f} | {r['false_hit_not_stored']:.2%} | "
                   f"{r['precision']:.1%} | {r['recall']:.1%} | {r['ratio']:.2f} |")
    if examples:
        out += ["", f"Wrong answers served on half B at the served {args.targets[-1]:.0%} threshold (a seeded "
                "sample, for reading by hand):", "",
                "| set | looked up | served (stored question) | cosine | its class was stored |",
                "|---|---|---|---|---|",
                *examples]
    text = "\n".join(out) + "\n"
    print(text)
    if args.write:
        from _common import write_section

        write_section(HEADING, text)


if __name__ == "__main__":
    main()
