"""In-memory BM25 for every tenant: postings per tenant, derived from the store's keyword rows.

Why: the store's keyword search ranks every chunk that matches any query word — FTS5's ``bm25()``
on SQLite, BM25 computed in SQL over the tsvectors on PostgreSQL — and an OR query of a real
query's words matches ≈40% of a corpus of prose: ≈120 ms of CPU per query on SQLite and seconds on
PostgreSQL at 100k chunks (bench/kb_scale.py, bench/backends.py). The same ranking from numpy
postings held in memory costs ≈3 ms. FTS5 also ranks the matches of the whole file before it keeps
the tenant's, so a small tenant in a file it shares pays for everyone's chunks, and its scores move
when another tenant writes. So every tenant with a chunk gets postings (``BM25Config.threshold``,
bench/kb_search_paths.py); the store answers until they are built.

What an index is: one tenant's postings (term → chunk positions and term frequencies) built from
the lexemes the store itself indexes — the segmented keyword text FTS5 stores, stemmed by
:func:`~lastline.kb._stem.keyword_lexemes` exactly as the PostgreSQL store feeds its tsvector, or
that tsvector's own lexemes and counts — with each position's chunk id, collection and length.
The rank is FTS5's BM25 (k1 1.2, b 0.75, idf ``ln((N - df + 0.5) / (df + 0.5))`` floored at 1e-6),
computed at query time over the index's live chunks, so it never goes stale as chunks come and go.
Statistics are the tenant's (as on PostgreSQL; FTS5 counts the whole file, which differs when a file
holds several tenants). Top-10 agreement with the store's own list is measured by
bench/kb_scale.py (docs/benchmarks.md). The store stays the truth; losing an index loses nothing:

- Chunks written after the snapshot (ids above the index's highest — the store hands ids out in
  commit order per tenant on both backends) are read by every search (one primary-key range read,
  empty almost always) and appended as a small segment: a write is searchable at once, through
  this process or another (a CLI ingest beside a server, another replica on PostgreSQL). Appending
  is cheap because BM25's statistics are computed at query time; segments past ``max_segments``
  are merged, and new plus dead chunks past ``rebuild_fraction`` of the index start a rebuild.
  More than ``catch_up_rows`` new chunks at once (a bulk ingest elsewhere) start a rebuild and the
  store answers meanwhile.
- Every id a search returns is checked alive in the store (one primary-key read for the list); a
  deleted chunk is dropped, tombstoned (out of the statistics and later searches) and the list
  refilled. Deletions that never surface are found every ``recheck_s``: the tenant's chunk ids are
  read and the missing ones tombstoned, so the statistics count a deleted chunk for at most that long.
- One index holds one tenant: no search can meet another tenant's chunk, nor its statistics.
- Filters run inside the ranking (every match is scored, then masked): collection from an array per
  position, tags / document ids / metadata as the allowed chunk ids the store reads. Never short.
- A segmenter change rewrites the store's keyword rows; the store clears its indexes then.

Why not a library: ``tantivy`` (incremental, block-max WAND: 1.9 ms) fixes Lucene's idf
``ln(1 + (N - df + 0.5) / (df + 0.5))`` and quantizes lengths to one byte, so its top-10 agreed with
FTS5's on 89% of positions against 98.5% here, and its statistics keep deleted documents until a
merge; ``bm25s`` precomputes idf into its matrix at build (16 s at 100k), so every write would be a
rebuild. Measured on the 100k synthetic corpus of bench/kb_scale.py (pyproject.toml says the same).
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ._derived import TenantStructures
from ._filters import Filters
from ._stem import keyword_lexemes
from ._store import KeywordIndex, KeywordRow, Ranked

__all__ = ["BM25Config", "KeywordAccelerator", "Postings", "keyword_row"]

BM25_K1, BM25_B = 1.2, 0.75  # FTS5's bm25() defaults
_IDF_FLOOR = 1e-6  # FTS5: a term in more than half the rows still counts, barely
_STREAM_BATCH = 5_000


@dataclass(frozen=True)
class BM25Config:
    """When a tenant gets an in-memory keyword index, and how it is kept.

    ``threshold``: chunks per tenant from which an index is built (the store's search below). 1:
    every tenant with a chunk. FTS5's cost follows the file's matches, not the tenant's: a keyword
    search of a 50-question BQ tenant costs 17.4 ms of CPU in a file shared with two tenants of the
    whole BQ corpus, against 1.14 from postings; alone in its file 0.41 against 0.49, and at 2,000
    questions 1.86 against 1.78 (bench/kb_search_paths.py). ``catch_up_rows``: new chunks one search
    appends at most (more start a rebuild). ``max_segments``: appended segments before they are
    merged into one.
    ``rebuild_fraction``: new plus dead chunks, as a share of the index, that start a rebuild.
    ``recheck_s``: how often a tenant's size is read again (to build, or to find unseen deletions).
    ``background``: build in a thread (the service) or inline.
    """

    enabled: bool = True
    threshold: int = 1
    catch_up_rows: int = 5_000
    max_segments: int = 8
    rebuild_fraction: float = 0.2
    recheck_s: float = 30.0
    background: bool = True


def keyword_row(rowid: int, collection: str, segmented: str) -> KeywordRow:
    """The row of a chunk whose stored keyword text is ``segmented`` (what FTS5 indexes).

    Tokens are counted first and each distinct one stemmed once (:func:`keyword_lexemes` of the
    distinct tokens, in one call): the same lexemes and counts, a third fewer stemmer lookups.
    """
    surface = Counter(segmented.split())
    counts: dict[str, int] = {}
    for stem, n in zip(keyword_lexemes(" ".join(surface)), surface.values(), strict=True):
        counts[stem] = counts.get(stem, 0) + n
    return KeywordRow(rowid, collection, list(counts), list(counts.values()), sum(surface.values()))


class _Vocabulary(dict[str, int]):
    """Lexeme → term id, handing the next id to a lexeme met for the first time (``map``-able lookups)."""

    def __missing__(self, key: str) -> int:
        value = self[key] = len(self)
        return value


@dataclass(frozen=True)
class Segment:
    """Postings of a run of positions: CSR by term id (``indptr`` covers the vocabulary it saw)."""

    indptr: np.ndarray  # int64, one more than the terms it knows
    positions: np.ndarray  # int32 index positions, ascending within a term
    tfs: np.ndarray  # float32 term frequency per posting

    def postings(self, term: int) -> tuple[np.ndarray, np.ndarray]:
        if term + 1 >= len(self.indptr):
            return self.positions[:0], self.tfs[:0]
        start, end = self.indptr[term], self.indptr[term + 1]
        return self.positions[start:end], self.tfs[start:end]

    def coo(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        terms = np.repeat(np.arange(len(self.indptr) - 1, dtype=np.int32), np.diff(self.indptr))
        return terms, self.positions, self.tfs


def _segment(terms: np.ndarray, positions: np.ndarray, tfs: np.ndarray, vocabulary: int) -> Segment:
    order = np.argsort(terms, kind="stable")  # positions stay ascending within each term
    indptr = np.zeros(vocabulary + 1, dtype=np.int64)
    np.cumsum(np.bincount(terms, minlength=vocabulary), out=indptr[1:])
    return Segment(indptr, positions[order].astype(np.int32), tfs[order].astype(np.float32))


@dataclass
class _Columns:
    """Per-position columns of rows being added (plain lists until they become arrays)."""

    ids: list[int] = field(default_factory=list)
    lengths: list[int] = field(default_factory=list)
    collections: list[int] = field(default_factory=list)
    terms: list[int] = field(default_factory=list)
    positions: list[int] = field(default_factory=list)
    tfs: list[int] = field(default_factory=list)

    def add(self, rows: Sequence[KeywordRow], base: int, vocab: _Vocabulary, names: dict[str, int]) -> None:
        for offset, row in enumerate(rows, start=len(self.ids)):
            self.ids.append(row.rowid)
            self.lengths.append(row.length)
            self.collections.append(names.setdefault(row.collection, len(names)))
            self.terms.extend(map(vocab.__getitem__, row.lexemes))
            self.positions.extend([base + offset] * len(row.lexemes))
            self.tfs.extend(row.counts)

    def segment(self, vocabulary: int) -> Segment:
        return _segment(np.asarray(self.terms, dtype=np.int32), np.asarray(self.positions, dtype=np.int32),
                        np.asarray(self.tfs, dtype=np.float32), vocabulary)


@dataclass
class Postings:
    """One tenant's keyword index: segments of postings, per-position columns, and which positions are dead.

    Arrays are replaced, never grown in place, by :meth:`appended`: a search holding this object
    keeps a consistent view while a newer one is swapped in. The vocabulary is shared and only grows
    (a term id past a segment's ``indptr`` has no postings there).
    """

    vocab: _Vocabulary
    names: dict[str, int]
    segments: tuple[Segment, ...]
    ids: np.ndarray  # int64 chunk id per position, ascending
    lengths: np.ndarray  # float64 BM25 length per position
    collections: np.ndarray  # int32 code per position, into ``names``
    alive: np.ndarray  # bool per position: False once found deleted
    base: int  # positions from the snapshot (the rest were appended since)
    dead: int = 0
    _norm: tuple[tuple[int, float], np.ndarray] | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def upto(self) -> int:
        """The highest chunk id held (0 when empty)."""
        return int(self.ids[-1]) if len(self.ids) else 0

    @property
    def live(self) -> int:
        return len(self.ids) - self.dead

    def positions_of(self, rowids: Sequence[int]) -> np.ndarray:
        wanted = np.asarray(rowids, dtype=np.int64)
        if not len(self.ids):
            return np.zeros(0, dtype=np.int64)
        at = np.minimum(np.searchsorted(self.ids, wanted), len(self.ids) - 1)
        return np.asarray(at[self.ids[at] == wanted], dtype=np.int64)

    def kill(self, rowids: Sequence[int]) -> None:
        positions = self.positions_of(rowids)
        newly = positions[self.alive[positions]]
        self.alive[newly] = False
        self.dead += len(newly)
        self._norm = None

    def appended(self, rows: Sequence[KeywordRow], max_segments: int) -> Postings:
        """A new index holding these rows too (ids above :attr:`upto`), sharing what did not change."""
        columns = _Columns()
        columns.add(rows, len(self.ids), self.vocab, self.names)
        segments = (*self.segments, columns.segment(len(self.vocab)))
        if len(segments) > max_segments:  # merge the appended segments into one
            terms, positions, tfs = zip(*(s.coo() for s in segments[1:]), strict=True)
            segments = (segments[0], _segment(np.concatenate(terms), np.concatenate(positions), np.concatenate(tfs),
                                              len(self.vocab)))
        return Postings(
            self.vocab, self.names, segments,
            np.concatenate([self.ids, np.asarray(columns.ids, dtype=np.int64)]),
            np.concatenate([self.lengths, np.asarray(columns.lengths, dtype=np.float64)]),
            np.concatenate([self.collections, np.asarray(columns.collections, dtype=np.int32)]),
            np.concatenate([self.alive, np.ones(len(columns.ids), dtype=bool)]),
            self.base, self.dead)

    def _norms(self) -> np.ndarray:
        """``k1 * (1 - b + b * length / avgdl)`` per position, for the live statistics (cached)."""
        live = self.live
        total = float(self.lengths[self.alive].sum()) if self.dead else float(self.lengths.sum())
        key = (live, total)
        if self._norm is None or self._norm[0] != key:
            avgdl = max(total / max(live, 1), 1.0)
            self._norm = (key, BM25_K1 * (1 - BM25_B + BM25_B * self.lengths / avgdl))
        return self._norm[1]

    def top(self, lexemes: Sequence[str], limit: int, mask: np.ndarray | None) -> list[tuple[int, float]]:
        """Up to ``limit`` (chunk id, BM25) among live positions ``mask`` allows, best first, ties by id.

        A lexeme listed twice counts twice, as FTS5 sums over its query's phrases ("runs OR running").
        """
        n = self.live
        if n == 0:
            return []
        norm = self._norms()
        scores = np.zeros(len(self.ids), dtype=np.float64)
        for term in (self.vocab[t] for t in lexemes if t in self.vocab):
            parts = [s.postings(term) for s in self.segments]
            positions = np.concatenate([p for p, _ in parts]) if len(parts) > 1 else parts[0][0]
            tfs = np.concatenate([f for _, f in parts]) if len(parts) > 1 else parts[0][1]
            if self.dead:
                keep = self.alive[positions]
                positions, tfs = positions[keep], tfs[keep]
            df = len(positions)
            if df == 0:
                continue
            idf = max(math.log((n - df + 0.5) / (df + 0.5)), _IDF_FLOOR)
            scores[positions] += idf * tfs * (BM25_K1 + 1) / (tfs + norm[positions])
        hits = np.flatnonzero(scores)
        if mask is not None:
            hits = hits[mask[hits]]
        if len(hits) > limit:
            # the limit-th best score, then everything at least that good (ties broken by id below)
            cut = np.partition(-scores[hits], limit - 1)[limit - 1]
            hits = hits[-scores[hits] <= cut]
        order = np.lexsort((self.ids[hits], -scores[hits]))[:limit]
        chosen = hits[order]
        return list(zip(self.ids[chosen].tolist(), scores[chosen].tolist(), strict=True))


def build_postings(source: KeywordIndex, tenant: str, stop: threading.Event | None = None) -> Postings | None:
    """An index over ``tenant``'s keyword rows as they are now (one snapshot of the store); None when
    ``stop`` is set between two batches."""
    vocab = _Vocabulary()
    names: dict[str, int] = {}
    columns = _Columns()
    for batch in source.keyword_rows(tenant, after=0, limit=None, batch=_STREAM_BATCH):
        if stop is not None and stop.is_set():
            return None
        columns.add(batch, 0, vocab, names)
    return Postings(vocab, names, (columns.segment(len(vocab)),), np.asarray(columns.ids, dtype=np.int64),
                    np.asarray(columns.lengths, dtype=np.float64), np.asarray(columns.collections, dtype=np.int32),
                    np.ones(len(columns.ids), dtype=bool), base=len(columns.ids))


class KeywordAccelerator:
    """The keyword indexes of one store, one per large tenant, and the search that keeps them true to it.

    The KB's keyword search: a tenant with an index is ranked here, any other (or one whose index is
    being rebuilt after a bulk write elsewhere) by the store's own search.
    """

    def __init__(self, source: KeywordIndex, config: BM25Config) -> None:
        self.source = source
        self.config = config
        #: The tenants' indexes (built from ``config.threshold`` chunks, rebuilt when stale).
        self.indexes: TenantStructures[Postings] = TenantStructures(
            "bm25", config, size=source.tenant_size,
            make=lambda tenant: build_postings(source, tenant, stop=self.indexes.stopping))

    def stop_builds(self) -> None:
        """Stop and wait for the index builds in flight (before the store closes)."""
        self.indexes.stop_builds()

    def clear(self) -> None:
        """Forget every index (the store's keyword rows were rewritten)."""
        self.indexes.clear()

    def warm(self, tenant: str) -> bool:
        """Build ``tenant``'s index now unless it has one (a serving start); True when it has one after."""
        return self.indexes.warm(tenant) is not None

    def status(self, tenant: str) -> dict[str, object]:
        """What :meth:`KnowledgeBase.status` shows of ``tenant``'s index."""
        index = self.indexes.current(tenant)
        return {
            "enabled": True, "threshold": self.config.threshold, "built": index is not None,
            "building": self.indexes.building(tenant), "chunks": index.live if index is not None else 0,
            "appended": len(index) - index.base if index is not None else 0,
            "dead": index.dead if index is not None else 0,
        }

    def _reconcile(self, tenant: str, index: Postings) -> None:
        """Tombstone the deletions no search has met yet: every ``recheck_s``, before a ranking.

        One read of the tenant's chunk ids up to the index's highest (≈10 ms at 100k chunks, twice a
        minute by default), so the statistics count a deleted chunk for at most that long.
        """
        if not self.indexes.due(tenant):
            return
        stored = np.asarray(self.source.chunk_ids(tenant, upto=index.upto), dtype=np.int64)
        gone = index.ids[index.alive & ~np.isin(index.ids, stored)]
        if len(gone):
            self._kill(tenant, index, gone.tolist())
        self.indexes.stale(tenant, index.dead, len(index))

    def _kill(self, tenant: str, index: Postings, rowids: Sequence[int]) -> None:
        with self.indexes.lock:
            index.kill(rowids)  # out of the statistics and the ranking from now on
            if (latest := self.indexes.current(tenant)) is not None and latest is not index:
                latest.kill(rowids)

    def _append(self, tenant: str, rows: list[KeywordRow]) -> Postings | None:
        """The tenant's index with ``rows`` (ids above it) appended and swapped in; None when it is gone."""
        def appended(latest: Postings) -> Postings:
            fresh = [r for r in rows if r.rowid > latest.upto]  # another thread may have appended them
            return latest.appended(fresh, self.config.max_segments) if fresh else latest

        latest = self.indexes.replace(tenant, appended)
        if latest is not None:
            self.indexes.stale(tenant, (len(latest) - latest.base) + latest.dead, latest.base)
        return latest

    def keyword_search(self, terms: Sequence[str], *, tenant: str, filters: Filters, limit: int) -> list[Ranked]:
        """BM25's best ``limit`` chunks of ``tenant`` for any of ``terms``, passing ``filters``.

        One read of the store per search in the usual case: the ids ranked are checked alive and
        chunks committed above the index's highest id are looked for in the same call. New chunks are
        appended and the ranking run again; deleted ones are tombstoned and the list refilled.
        """
        current = self.indexes.get(tenant)
        if current is None:
            return self.source.keyword_search(terms, tenant=tenant, filters=filters, limit=limit)
        self._reconcile(tenant, current)
        lexemes = self.source.query_lexemes(terms)
        mask, masked = None, -1
        while True:
            if masked != len(current):
                mask, masked = self._mask(current, tenant, filters), len(current)
            found = current.top(lexemes, limit, mask) if mask is None or mask.any() else []
            live, rows = self.source.check(tenant, [rowid for rowid, _ in found], after=current.upto,
                                           limit=self.config.catch_up_rows + 1)
            if len(rows) > self.config.catch_up_rows:  # a bulk write elsewhere: rebuild, the store answers
                self.indexes.start_build(tenant)
                return self.source.keyword_search(terms, tenant=tenant, filters=filters, limit=limit)
            if rows:
                appended = self._append(tenant, rows)
                if appended is None:
                    return self.source.keyword_search(terms, tenant=tenant, filters=filters, limit=limit)
                current = appended
                continue
            gone = [rowid for rowid, _ in found if rowid not in live]
            if not gone:
                return [Ranked(rowid, score) for rowid, score in found]
            self._kill(tenant, current, gone)  # and refill the list

    def _mask(self, index: Postings, tenant: str, filters: Filters) -> np.ndarray | None:
        mask: np.ndarray | None = None
        if filters.collections is not None:
            codes = [index.names[c] for c in filters.collections if c in index.names]
            mask = np.isin(index.collections, np.asarray(codes, dtype=np.int32))
        if filters.needs_candidates:
            allowed = np.zeros(len(index), dtype=bool)
            allowed[index.positions_of(self.source.allowed(tenant, filters))] = True
            mask = allowed if mask is None else (mask & allowed)
        return mask
