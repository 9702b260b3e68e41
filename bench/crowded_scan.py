"""A crowded partition: the typo scan over a length window against fuzzy candidates from the kNN.

Past ``fuzzy_scan_limit`` prompts, a lookup takes its fuzzy (typo) candidates from its kNN
neighbours instead of scanning, and then extracts its values and reads its neighbours' rows on every
lookup. The limit counts the prompts of the query's length window (``cache/_index.py``); this bench
fills one partition past the old limit (2,000 per partition) and runs the same lookups through two
caches on the same file: the shipped limit, and ``fuzzy_scan_limit=0`` (never a scan: the kNN path);
or, with ``--other hnsw``, the partition searched exhaustively (flat) and through HNSW.

Per set: stored questions (the first distinct ``question1`` of QQP validation, of LCQMC dev: at
most half of them; QQP's filled up to ``--stored`` with training questions), then lookups of four
kinds: the labelled pair's ``question2`` (paraphrase or not), a one-character typo (deletion, swap
or changed letter) of a stored question and of an unstored one,
and unstored questions. Reported: how many decisions (hit, entry, layer) differ, hits by layer on
each side, every differing lookup, the share of the partition a length window holds, and CPU per
lookup (thread time, in-process) on as many other lookups of the same kinds, shuffled and sent in
blocks of 100 to each side in turn, so that drift on a shared host falls on both sides alike (each
text is embedded once, on one side).

Run: ``python bench/crowded_scan.py [--stored 7000] [--lookups 500] [--other knn|hnsw] [--write]``.
"""

from __future__ import annotations

import argparse
import bisect
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import Section, read_pairs

from lastline import get_embedder, normalize_text, open_storage
from lastline.cache import CacheConfig, SemanticCache
from lastline.cache._config import DEFAULT_FUZZY_MIN_RATIO, DEFAULT_FUZZY_SCAN_LIMIT
from lastline.cache._fuzzy import length_window

SECTION = "### A crowded partition: typo scan or kNN candidates (`bench/crowded_scan.py`)"
KINDS = ("pair question2", "typo of stored", "typo of unstored", "unstored")
#: The two caches of each comparison (``--other``): what the pair is, the first's name and
#: configuration, the second's. ``hnsw`` pins the first flat whatever the shipped threshold.
COMPARISONS = {
    "knn": (f"the shipped configuration (`fuzzy_scan_limit` {DEFAULT_FUZZY_SCAN_LIMIT:,}) against "
            f"`fuzzy_scan_limit` 0 (fuzzy candidates from the {CacheConfig().knn_k} nearest neighbours)",
            "shipped", CacheConfig(), "kNN candidates", CacheConfig(fuzzy_scan_limit=0)),
    "hnsw": ("the partition searched exhaustively (flat) against through HNSW (`hnsw_threshold` 1,000)",
             "flat", CacheConfig(hnsw_threshold=10**9), "HNSW", CacheConfig(hnsw_threshold=1_000)),
}
BLOCK = 100


def _questions(name: str) -> list[tuple[str, str]]:
    """(question1, question2) of a pair file whose normalized ``question1`` is distinct and both non-empty."""
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    first, second, _ = read_pairs(name)
    for q1, q2 in zip(first, second, strict=True):
        key = normalize_text(q1)
        if key and normalize_text(q2) and key not in seen:
            seen.add(key)
            out.append((q1.strip(), q2.strip()))
    return out


def _typo(text: str, rng: random.Random) -> str:
    """One character deleted, swapped with its left neighbour, or changed to another of the text's."""
    i = rng.randrange(1, max(2, len(text) - 1))
    kind = rng.choice("dsc")
    if kind == "d":
        return text[:i] + text[i + 1:]
    if kind == "s":
        return text[:i - 1] + text[i] + text[i - 1] + text[i + 1:]
    return text[:i] + rng.choice(text) + text[i + 1:]


def _sets(stored_n: int) -> dict[str, tuple[list[str], list[tuple[str, str]], list[str]]]:
    """Per set: stored questions, (kind, query) lookups, and unstored questions for typos and misses."""
    out = {}
    sets = (("qqp_val (en)", "qqp_val.csv", "qqp_train.csv"), ("lcqmc_dev (zh)", "lcqmc_dev.csv", None))
    for name, file, more in sets:
        pairs = _questions(file)
        stored_pairs = pairs[: min(len(pairs) // 2, stored_n)]  # the rest: unstored questions
        stored = [q1 for q1, _ in stored_pairs]
        if more is not None and len(stored) < stored_n:  # filled up with questions of another split
            seen = {normalize_text(q) for pair in pairs for q in pair}
            extra = [q1 for q1, _ in _questions(more) if normalize_text(q1) not in seen]
            stored += extra[: stored_n - len(stored)]
        out[name] = (stored, [(q2, q1) for q1, q2 in stored_pairs], [q1 for q1, _ in pairs[len(stored_pairs):]])
    return out


def _lookups(paired: list[tuple[str, str]], stored: list[str], unstored: list[str], n: int,
             rng: random.Random) -> list[tuple[str, str]]:
    """``n`` (kind, text) of each kind, drawn without replacement from what is left."""
    out = [("pair question2", q2) for q2, _ in paired[:n]]
    out += [("typo of stored", _typo(q, rng)) for q in rng.sample(stored, n)]
    out += [("typo of unstored", _typo(q, rng)) for q in unstored[:n]]
    out += [("unstored", q) for q in unstored[n: 2 * n]]
    del paired[:n], unstored[: 2 * n]
    return out


def _decision(cache: SemanticCache, text: str) -> tuple[bool, str | None, str | None]:
    res = cache.lookup(text, mode="fallback")
    return res.hit, res.entry_id, res.layer


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--stored", type=int, default=7_000, help="entries in the one partition")
    parser.add_argument("--lookups", type=int, default=500, help="lookups of each kind (as many more are timed)")
    parser.add_argument("--other", choices=sorted(COMPARISONS), default="knn", help="the comparison to run")
    parser.add_argument("--write", action="store_true", help=f"replace '{SECTION}' in docs/benchmarks.md")
    args = parser.parse_args()
    described, base_name, base_config, other_name, other_config = COMPARISONS[args.other]
    embedder = get_embedder("use", 1)
    out = Section(SECTION)
    out(f"One partition per set, {described}, fallback mode, shipped thresholds. "
        f"Decisions: {args.lookups} lookups of each kind ({', '.join(KINDS)}) through both caches. CPU: "
        f"{args.lookups} other lookups of each kind, shuffled, in blocks of {BLOCK} to each side in turn.")
    out()
    out("| set | entries | length window: share of the partition (median, p90) | prompts scanned (median, p90; "
        f"lookups past the limit) | lookups | decisions that differ | hits exact / fuzzy / semantic, {base_name} "
        f"| the same, {other_name} | CPU ms per lookup, {base_name} | {other_name} |")
    out("|---|---:|---|---|---:|---:|---|---|---:|---:|")
    differing: list[str] = []
    for name, (stored, paired, unstored) in _sets(args.stored).items():
        rng = random.Random(11)
        with tempfile.TemporaryDirectory() as folder:
            storage = open_storage(Path(folder) / "cache.db")
            base = SemanticCache(storage, embedder, base_config)
            for i in range(0, len(stored), 500):
                base.put_many([{"prompt": q, "response": f"answer to: {q}"} for q in stored[i: i + 500]])
            other = SemanticCache(storage, embedder, other_config)
            partition = next(iter(base.index._parts))  # the one (tenant, context) every entry is in
            kept = base.index._parts[partition].prompts or {}
            lengths = sorted(len(prompt) for prompt in kept.values())
            decided = _lookups(paired, stored, unstored, args.lookups, rng)
            timed = _lookups(paired, stored, unstored, args.lookups, rng)
            rng.shuffle(timed)
            windows = sorted(
                (bisect.bisect_right(lengths, hi) - bisect.bisect_left(lengths, lo)) / len(lengths)
                for lo, hi in (length_window(len(normalize_text(t)), DEFAULT_FUZZY_MIN_RATIO) for _, t in decided))
            read = sorted(len(choices.texts) if choices is not None else -1 for choices in (
                base.index.fuzzy_choices(partition, normalize_text(t), DEFAULT_FUZZY_MIN_RATIO) for _, t in decided))
            a = [_decision(base, t) for _, t in decided]
            b = [_decision(other, t) for _, t in decided]
            for (kind, text), x, y in zip(decided, a, b, strict=True):
                if x != y:
                    served = base.get(x[1]) if x[1] else None
                    differing.append(f"| {name} | {kind} | {text} | {x[2] or 'miss'} | {y[2] or 'miss'} | "
                                     f"{served['prompt'] if served else '—'} |")
            cpu = {"base": 0.0, "other": 0.0}
            count = {"base": 0, "other": 0}
            for at in range(0, len(timed), BLOCK):
                side, cache = ("base", base) if (at // BLOCK) % 2 == 0 else ("other", other)
                block = [t for _, t in timed[at: at + BLOCK]]
                started = time.thread_time()
                for text in block:
                    cache.lookup(text, mode="fallback")
                cpu[side] += time.thread_time() - started
                count[side] += len(block)
            storage.close()

        def layers(decisions: list[tuple[bool, str | None, str | None]]) -> str:
            c = Counter(layer for hit, _, layer in decisions if hit)
            return f"{c['exact']} / {c['fuzzy']} / {c['semantic']}"

        out(f"| {name} | {len(lengths):,} | {windows[len(windows) // 2]:.0%}, {windows[int(0.9 * len(windows))]:.0%} "
            f"| {read[len(read) // 2]:,}, {read[int(0.9 * len(read))]:,} ({sum(n < 0 for n in read)}) "
            f"| {len(decided):,} | {sum(x != y for x, y in zip(a, b, strict=True))} | {layers(a)} | {layers(b)} "
            f"| {1000 * cpu['base'] / max(1, count['base']):.2f} "
            f"| {1000 * cpu['other'] / max(1, count['other']):.2f} |")
    out()
    if differing:
        out("Lookups decided differently:")
        out()
        out(f"| set | kind | lookup | {base_name} | {other_name} | entry served, {base_name} |")
        out("|---|---|---|---|---|---|")
        for line in differing:
            out(line)
    else:
        out("No lookup was decided differently.")
    if args.write:
        print(f"wrote {out.write()}", file=sys.stderr)


if __name__ == "__main__":
    main()
