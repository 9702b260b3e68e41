"""Which swapped words ask the same thing: the evidence of the English swapped-word rule, by kind.

Reads a labelled pairs file (default: QQP *train*, the pairs the rule's evidence was chosen on; never a
validation or held-out set) and keeps the pairs that differ by one English content word swapped in place
(``_substitution.swap_in_place``). Each swap is put in the first kind it belongs to, from the word lists
the guard ships (``cache/lexicon``, WordNet 3.0), lemmas compared (sold → sell, drivers → driver):

- ``same lemma``, ``synonym group`` (synset, adjective cluster, pertainym), ``direct kind`` (one word a
  direct hyponym of the other: girl / woman), ``derived form`` (driver / drive), ``one stem or a typo``
  (the prefix, stem and spelling evidence): what the rule lets through;
- ``siblings`` (two direct kinds of one thing: guy / boy, rise / drop), ``cousins`` (kinds of two
  siblings), ``unrelated`` (both WordNet words), ``unknown word`` (one is no WordNet word): what it vetoes.

For each kind: duplicates and non-duplicates, over all such pairs and above the file's own-2% plain-cosine
threshold (where a veto changes what is served), and what the rule decides. The kinds the rule lets
through should be mostly duplicates, the ones it vetoes mostly not.

Run: ``python bench/swap_evidence.py [--set qqp_train] [--write]``.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import Section
from slot_guard_rules import cosines, load

from lastline import get_embedder
from lastline.cache import SlotGuard
from lastline.cache._diff import changes
from lastline.cache._lexicon import derivations_en, hypernyms_en, lemmas, synonyms_en, words_en
from lastline.cache._substitution import swap_in_place

SECTION = "### Evidence for the swapped-word rule (`bench/swap_evidence.py`)"
PASSED = ("same lemma", "synonym group", "direct kind", "derived form", "one stem or a typo")
VETOED = ("siblings", "cousins", "unrelated", "unknown word")


def _meet(groups: dict[str, frozenset[int]], xs: set[str], ys: set[str]) -> bool:
    return any(groups.get(p, frozenset()) & groups.get(q, frozenset()) for p in xs for q in ys)


def _parents(words: set[str]) -> set[str]:
    """The direct hypernyms of any of ``words``."""
    hypernyms = hypernyms_en()
    return {h for w in words for h in hypernyms.get(w, ())}


def kind_of(x: str, y: str, guard_passes: bool) -> str:
    """The first kind the swap ``x`` / ``y`` belongs to (see the module docstring)."""
    lx, ly = lemmas(x), lemmas(y)
    px, py = _parents(lx), _parents(ly)
    if lx & ly:
        return "same lemma"
    if _meet(synonyms_en(), lx, ly):
        return "synonym group"
    if px & ly or py & lx:
        return "direct kind"
    forms = derivations_en()
    if any(q in forms.get(p, ()) for p in lx for q in ly):
        return "derived form"
    if guard_passes:
        return "one stem or a typo"
    words = words_en()
    if not any(w in words for w in lx) or not any(w in words for w in ly):
        return "unknown word"
    if px & py:
        return "siblings"
    if _parents(px) & _parents(py):
        return "cousins"
    return "unrelated"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--set", default="qqp_train")
    parser.add_argument("--write", action="store_true", help="replace this script's section of docs/benchmarks.md")
    args = parser.parse_args()
    q1, q2, y = load(args.set, None)
    cos = cosines(get_embedder("use", 1), q1, q2)
    t_own = float(np.sort(cos[y == 0])[::-1][int(0.02 * int((y == 0).sum()))])
    rule = SlotGuard(values=False, negation_en=False, antonyms=False, changed_negation_zh=False, role_swaps=False,
                     names=False, names_zh_spans=False, swapped_nouns_zh=False)  # the swapped-word rule alone
    counts: Counter[tuple[str, int, bool]] = Counter()
    examples: dict[tuple[str, int], list[str]] = {}
    for a, b, label, c in zip(q1, q2, y, cos, strict=True):
        ta, tb, diff = changes(b, a)
        swap = swap_in_place(ta, tb, diff)
        if swap is None:
            continue
        kind = kind_of(swap[0].key, swap[1].key, rule.ok(b, a))
        counts[(kind, int(label), bool(c > t_own))] += 1
        examples.setdefault((kind, int(label)), []).append(f"{swap[0].key} / {swap[1].key}")
    out = Section(SECTION, None)
    total = sum(counts.values())
    out(f"{args.set}: {len(y):,} labelled pairs, {total:,} of them one English content word swapped in place; "
        f"own-2% plain-cosine threshold {t_own:.4f}. *dup* / *non-dup*: labelled duplicates and "
        "non-duplicates of each kind.\n")
    out("| kind | the rule | dup / non-dup (all) | share dup | dup / non-dup (cos > own 2%) | e.g. duplicates | "
        "e.g. non-duplicates |")
    out("|---|---|---|---|---|---|---|")
    for kind in (*PASSED, *VETOED):
        dup = counts[(kind, 1, False)] + counts[(kind, 1, True)]
        non = counts[(kind, 0, False)] + counts[(kind, 0, True)]
        share = f"{dup / (dup + non):.2f}" if dup + non else "–"
        out(f"| {kind} | {'passes' if kind in PASSED else 'vetoes'} | {dup} / {non} | {share} | "
            f"{counts[(kind, 1, True)]} / {counts[(kind, 0, True)]} | {', '.join(examples.get((kind, 1), [])[:4])} | "
            f"{', '.join(examples.get((kind, 0), [])[:4])} |")
    vetoed = [sum(counts[(k, d, True)] for k in VETOED) for d in (1, 0)]
    out(f"\nAbove the own-2% threshold the rule alone vetoes {vetoed[0]} duplicates and {vetoed[1]} non-duplicates "
        "of these pairs (other rules of the default guard may veto some of them first).\n")
    out.done(args.write)


if __name__ == "__main__":
    main()
