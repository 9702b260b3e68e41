"""How precise is the near-exact (fuzzy) layer? Labelled pairs it would serve, by rule.

For each development set (whole files), counts duplicate and non-duplicate pairs that the fuzzy
layer alone would serve (normalized texts differ, slot guard passes): plain ``fuzz.ratio`` cut-offs
against the shipped rule (ratio pre-filter + typo-only differences, ``cache/_fuzzy.py``). The last
row counts pairs whose tokens are the same in another order (role swaps such as 深圳到北京 /
北京到深圳, but also harmless reorderings): measured to decide against a role-swap rule.

Run: ``python bench/fuzzy_layer.py``; prints a markdown table.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

import numpy as np
from rapidfuzz import fuzz

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _cache_common import CACHE_DATA, SETS
from _common import Section

from lastline import normalize_text
from lastline.cache import DEFAULT_FUZZY_MIN_RATIO, SlotGuard
from lastline.cache._fuzzy import _TOKEN, typo_similarity

SECTION = "### Fuzzy layer precision (`bench/fuzzy_layer.py`)"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"replace '{SECTION}' in docs/benchmarks.md")
    args = parser.parse_args()
    guard = SlotGuard()
    out = Section(SECTION)
    out("| set | rule | duplicates served | non-duplicates served |")
    out("|---|---|---|---|")
    for name in SETS:
        with open(CACHE_DATA / f"{name}.csv", encoding="utf-8-sig", newline="") as fh:
            rows = list(csv.DictReader(fh))
        a = [normalize_text(r["question1"]) for r in rows]
        b = [normalize_text(r["question2"]) for r in rows]
        y = np.array([int(r["is_duplicate"]) for r in rows])
        differ = np.array([x != z for x, z in zip(a, b, strict=True)])
        ok = differ & np.array([guard.ok(r["question1"], r["question2"]) for r in rows])
        ratio = np.array([fuzz.ratio(x, z) for x, z in zip(a, b, strict=True)])
        typo = np.array([typo_similarity(x, z, DEFAULT_FUZZY_MIN_RATIO) is not None
                         for x, z in zip(a, b, strict=True)])
        reordered = np.array([(ta := _TOKEN.findall(x)) != (tb := _TOKEN.findall(z)) and sorted(ta) == sorted(tb)
                              for x, z in zip(a, b, strict=True)])
        for label, served in [*((f"ratio ≥ {c}", ok & (ratio >= c)) for c in (90, 95, 98)),
                              (f"shipped: ratio ≥ {DEFAULT_FUZZY_MIN_RATIO:g} + typo-only", ok & typo),
                              ("(not a rule) same tokens, other order", reordered)]:
            out(f"| {name} | {label} | {int(served[y == 1].sum())} of {int((y == 1).sum())} "
                f"| {int(served[y == 0].sum())} of {int((y == 0).sum())} |")
    out.done(args.write)


if __name__ == "__main__":
    main()
