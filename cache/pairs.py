"""Labelled question pairs: read them, and score them exactly as the cache would judge them.

Calibration is only meaningful when the scores it sees are the ones the cache compares with its
threshold. So a pair ``(a, b)`` is scored as a lookup of ``b`` against a cache holding only ``a``:

- ``+inf`` when an earlier layer serves it whatever the threshold: the normalized texts are equal
  (exact layer), or near-equal by rapidfuzz and the slot guard agrees (fuzzy layer);
- ``-inf`` when the slot guard vetoes it (a value differs: it can never be a semantic hit);
- otherwise the cosine of the two embeddings — the number the semantic layer thresholds.

``tests/test_cache_calibration_cli.py`` checks these scores against real cache lookups.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from rapidfuzz import fuzz

from lastline.embedding import encode_distinct
from lastline.errors import InvalidInput
from lastline.text import normalize_text

__all__ = ["LabelledPairs", "encode_unique", "pairs_from_rows", "read_pairs", "score_pairs"]

_TRUE = {"1", "true", "yes", "y", "t", "dup", "duplicate"}
_FALSE = {"0", "false", "no", "n", "f", "not", "different"}


@dataclass(frozen=True)
class LabelledPairs:
    first: list[str]
    second: list[str]
    labels: np.ndarray  # int8, 1 duplicate / 0 not

    def __len__(self) -> int:
        return len(self.first)

    def take(self, index: np.ndarray | Sequence[int]) -> LabelledPairs:
        idx = np.asarray(index, dtype=np.int64)
        return LabelledPairs([self.first[i] for i in idx], [self.second[i] for i in idx], self.labels[idx])


def _label(raw: object, where: str) -> int:
    if isinstance(raw, bool):
        return int(raw)
    if isinstance(raw, int) and raw in (0, 1):
        return raw
    value = raw.strip().lower() if isinstance(raw, str) else None
    if value in _TRUE:
        return 1
    if value in _FALSE:
        return 0
    raise InvalidInput(f"{where}: is_duplicate must be 0 or 1 (got {raw!r})")


def pairs_from_rows(rows: Iterable[Mapping[str, Any]], *, limit: int | None = None,
                    where: str = "row", first_line: int = 1) -> LabelledPairs:
    """Labelled pairs from ``question1``/``question2``/``is_duplicate`` mappings (CSV rows, JSON objects).

    A pair whose text normalizes to nothing ("?") is skipped: the cache refuses such prompts, so it
    can never be looked up. ``where`` and ``first_line`` name a bad row in the error ("line 7").
    """
    first: list[str] = []
    second: list[str] = []
    labels: list[int] = []
    for n, row in enumerate(rows, start=first_line):
        a, b = row.get("question1"), row.get("question2")
        if not isinstance(a, str) or not isinstance(b, str):
            raise InvalidInput(f"{where} {n}: question1 and question2 must be text")
        a, b = a.strip(), b.strip()
        if not normalize_text(a) or not normalize_text(b):
            continue
        first.append(a)
        second.append(b)
        labels.append(_label(row.get("is_duplicate"), f"{where} {n}"))
        if limit is not None and len(first) >= limit:
            break
    if not first:
        raise InvalidInput("no labelled pairs")
    return LabelledPairs(first, second, np.asarray(labels, dtype=np.int8))


def read_pairs(path: Path | str, *, limit: int | None = None) -> LabelledPairs:
    """Read ``question1,question2,is_duplicate`` (header required; extra columns ignored)."""
    path = Path(path)
    if not path.is_file():
        raise InvalidInput(f"{path}: no such file")
    with path.open(newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        missing = {"question1", "question2", "is_duplicate"} - set(reader.fieldnames or ())
        if missing:
            raise InvalidInput(f"{path}: missing column(s) {', '.join(sorted(missing))}; "
                               "expected question1,question2,is_duplicate")
        rows = ({k: (v or "") for k, v in row.items()} for row in reader)
        try:
            return pairs_from_rows(rows, limit=limit, where="line", first_line=2)
        except InvalidInput as exc:
            raise InvalidInput(f"{path}: {exc.detail}") from exc


def encode_unique(embedder: Any, texts: Iterable[str], batch: int = 256) -> dict[str, np.ndarray]:
    """Each distinct text's vector, by text (pair files repeat questions a lot)."""
    unique = list(dict.fromkeys(texts))
    return dict(zip(unique, encode_distinct(embedder, unique, batch), strict=True))


def score_pairs(cache: Any, pairs: LabelledPairs, *, slot_guard: bool | None = None,
                layers: bool = True) -> np.ndarray:
    """What the cache's threshold is compared with, for each pair (see the module docstring).

    ``slot_guard=False`` scores plain cosine (the fixed-threshold baseline); ``layers=False`` leaves
    out the exact/fuzzy layers. By default both follow the cache's own configuration.
    """
    config = getattr(cache, "config", None)
    guard_on = getattr(config, "slot_guard", True) if slot_guard is None else slot_guard
    min_ratio = float(getattr(config, "fuzzy_min_ratio", 95.0))
    fuzzy_match = getattr(cache, "fuzzy_match", None)  # the fuzzy layer's own text test, when exposed
    norm_a = [normalize_text(t) for t in pairs.first]
    norm_b = [normalize_text(t) for t in pairs.second]
    vectors = encode_unique(cache.embedder, [*norm_a, *norm_b])  # the cache embeds normalized text
    a = np.stack([vectors[t] for t in norm_a])
    b = np.stack([vectors[t] for t in norm_b])
    scores: np.ndarray = np.einsum("ij,ij->i", a, b).astype(np.float64)
    for i, (x, y) in enumerate(zip(pairs.first, pairs.second, strict=True)):
        guard_ok = (not guard_on) or bool(cache.slot_guard_ok(y, x))  # lookup prompt first, as the cache
        if layers:
            nx, ny = norm_a[i], norm_b[i]
            if nx == ny:
                scores[i] = np.inf
                continue
            near = (fuzzy_match(y, x) is not None) if fuzzy_match is not None else fuzz.ratio(nx, ny) >= min_ratio
            if guard_ok and near:
                scores[i] = np.inf
                continue
        if not guard_ok:
            scores[i] = -np.inf
    return scores
