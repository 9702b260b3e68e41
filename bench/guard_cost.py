"""What the polarity and name rules cost: memory of their word lists and time per guarded pair.

- memory: Python heap allocated while loading the lexicons and jieba's part-of-speech tagger
  (``tracemalloc``), and the process's resident size before and after;
- time: ``SlotGuard().why`` per labelled pair of each development set, first with every cache
  cleared (a candidate seen for the first time: tokenizing and tagging both prompts) and then warm
  (both prompts' tokens and values cached, the pair's alignment not), against the guard without
  the new rules on the same pairs in the same run.

Run: ``python bench/guard_cost.py [--pairs 2000] [--write]``.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _cache_common import SETS, load_set, machine_line
from _common import write_section

from lastline.cache import SlotGuard, _diff, _lexicon, extract_slots

OLD = SlotGuard(antonyms=False, changed_negation_zh=False, role_swaps=False, names=False, swapped_nouns_zh=False)
NEW = SlotGuard()


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _clear() -> None:
    extract_slots.cache_clear()
    _diff.tokens.cache_clear()
    _diff._aligned.cache_clear()


def _per_pair_ms(guard: SlotGuard, pairs: list[tuple[str, str]]) -> float:
    started = time.perf_counter()
    for a, b in pairs:
        guard.why(b, a)
    return (time.perf_counter() - started) / len(pairs) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    started = machine_line()
    rss0 = _rss_mb()
    tracemalloc.start()
    for load in (_lexicon.antonyms_en, _lexicon.inflections_en, _lexicon.names_en, _lexicon.synonyms_en,
                 _lexicon.hypernyms_en, _lexicon.derivations_en, _lexicon.synonyms_zh):
        load()
    _lexicon.opposites_zh(True)
    _lexicon.opposite_chars_zh(True)
    lex_mb = tracemalloc.get_traced_memory()[0] / 2**20
    _diff.tokens("加载词性标注")  # jieba's dictionary and tagger
    all_mb = tracemalloc.get_traced_memory()[0] / 2**20
    tracemalloc.stop()
    lines = [
        "## Slot guard: cost of the polarity and name rules", "",
        f"`bench/guard_cost.py` — {started}. Load from other suites inflates times; compare within a row.", "",
        f"Memory: the lexicons take {lex_mb:.1f} MB of Python heap; with jieba's dictionary and tagger "
        f"{all_mb:.1f} MB (jieba is loaded anyway by the KB's segmenter and the rules). Peak resident size "
        f"{rss0:.0f} MB before, {_rss_mb():.0f} MB after.", "",
        "| set | pairs | old guard, cold | new guard, cold | old guard, warm | new guard, warm |",
        "|---|---|---|---|---|---|",
    ]
    for name in SETS:
        data = load_set(name)
        pairs = list(zip(data.first, data.second, strict=True))[: args.pairs]  # type: ignore[attr-defined]
        _clear()
        old_cold = _per_pair_ms(OLD, pairs)
        _clear()
        new_cold = _per_pair_ms(NEW, pairs)
        _diff._aligned.cache_clear()  # warm = both prompts' tokens known, the pair itself new
        old_warm = _per_pair_ms(OLD, pairs)
        new_warm = _per_pair_ms(NEW, pairs)
        lines.append(f"| {name} | {len(pairs)} | {old_cold:.2f} ms | {new_cold:.2f} ms | {old_warm:.3f} ms | "
                     f"{new_warm:.3f} ms |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.write:
        print(f"wrote {write_section('## Slot guard: cost of the polarity and name rules', text)}", file=sys.stderr)


if __name__ == "__main__":
    main()
