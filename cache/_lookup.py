"""One lookup through the layers: exact → fuzzy → semantic, each candidate guarded and aged.

:class:`LookupPath` gets its collaborators explicitly — the store, the vector index (FAISS, or
kNN in the database: ``_neighbours.py``), the
embedder, the slot guard, the thresholds and the bookkeeping recorder — so the decision reads top
to bottom in one method and depends on no facade. Confidence: exact and fuzzy hits are ``high``;
a semantic hit is ``high`` at or above the tenant's strict (intercept) threshold and ``medium``
below it (only reachable in fallback mode or with a looser per-call threshold); any stale answer
(fallback mode only) is ``low``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any

import numpy as np
from rapidfuzz import fuzz, process

from lastline import Confidence, Embedder, Overloaded, language_of
from lastline.admission import Bulkhead

from . import _validate as v
from ._config import CacheConfig, LookupResult, Mode
from ._fuzzy import typo_similarity
from ._neighbours import Nearest, Neighbours, PartitionKey
from ._recorder import LookupRecorder, new_lookup_id
from ._rows import EntryRow, LookupRecord, context_hash
from ._store_api import CacheStore
from ._tenant_thresholds import Thresholds
from ._values import values_key
from .slot_guard import SlotGuard

__all__ = ["Ask", "Encode", "LookupPath", "LookupSteps", "Search"]

_FUZZY_LIMIT = 10


@dataclass(frozen=True)
class Encode:
    """A lookup's ask for the vector of ``text`` (its normalized prompt); answered with the vector."""

    text: str


@dataclass(frozen=True)
class Search:
    """A lookup's ask for the ``k`` entries of ``partition`` nearest ``vector``; answered with a
    :class:`~lastline.cache._neighbours.Nearest`."""

    partition: PartitionKey
    vector: np.ndarray
    k: int


Ask = Encode | Search
#: One lookup as steps: it yields what it needs (:data:`Ask`), is sent the answer, and returns its
#: result. Why steps: the caller decides how the asks are answered — one at a time for one lookup
#: (:meth:`LookupPath.run`), or in one model call and one search per partition for every lookup of a
#: round (``cache/_rounds.py``).
LookupSteps = Generator[Ask, Any, LookupResult]
_Decision = tuple[tuple[EntryRow, str, float, bool] | None, float | None]


def drive(steps: LookupSteps, encode: Callable[[str], np.ndarray], search: Callable[[Search], Nearest]
          ) -> LookupResult:
    """Run ``steps`` to its result, answering each :class:`Encode` with ``encode`` and each
    :class:`Search` with ``search``.

    An error of either is raised inside the steps, so they release what they hold (the
    ``past_exact`` slot) before it reaches the caller.
    """
    try:
        ask = next(steps)
        while True:
            try:
                answer: object = encode(ask.text) if isinstance(ask, Encode) else search(ask)
            except BaseException as exc:
                ask = steps.throw(exc)
            else:
                ask = steps.send(answer)
    except StopIteration as done:
        result: LookupResult = done.value
        return result


@dataclass
class _Trace:
    """Why candidates were turned down, to name the reason of a miss."""

    guard_blocked: bool = False
    expired: bool = False
    empty: bool = False  # the partition had no vectors and no exact row
    no_exact_row: bool = False
    stale: tuple[EntryRow, str, float] | None = None  # best expired candidate (fallback mode)


@dataclass(frozen=True)
class _Query:
    """One validated lookup request."""

    prompt: str
    norm: str
    phash: str
    tenant: str
    ctx: str
    mode: str
    now: float
    strict: float
    threshold: float


class LookupPath:
    """The read path of one cache (see the module docstring)."""

    def __init__(self, *, store: CacheStore, index: Neighbours, embedder: Embedder, guard: SlotGuard,
                 thresholds: Thresholds, recorder: LookupRecorder, config: CacheConfig,
                 past_exact: Bulkhead | None = None) -> None:
        #: Bounds the lookups past the exact key (the fuzzy scan, the encode, the kNN, the guard): an
        #: exact hit costs a fifth of them, so the server admits many more lookups than it lets run that
        #: far, and a flood of exact hits is not refused for the cost of a semantic one.
        self.past_exact = past_exact
        self.store = store
        self.index = index
        self.embedder = embedder
        self.guard = guard
        self.thresholds = thresholds
        self.recorder = recorder
        self.config = config

    def run(self, prompt: str, *, tenant: str, context: Any, mode: Mode, threshold: float | None,
            exact_only: bool) -> LookupResult:
        """One lookup, with a model call of its own (shared with concurrent callers by the embedder)."""
        steps = self.steps(prompt, tenant=tenant, context=context, mode=mode, threshold=threshold,
                           exact_only=exact_only)
        return drive(steps, lambda text: self.embedder.encode([text])[0],
                     lambda ask: self.index.nearest(ask.partition, ask.vector, ask.k))

    def steps(self, prompt: str, *, tenant: str, context: Any, mode: Mode, threshold: float | None,
              exact_only: bool, slot_held: bool = False) -> LookupSteps:
        """The lookup as :data:`LookupSteps`: nothing runs until the first ``next``.

        ``slot_held``: the caller took a ``past_exact`` slot for this lookup and releases it once the
        lookup is over (the steps neither take nor release one).
        """
        q = self._query(prompt, tenant=tenant, context=context, mode=mode, threshold=threshold)
        trace = _Trace()
        found, best = yield from self._decide(q, trace, exact_only, slot_held)
        return self._result(q, trace, found, best)

    def first_look(self, prompt: str, *, tenant: str, context: Any, mode: Mode, threshold: float | None,
                   exact_only: bool, hits_only: bool = False) -> LookupResult | None:
        """The exact key alone, for a caller that must not wait on an encode (the event loop).

        Why: an exact hit costs one indexed read, and a hop to a request thread and back costs about
        as much again, with a wait for a free thread and the interpreter lock on top. So the server
        answers exact hits (and ``exact_only`` lookups) on the event loop, and refuses there, at once,
        a lookup that needs a ``past_exact`` slot when none is free. Anything else returns None with
        nothing recorded, and :meth:`run` then decides (reading the key again: an entry written
        meanwhile is seen). Same result and same bookkeeping as :meth:`run` for what it answers.
        ``hits_only`` answers fresh exact hits alone and never refuses: for a caller with rungs of its
        own below the cache (the ladder), which goes on to them when the cache cannot answer.
        """
        q = self._query(prompt, tenant=tenant, context=context, mode=mode, threshold=threshold)
        trace = _Trace()
        found = self._exact(q, trace)
        if found is not None:
            return self._result(q, trace, found, None)
        if hits_only:
            return None
        if exact_only:
            return self._result(q, trace, _stale(trace), None)
        if self.past_exact is not None and trace.stale is None:
            self.past_exact.refuse_if_full(q.tenant)
        return None

    def _query(self, prompt: str, *, tenant: str, context: Any, mode: Mode, threshold: float | None) -> _Query:
        now = time.time()
        v.check_tenant(tenant)
        v.check_mode(mode)
        override = v.check_threshold(threshold)
        norm, phash = v.check_prompt(prompt, self.config.max_prompt_chars)
        ctx = context_hash(v.check_context(context))
        language = language_of(norm)  # thresholds are per (model, language)
        strict = self.thresholds.get(tenant, "intercept", language).value
        t = override if override is not None else (
            strict if mode == "intercept" else self.thresholds.get(tenant, "fallback", language).value)
        return _Query(prompt, norm, phash, tenant, ctx, mode, now, strict, t)

    def _result(self, q: _Query, trace: _Trace, found: tuple[EntryRow, str, float, bool] | None,
                best: float | None) -> LookupResult:
        if found is not None:
            row, layer, sim, stale = found
            return self._done(q, row, layer, sim, stale=stale, best=best)
        return self._done(q, None, None, None, reason=_miss_reason(trace), best=best)

    def _exact(self, q: _Query, trace: _Trace) -> tuple[EntryRow, str, float, bool] | None:
        """Layer 1: the same normalized text, tenant and context, fresh (an expired one goes to ``trace``)."""
        row = self.store.by_key(q.tenant, q.ctx, q.phash)
        if row is not None and self._accept(row, q, trace, "exact", 1.0, guarded=False):
            return row, "exact", 1.0, False
        trace.no_exact_row = row is None
        return None

    def _decide(self, q: _Query, trace: _Trace, exact_only: bool, slot_held: bool = False
                ) -> Generator[Ask, Any, _Decision]:
        """The served entry (row, layer, similarity, stale) or None, and the best cosine seen."""
        found = self._exact(q, trace)
        if found is not None:
            return found, None
        if exact_only:
            return _stale(trace), None
        if self.past_exact is None or slot_held:
            return (yield from self._past_exact(q, trace))
        try:
            self.past_exact.acquire(q.tenant)
        except Overloaded:
            if trace.stale is not None:  # an expired exact answer (fallback mode), low confidence, beats a refusal
                return _stale(trace), None
            raise
        try:
            return (yield from self._past_exact(q, trace))
        finally:
            self.past_exact.release(q.tenant)

    def _past_exact(self, q: _Query, trace: _Trace) -> Generator[Ask, Any, _Decision]:
        """Layers 2 and 3, once the exact key had nothing fresh to serve."""
        key = (q.tenant, q.ctx)
        # 2. fuzzy among a small partition's prompts, before any embedding
        choices = self.index.fuzzy_choices(key, q.norm, self.config.fuzzy_min_ratio)
        if choices is not None and choices.texts:
            matches = process.extract(q.norm, choices.texts, scorer=fuzz.ratio,
                                      score_cutoff=self.config.fuzzy_min_ratio, limit=_FUZZY_LIMIT)
            seqs = [choices.seqs[m[2]] for m in matches]
            found = self._first_fuzzy(q, trace, seqs, self.store.by_seqs(q.tenant, q.ctx, seqs))
            if found is not None:
                return found, None

        # 3. semantic kNN in the partition (plus fuzzy among the neighbours when it is too big to scan)
        if self.index.is_empty(key):
            trace.empty = trace.no_exact_row
            return _stale(trace), None
        vector: np.ndarray = yield Encode(q.norm)
        nearest: Nearest = yield Search(key, vector, self.config.knn_k)
        neighbours = nearest.hits
        if choices is None or _unseen_may_pass(nearest, self.config.knn_k, q.threshold):
            neighbours = sorted([*neighbours, *self._value_candidates(q, vector, neighbours)], key=lambda n: -n[1])
        best = neighbours[0][1] if neighbours else None
        # Rows only for candidates that can be served: the fuzzy pass over neighbours reads them all,
        # the semantic pass stops at the first one below the threshold.
        wanted = neighbours if choices is None else [n for n in neighbours if n[1] >= q.threshold]
        rows = self.store.by_seqs(q.tenant, q.ctx, [seq for seq, _ in wanted])
        if choices is None:
            found = self._first_fuzzy(q, trace, [seq for seq, _ in neighbours], rows)
            if found is not None:
                return found, best
        for seq, cos in neighbours:
            if cos < q.threshold:
                break
            cand = rows.get(seq)
            if cand is not None and cand.prompt_hash != q.phash and self._accept(cand, q, trace, "semantic", cos):
                return (cand, "semantic", round(cos, 6), False), best
        return _stale(trace), best

    def _value_candidates(self, q: _Query, vector: np.ndarray, neighbours: list[tuple[int, float]]
                          ) -> list[tuple[int, float]]:
        """Entries stored under the query's values key that the kNN search did not return, with their
        cosine (``cache/_values.py``): the guard could accept them when every neighbour carries other values."""
        limit = self.config.value_candidates
        key = values_key(q.prompt) if limit else ""
        if not key:
            return []
        seen = {seq for seq, _ in neighbours}
        seqs = [s for s in self.store.value_candidates(q.tenant, q.ctx, key, limit) if s not in seen]
        return self.index.cosines((q.tenant, q.ctx), vector, seqs)

    def _first_fuzzy(self, q: _Query, trace: _Trace, seqs: list[int], rows: dict[int, EntryRow]
                     ) -> tuple[EntryRow, str, float, bool] | None:
        """The first candidate that is a typo-level rewrite of the prompt and passes the guard."""
        for seq in seqs:
            cand = rows.get(seq)
            if cand is None or cand.prompt_hash == q.phash:
                continue
            sim = typo_similarity(q.norm, cand.prompt_norm, self.config.fuzzy_min_ratio)
            if sim is not None and self._accept(cand, q, trace, "fuzzy", sim):
                return cand, "fuzzy", sim, False
        return None

    def _accept(self, row: EntryRow, q: _Query, trace: _Trace, layer: str, similarity: float,
                guarded: bool = True) -> bool:
        """Guard, then age. An expired candidate is remembered for fallback mode, never served fresh."""
        if guarded and self.config.slot_guard and not self.guard.ok(q.prompt, row.prompt):
            trace.guard_blocked = True
            return False
        if row.expired(q.now):
            trace.expired = True
            if q.mode == "fallback" and trace.stale is None:
                trace.stale = (row, layer, similarity)
            return False
        return True

    def _done(self, q: _Query, row: EntryRow | None, layer: str | None, sim: float | None, *,
              stale: bool = False, reason: str | None = None, best: float | None = None) -> LookupResult:
        hit = row is not None
        confidence: Confidence | None
        if not hit:
            confidence = None
        elif stale:
            confidence = Confidence.LOW
        elif layer == "semantic" and sim is not None and sim < q.strict:
            confidence = Confidence.MEDIUM
        else:
            confidence = Confidence.HIGH
        lookup_id = new_lookup_id() if self.config.record_lookups else None
        self.recorder.record([LookupRecord(
            tenant=q.tenant, mode=q.mode, outcome=(layer or "") if hit else f"miss:{reason}",
            bucket=int(q.now // self.config.stats_bucket_s), at=q.now, lookup_id=lookup_id,
            entry_seq=row.seq if row else None, entry_id=row.id if row else None, layer=layer, similarity=sim)])
        return LookupResult(
            hit=hit, answer=row.response if row else None, entry_id=row.id if row else None,
            layer=layer if hit else None, similarity=sim if hit else None,  # type: ignore[arg-type]
            confidence=confidence, stale=stale, age_s=(q.now - row.created_at) if row else None,
            lookup_id=lookup_id, reason=reason, best_similarity=best, threshold=q.threshold,
            mode=q.mode, metadata=row.metadata if row else None,  # type: ignore[arg-type]
        )


#: How far a cosine recomputed for a value candidate (numpy) may differ from FAISS's score of the
#: same pair (float32 sums in another order: ≈1e-7, bounded well under this).
_COSINE_SLACK = 1e-4


def _unseen_may_pass(nearest: Nearest, k: int, threshold: float) -> bool:
    """Whether an entry the kNN search did not return could still reach ``threshold``.

    Why: value candidates (``_value_candidates``) cost an entity extraction of the query and a
    read, and on most lookups none of them can be served. After an exhaustive search every entry
    left out scores at most the last hit's cosine, and fewer than ``k`` hits means none was left
    out; so they are looked for only when that last cosine reaches the threshold (less a slack
    for recomputed cosines), or when the search was approximate.
    """
    if not nearest.exhaustive:
        return True
    return len(nearest.hits) >= k and nearest.hits[-1][1] >= threshold - _COSINE_SLACK


def _stale(trace: _Trace) -> tuple[EntryRow, str, float, bool] | None:
    """The best expired candidate, served as stale (fallback mode only), or None."""
    if trace.stale is None:
        return None
    row, layer, sim = trace.stale
    return row, layer, round(sim, 6), True


def _miss_reason(trace: _Trace) -> str:
    if trace.guard_blocked:
        return "slot_mismatch"
    if trace.expired:
        return "expired"
    if trace.empty:
        return "empty"
    return "below_threshold"
