"""Served decisions: score labelled pairs the way a *full* cache serves, not pair by pair.

Why: a lookup is answered by the best of all entries in its partition. A threshold that bounds
false hits for one labelled pair does not bound them for the best of thousands — on BQ (a narrow
banking domain) a pair-calibrated threshold served someone else's answer to 31% of lookups whose
answer was not in the cache. So calibration stores the pairs' ``question1``s in a scratch cache of
the tenant's size, looks every ``question2`` up there through the real lookup path, and judges
what was served:

- duplicate labels are transitive: questions form classes (union–find over the pairs marked
  duplicate), and a served entry is right when it is in the query's class;
- a lookup *should hit* when some stored question is in its class, and *should miss* otherwise —
  then any served answer is someone else's.

Each lookup is looked up once at threshold 0: the served candidate at any threshold ``t`` is then
the one found at 0 when its similarity is ``≥ t`` (candidates are tried best first and the guard
does not depend on ``t``), and nothing otherwise; exact and fuzzy hits serve at every threshold
(``+inf``). So one pass gives, per lookup, the score at which it is served and whether that
answer is right — the served-decision scores :func:`lastline.cache.calibration.calibrate` turns
into a threshold: the lowest whose upper bound on the share of should-miss lookups that are
served an answer stays under the target.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from lastline.embedding import encode_distinct
from lastline.errors import InvalidInput
from lastline.text import normalize_text

from .pairs import LabelledPairs

__all__ = ["ServedScores", "duplicate_classes", "judge_lookups", "memo_embedder", "question_roots", "score_served"]


def question_roots(links: Iterable[tuple[str, str, bool]]) -> dict[str, str]:
    """Every question → its class's representative: questions joined by a ``True`` link share one.

    Union-find over the links in order (a question of a ``False`` link is its own class unless
    another link joins it), so the same links always give the same representatives.
    """
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b, joined in links:
        ra, rb = find(a), find(b)
        if joined and ra != rb:
            parent[ra] = rb
    return {q: find(q) for q in list(parent)}


def duplicate_classes(pairs: LabelledPairs) -> dict[str, int]:
    """Class number of every (normalized) question: transitive closure of the duplicate labels."""
    roots: dict[str, int] = {}
    links = zip(map(normalize_text, pairs.first), map(normalize_text, pairs.second), map(bool, pairs.labels.tolist()),
                strict=True)
    return {q: roots.setdefault(root, len(roots)) for q, root in question_roots(links).items()}


@dataclass(frozen=True)
class ServedScores:
    """Per lookup: the score at which it is served, whether it should hit, whether what is served is right.

    ``scores``/``labels`` are what :func:`~lastline.cache.calibration.calibrate` takes: label 0 for
    a should-miss lookup (any hit is a false answer), label 1 for a should-hit lookup, whose score
    is ``-inf`` when what would be served is another class's answer (it never counts as a right hit).
    ``wrong_scores`` are those should-hit lookups' served scores, for the precision at a threshold.
    """

    scores: np.ndarray
    labels: np.ndarray
    wrong_scores: np.ndarray
    partition_size: int
    lookups: int

    @property
    def should_miss(self) -> int:
        return int((self.labels == 0).sum())

    def at(self, threshold: float) -> dict[str, float]:
        """Served precision, recall and false hits on should-miss lookups at ``threshold``."""
        y = self.labels.astype(bool)
        right = int((self.scores[y] >= threshold).sum())
        wrong_hit = int((self.wrong_scores >= threshold).sum())
        false_miss = int((self.scores[~y] >= threshold).sum())
        served = right + wrong_hit + false_miss
        return {
            "threshold": threshold,
            "precision": right / served if served else 1.0,
            "recall": right / int(y.sum()) if y.any() else 0.0,
            "false_hit_not_stored": false_miss / int((~y).sum()) if (~y).any() else 0.0,
            "served": served, "right": right, "wrong_on_should_hit": wrong_hit, "false_on_should_miss": false_miss,
        }


class _Memo:
    """The embedder's vectors for known texts, encoded once in batches (lookups then encode one text
    at a time for free); unknown texts go to the embedder. Same model, same vectors."""

    def __init__(self, embedder: Any, texts: Sequence[str]) -> None:
        self.model_id, self.dim = embedder.model_id, embedder.dim
        self._inner = embedder
        unique = list(dict.fromkeys(t for t in texts if t))
        self._vec = dict(zip(unique, encode_distinct(embedder, unique), strict=True)) if unique else {}

    def load(self) -> None:
        return None

    def encode(self, texts: list[str]) -> np.ndarray:
        missing = [t for t in texts if t not in self._vec]
        if missing:
            self._vec.update(zip(missing, self._inner.encode(missing), strict=True))
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._vec[t] for t in texts])


def memo_embedder(embedder: Any, pairs: LabelledPairs) -> Any:
    """An embedder that encodes every question of ``pairs`` once, in batches (for a scratch cache)."""
    return _Memo(embedder, [normalize_text(t) for t in [*pairs.first, *pairs.second]])


def score_served(scratch: Any, pairs: LabelledPairs, *, partition_size: int | None = None,
                 seed: int = 0) -> ServedScores:
    """Fill ``scratch`` (an empty cache) with ``question1``s and look every ``question2`` up in it.

    ``partition_size``: how many distinct ``question1``s to store (a seeded sample when the file
    has more; all of them when None or when it has fewer — the size reached is reported).
    """
    firsts = list(dict.fromkeys(q for q in pairs.first))
    by_norm = list(dict.fromkeys(normalize_text(q) for q in firsts))
    if partition_size is not None:
        if partition_size < 1:
            raise InvalidInput("partition_size must be at least 1", field="partition_size")
        if partition_size < len(by_norm):
            keep = set(random.Random(seed).sample(by_norm, partition_size))
            firsts = [q for q in firsts if normalize_text(q) in keep]
    return judge_lookups(scratch, firsts, list(pairs.second), duplicate_classes(pairs))


def judge_lookups(scratch: Any, stored: Sequence[str], lookups: Sequence[str], classes: dict[str, int],
                  wrong_served: list[tuple[str, str, float, bool]] | None = None) -> ServedScores:
    """Store ``stored`` in ``scratch``, look each of ``lookups`` up at threshold 0, judge by ``classes``.

    ``classes`` maps normalized questions to their duplicate class; a question missing from it is
    a class of its own. A lookup is judged once per distinct normalized text. ``wrong_served``, when
    given, receives (query, stored question served, score, should it have hit) for every wrong answer
    served at threshold 0, for reading by hand.
    """
    def class_of(norm: str) -> int | str:
        return classes.get(norm, norm)

    unique = list(dict.fromkeys(stored))
    ids = scratch.put_many([{"prompt": q, "response": q} for q in unique])
    class_of_entry = {entry: class_of(normalize_text(q)) for entry, q in zip(ids, unique, strict=True)}
    stored_classes = set(class_of_entry.values())
    scores: list[float] = []
    labels: list[int] = []
    wrong: list[float] = []
    seen: set[str] = set()
    for question in lookups:
        norm = normalize_text(question)
        if norm in seen:
            continue
        seen.add(norm)
        own = class_of(norm)
        res = scratch.lookup(question, threshold=0.0)
        score = -np.inf if not res.hit else (np.inf if res.layer in ("exact", "fuzzy") else float(res.similarity))
        right = res.hit and class_of_entry.get(res.entry_id) == own
        if res.hit and not right and wrong_served is not None:
            wrong_served.append((question, str(res.answer), score, own in stored_classes))
        if own in stored_classes:
            labels.append(1)
            scores.append(score if right else -np.inf)
            if res.hit and not right:
                wrong.append(score)
        else:
            labels.append(0)
            scores.append(score)
    return ServedScores(np.asarray(scores, dtype=np.float64), np.asarray(labels, dtype=np.int8),
                        np.asarray(wrong, dtype=np.float64), partition_size=len(ids), lookups=len(labels))
