"""Which layer answers, and how often rightly: labelled pairs through the real ``SemanticCache``.

Each pair gets its own partition (``context`` = pair index): question1 is put, question2 is looked
up in intercept and in fallback mode at the shipped default thresholds. A hit on a duplicate is
right, a hit on a non-duplicate is a false hit. Reported per layer, with misses by reason.

Run: ``python bench/lookup_layers.py [--embedder use] [--limit N]``; prints a markdown table.
"""

from __future__ import annotations

import csv
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _cache_common import CACHE_DATA, SETS, pair_bench_args
from _common import Section

from lastline import get_embedder, normalize_text, open_storage
from lastline.cache import CacheConfig, SemanticCache

SECTION = "### Hits by layer (`bench/lookup_layers.py`)"


def _cells(c: Counter[str], n: int) -> str:
    return f"{c['exact']} / {c['fuzzy']} / {c['semantic']} | {sum(c.values()) / max(n, 1):.4f}"


def main() -> None:
    args = pair_bench_args(SECTION, __doc__)
    emb = get_embedder(args.embedder, 1)
    out = Section(SECTION)
    out(f"Embedder {emb.model_id}.\n")
    out("| set | mode | threshold | dup hits exact / fuzzy / semantic | dup hit rate "
        "| non-dup hits exact / fuzzy / semantic | false-hit rate | misses by reason (dup; non-dup) |")
    out("|---|---|---|---|---|---|---|---|")
    for name in SETS:
        with open(CACHE_DATA / f"{name}.csv", encoding="utf-8-sig", newline="") as fh:
            rows = [r for r in csv.DictReader(fh)
                    if normalize_text(r["question1"]) and normalize_text(r["question2"])][:args.limit]
        with tempfile.TemporaryDirectory() as tmp:
            storage = open_storage(Path(tmp) / "layers.db")
            cache = SemanticCache(storage, emb, CacheConfig(record_lookups=False))
            for start in range(0, len(rows), 2000):
                cache.put_many([{"prompt": r["question1"], "response": str(i), "context": i}
                                for i, r in enumerate(rows[start:start + 2000], start=start)])
            for mode in ("intercept", "fallback"):
                layers: dict[int, Counter[str]] = {0: Counter(), 1: Counter()}
                reasons: dict[int, Counter[str]] = {0: Counter(), 1: Counter()}
                t = cache.get_threshold(mode=mode).value  # type: ignore[arg-type]
                for i, r in enumerate(rows):
                    label = int(r["is_duplicate"])
                    res = cache.lookup(r["question2"], context=i, mode=mode)  # type: ignore[arg-type]
                    if res.hit:
                        layers[label][str(res.layer)] += 1
                    else:
                        reasons[label][str(res.reason)] += 1
                n = {k: sum(1 for r in rows if int(r["is_duplicate"]) == k) for k in (0, 1)}
                why = "; ".join(", ".join(f"{r}: {c}" for r, c in reasons[k].most_common()) for k in (1, 0))
                out(f"| {name} | {mode} | {t} | {_cells(layers[1], n[1])} | {_cells(layers[0], n[0])} | {why} |",
                    flush=True)
            storage.close()
    out.done(args.write)


if __name__ == "__main__":
    main()
