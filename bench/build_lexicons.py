"""Build the English lexicons under ``cache/lexicon/`` from Princeton WordNet 3.0.

Run once when the lexicons change (not at install or run time)::

    apt-get install wordnet-base          # Debian's copy of the WordNet 3.0 database
    python bench/build_lexicons.py [--wordnet /usr/share/wordnet]

Writes
- ``antonyms_en.tsv``: every direct antonym pair of WordNet (the ``!`` pointer, all parts of
  speech), single words only, lower-cased, one unordered pair per line;
- ``names_en.tsv``: every lemma of an *instance* noun synset (the ``@i`` pointer: cities,
  countries, rivers, people, battles …) of at most four words, with its synset offsets, so aliases
  ("usa", "united states", "america") share an id; a third column ``c`` marks lemmas that are also
  ordinary words (a lemma or irregular form of some other synset: "china", "turkey", "stone",
  "drew"), which count as names only when capitalised;
- ``inflections_en.tsv``: WordNet's irregular noun, verb and adjective forms (children → child,
  sold → sell, worst → bad),
  so antonyms match whatever form a question uses;
- ``synonyms_en.tsv``: groups of single words that may stand for each other, one group a line:
  every synset with two or more single-word lemmas, every adjective cluster (a head adjective and
  its "similar to" satellites: fast, quick, speedy …) and every pertainym pair (quickly → quick),
  so the minimal-edit rule can tell a swapped synonym from a swapped meaning;
- ``hypernyms_en.tsv``: one line per noun or verb synset that has kinds, its single-word lemmas
  and, after a tab, the single-word lemmas of its direct hyponyms (woman → girl, decrease → reduce,
  create → form); the swapped-word rule reads a word against its direct kind as the same question
  asked more or less precisely, never two kinds of one thing (girl / guy, rise / drop: siblings);
- ``derivations_en.tsv``: WordNet's derivationally related forms, one pair of single words a line
  (driver / drive, benefit / beneficial), so a swap between them is no other question;
- ``words_en.tsv``: every single-word lemma with the parts of speech WordNet gives it (``n v a r``),
  the real-word list the affix rule checks both words against (so "under" is no un+der);
- ``affixes_en.tsv``: opposite affixes learned from the direct antonyms — for each pair, the split
  into affix + a shared stem that is itself a word (unhappy / happy → un / "", overestimate /
  underestimate → over / under, careful / careless → ful / less), kept when at least ``--min-affix``
  pairs show it. The guard composes them with any word (``_polarity``): unsafe / safe,
  overpaid / underpaid, hopeful / hopeless, whichever list holds the pair or not.

WordNet 3.0 licence (permissive, redistribution with the notice): see ``cache/lexicon/README.md``.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "cache" / "lexicon"
POS = ("noun", "verb", "adj", "adv")


def _synsets(path: Path) -> dict[str, tuple[list[str], list[tuple[str, str, str, str]]]]:
    out = {}
    for line in path.read_text(encoding="latin-1").splitlines():
        if line.startswith("  "):  # the licence header
            continue
        head = line.split(" | ")[0].split()
        n_words = int(head[3], 16)
        words = [re.sub(r"\(.*\)$", "", head[4 + 2 * i]).replace("_", " ").lower() for i in range(n_words)]
        i = 4 + 2 * n_words
        n_ptrs = int(head[i])
        ptrs = [(head[i + 1 + 4 * k], head[i + 2 + 4 * k], head[i + 3 + 4 * k], head[i + 4 + 4 * k])
                for k in range(n_ptrs)]
        out[head[0]] = (words, ptrs)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--wordnet", type=Path, default=Path("/usr/share/wordnet"))
    ap.add_argument("--min-affix", type=int, default=10, help="antonym pairs an affix pair needs to be kept")
    args = ap.parse_args()
    data = {pos: _synsets(args.wordnet / f"data.{pos}") for pos in POS}
    letter = {"n": "noun", "v": "verb", "a": "adj", "s": "adj", "r": "adv"}
    antonyms: set[tuple[str, str]] = set()
    by_pos: set[tuple[str, str, str]] = set()  # (a, b, part of speech) for learning affixes
    for pos_name, syns in data.items():
        for words, ptrs in syns.values():
            for sym, offset, pos, st in ptrs:
                if sym != "!":
                    continue
                src, dst = int(st[:2], 16), int(st[2:], 16)
                a, b = words[src - 1], data[letter[pos]][offset][0][dst - 1]
                if " " not in a and " " not in b and "-" not in a + b and a != b:
                    antonyms.add((min(a, b), max(a, b)))
                    by_pos.add((min(a, b), max(a, b), {"adv": "r"}.get(pos_name, pos_name[0])))
    names: dict[str, set[str]] = {}
    common: set[str] = set()
    for pos, syns in data.items():
        for offset, (words, ptrs) in syns.items():
            if pos == "noun" and any(sym == "@i" for sym, *_ in ptrs):
                for w in words:
                    names.setdefault(w, set()).add(offset)
            else:
                common.update(words)
    for pos in POS:  # irregular forms: "drew", "went", "mice" are words, not names
        for line in (args.wordnet / f"{pos}.exc").read_text(encoding="latin-1").splitlines():
            common.update(w.replace("_", " ") for w in line.split())
    header = "# generated by bench/build_lexicons.py from Princeton WordNet 3.0 (licence: README.md)\n"
    (OUT / "antonyms_en.tsv").write_text(
        header + "".join(f"{a}\t{b}\n" for a, b in sorted(antonyms)), encoding="utf-8")
    rows = [f"{w}\t{','.join(sorted(ids))}\t{'c' if w in common else ''}\n"
            for w, ids in sorted(names.items()) if len(w.split()) <= 4]
    (OUT / "names_en.tsv").write_text(header + "".join(rows), encoding="utf-8")
    forms = []
    for pos in ("noun", "verb", "adj"):
        for line in (args.wordnet / f"{pos}.exc").read_text(encoding="latin-1").splitlines():
            form, *lemmas = line.split()
            if "_" not in line and lemmas:
                forms.append(f"{form}\t{','.join(lemmas)}\n")
    (OUT / "inflections_en.tsv").write_text(header + "".join(sorted(set(forms))), encoding="utf-8")
    groups = _synonym_groups(data, letter)
    (OUT / "synonyms_en.tsv").write_text(header + "".join("\t".join(g) + "\n" for g in groups), encoding="utf-8")
    kinds = _kinds(data, letter)
    (OUT / "hypernyms_en.tsv").write_text(
        header + "# hypernym lemmas\tlemmas of its direct hyponyms\n"
        + "".join(f"{' '.join(h)}\t{' '.join(k)}\n" for h, k in kinds), encoding="utf-8")
    derived = _derivations(data, letter)
    (OUT / "derivations_en.tsv").write_text(
        header + "".join(f"{a}\t{b}\n" for a, b in derived), encoding="utf-8")
    pos_of = _parts_of_speech(data)
    (OUT / "words_en.tsv").write_text(
        header + "".join(f"{w}\t{''.join(sorted(p))}\n" for w, p in sorted(pos_of.items())), encoding="utf-8")
    affixes = _opposite_affixes(by_pos, pos_of, args.min_affix)
    (OUT / "affixes_en.tsv").write_text(
        header + "# kind\taffix\taffix\tpart of speech\tantonym pairs showing it\n"
        + "".join(f"{kind}\t{a}\t{b}\t{pos}\t{n}\n" for (kind, a, b, pos), n in affixes), encoding="utf-8")
    print(f"{len(antonyms)} antonym pairs, {len(rows)} instance names, {len(groups)} synonym groups, "
          f"{len(kinds)} hypernyms with kinds, {len(derived)} derivation pairs, "
          f"{len(pos_of)} words, {len(affixes)} opposite affix pairs → {OUT}")


_Synsets = dict[str, dict[str, tuple[list[str], list[tuple[str, str, str, str]]]]]


def _parts_of_speech(data: _Synsets) -> dict[str, set[str]]:
    """Single-word, all-letter lemmas → the parts of speech WordNet gives them (n, v, a, r)."""
    short = {"noun": "n", "verb": "v", "adj": "a", "adv": "r"}
    out: dict[str, set[str]] = {}
    for pos, syns in data.items():
        for words, _ in syns.values():
            for w in words:
                if w.isalpha() and w.isascii():
                    out.setdefault(w, set()).add(short[pos])
    return out


_MAX_AFFIX = 6


def _opposite_affixes(antonyms: set[tuple[str, str, str]], words: dict[str, set[str]],
                      min_pairs: int) -> list[tuple[tuple[str, str, str, str], int]]:
    """Affix pairs that turn a word into its opposite, learned from the direct antonyms: each pair is
    split at the longest stem both share that is itself a word of three letters or more (prefixes:
    un|happy / happy; suffixes: care|ful / care|less), and the affixes counted. One-letter affixes are
    left out (a|moral, but also a|round, a|long; eye|d; blood|y). Counted per part of speech: in- makes
    adjectives and nouns opposite (inactive, inability), not verbs (inform, invest)."""
    from collections import Counter

    seen: Counter[tuple[str, str, str, str]] = Counter()
    for a, b, pos in antonyms:
        for kind in ("prefix", "suffix"):
            x, y = (a[::-1], b[::-1]) if kind == "prefix" else (a, b)
            n = 0
            while n < min(len(x), len(y)) and x[n] == y[n]:
                n += 1
            for cut in range(n, 2, -1):  # the longest shared stem that is a word
                stem = x[:cut][::-1] if kind == "prefix" else x[:cut]
                pa, pb = (a[: len(a) - cut], b[: len(b) - cut]) if kind == "prefix" else (a[cut:], b[cut:])
                if stem in words and max(len(pa), len(pb)) <= _MAX_AFFIX and pa != pb \
                        and all(len(p) != 1 for p in (pa, pb)):  # a-, -d, -y: too many plain words start or end so
                    seen[(kind, *sorted((pa, pb)), pos)] += 1  # type: ignore[arg-type]
                    break
    return sorted(((k, n) for k, n in seen.items() if n >= min_pairs), key=lambda kn: (-kn[1], kn[0]))


def _kinds(data: _Synsets, letter: dict[str, str]) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """(hypernym lemmas, lemmas of its direct hyponyms) for every noun and verb synset with single-word
    lemmas on both sides. Instances (Paris of city) are left out: names are the name rule's; so are
    hyphenated lemmas, which the guard's tokens never are."""
    def words_of(lemmas: list[str]) -> list[str]:
        return [w for w in _single(lemmas) if "-" not in w]

    out: set[tuple[tuple[str, ...], tuple[str, ...]]] = set()
    for pos in ("noun", "verb"):
        for words, ptrs in data[pos].values():
            heads = tuple(words_of(words))
            kinds = tuple(sorted({w for sym, off, p, _ in ptrs if sym == "~"
                                  for w in words_of(data[letter[p]][off][0])} - set(heads)))
            if heads and kinds:
                out.add((tuple(sorted(heads)), kinds))
    return sorted(out)


def _derivations(data: _Synsets, letter: dict[str, str]) -> list[tuple[str, str]]:
    """WordNet's derivationally related forms (the lexical ``+`` pointer), single words only."""
    out: set[tuple[str, str]] = set()
    for words, ptrs in (syn for syns in data.values() for syn in syns.values()):
        for sym, off, p, st in ptrs:
            if sym != "+" or st == "0000":
                continue
            a, b = words[int(st[:2], 16) - 1], data[letter[p]][off][0][int(st[2:], 16) - 1]
            if " " not in a + b and "-" not in a + b and a != b:
                out.add((min(a, b), max(a, b)))
    return sorted(out)


def _single(words: list[str]) -> list[str]:
    return [w for w in dict.fromkeys(words) if " " not in w]


def _synonym_groups(data: dict[str, dict[str, tuple[list[str], list[tuple[str, str, str, str]]]]],
                    letter: dict[str, str]) -> list[tuple[str, ...]]:
    """Synsets, adjective clusters (head + "similar to" satellites) and pertainym pairs, as word groups."""
    groups: set[tuple[str, ...]] = set()
    for pos, syns in data.items():
        for words, ptrs in syns.values():
            single = _single(words)
            if len(single) >= 2:
                groups.add(tuple(sorted(single)))
            if pos == "adj" and any(sym == "&" for sym, *_ in ptrs) and any(sym == "!" for sym, *_ in ptrs):
                cluster = [*single, *(w for sym, off, p, _ in ptrs if sym == "&"
                                      for w in _single(data[letter[p]][off][0]))]
                if len(set(cluster)) >= 2:
                    groups.add(tuple(sorted(set(cluster))))
            for sym, off, p, st in ptrs:
                if sym != "\\" or st == "0000":
                    continue
                src, dst = int(st[:2], 16), int(st[2:], 16)
                a, b = words[src - 1], data[letter[p]][off][0][dst - 1]
                if " " not in a + b and a != b:
                    groups.add(tuple(sorted((a, b))))
    return sorted(groups)


if __name__ == "__main__":
    main()
