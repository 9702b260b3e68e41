"""The knowledge base: one object that ingests, searches and answers, over one store and its embedders.

Every chunk is embedded by the service's one multilingual embedder (the primary vector space);
English chunks are also embedded by an optional English specialist (the English space), which
English queries search as a third ranked list. See :mod:`lastline.kb._spaces`. This facade only
wires collaborators together: the store (:mod:`lastline.kb._store`), the indexer that writes,
the ranking and fusion, and the answer composer each get what they need explicitly.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from lastline.embedding import Embedder
from lastline.envelope import Answer
from lastline.errors import InvalidInput
from lastline.postgres import PostgresStorage
from lastline.storage import SQLiteStorage
from lastline.text import normalize_text, text_hash

from ._answer import compose_answer
from ._bm25 import KeywordAccelerator
from ._config import DEFAULT_K, DEFAULT_SEGMENTER, MAX_K, MAX_QUERY_CHARS, KBConfig, Mode
from ._filler import SpaceFiller
from ._filters import Filters, parse_filters
from ._fusion import KEYWORD, Rankings, rank_lists
from ._index_text import fts_text
from ._ingest import IngestReport, Progress, content_hash, ingest_path
from ._parse_markup import markdown_document
from ._parsed import ParsedDocument, ParseError
from ._parsers import parse_bytes
from ._results import SearchResult
from ._segment import SEGMENTERS
from ._spaces import ENGLISH, PRIMARY, VectorSpace
from ._store import KBStore, KeywordSearch, VectorIndex
from ._stores import open_kb_store
from ._vectors import ensure_space, space_model, start_space
from ._writer import Indexer

__all__ = ["DEFAULT_SEGMENTER", "KBConfig", "KnowledgeBase", "Mode"]

EXACT_FAQ_BONUS = 1.0  # larger than any RRF score: an exact FAQ question match ranks first


class KnowledgeBase:
    """Documents → chunks → keyword index + vector spaces; hybrid search; extractive answers with citations.

    ``english_embedder`` switches the English space on: English chunks also get its vectors and
    English queries search them. ``None`` (or the same model as ``embedder``, which would only
    duplicate the primary space) switches it off and drops its table, so no stale vectors linger.
    ``store`` defaults to the store of ``storage``'s backend.

    ``background_spaces=True`` (the service) leaves the English space out of the write path: a
    document is searchable once its keyword rows and primary vectors are written, and the English
    vectors are filled afterwards by :meth:`fill_spaces` or the worker :meth:`start_background`
    starts (:mod:`lastline.kb._filler`); until a space is complete, search leaves it out.
    """

    def __init__(
        self, storage: SQLiteStorage | PostgresStorage, embedder: Embedder, config: KBConfig | None = None, *,
        english_embedder: Embedder | None = None, store: KBStore | None = None, background_spaces: bool = False,
    ) -> None:
        self.storage = storage
        self.config = config or KBConfig()
        self.store: KBStore = store if store is not None else open_kb_store(storage, ann=self.config.ann)
        #: The in-memory BM25 indexes of large tenants (None: off, the store's own keyword search always).
        self.keyword_index = (KeywordAccelerator(self.store, self.config.keywords)
                              if self.config.keywords.enabled else None)
        #: Who answers keyword search: the index (which hands a small tenant to the store), else the store.
        self.keywords: KeywordSearch = self.keyword_index if self.keyword_index is not None else self.store
        self.embedder = embedder
        if self.config.segmenter not in SEGMENTERS:
            raise InvalidInput(f"segmenter: choose one of {', '.join(SEGMENTERS)}")
        self.spaces: list[tuple[VectorSpace, Embedder]] = [(PRIMARY, embedder)]
        english_index = self.store.vector_index(ENGLISH)
        if english_embedder is not None and english_embedder.model_id != embedder.model_id:
            self.spaces.append((ENGLISH, english_embedder))
        elif english_index.exists() or self.store.meta(ENGLISH.model_key) is not None:
            english_index.drop()
        self._indexes: list[tuple[VectorIndex, Embedder]] = [
            (self.store.vector_index(space), space_embedder) for space, space_embedder in self.spaces
        ]
        inline = self._indexes[:1] if background_spaces else self._indexes
        background = self._indexes[1:] if background_spaces else []
        for index, space_embedder in inline:
            ensure_space(index, space_embedder, chars=self.config.reads(index.space))
        for index, space_embedder in background:
            chars = self.config.reads(index.space)
            if start_space(index, space_embedder, chars):  # empty: every chunk it holds is now pending
                index.mark_built(space_model(space_embedder, chars))
        self._ready = {index.space.name: index.pending() == 0 for index, _ in background}
        self._index_when_ready = False  # set by build_search_indexes: a serving KB indexes filled spaces
        self.filler = SpaceFiller(background, self._set_ready, reads=self.config.reads)
        self.indexer = Indexer(self.store, self.config, inline, after_write=self._written if background else None)
        self._ensure_segmenter()

    # -- background spaces ---------------------------------------------------------------------

    def _set_ready(self, name: str, ready: bool) -> None:
        self._ready[name] = ready
        if ready and self._index_when_ready:
            next(index for index, _ in self._indexes if index.space.name == name).ensure_search_index()

    def _written(self, languages: Sequence[str]) -> None:
        for index, _ in self.filler.spaces:
            if any(index.space.holds_language(lang) for lang in languages):
                self._ready[index.space.name] = False
        self.filler.kick()

    def start_background(self) -> None:
        """Start the worker that fills background spaces (and resumes any left pending)."""
        if self.filler.spaces:
            self.filler.start()

    def build_search_indexes(self) -> list[str]:
        """Build the database's kNN index of every complete space lacking one; the names of those built.

        What a serving replica calls once it has started (``Runtime.build``, after any seed). On
        PostgreSQL that is each space's HNSW graph, built in one pass over the vectors there and kept
        current by every insert after it; search is exact until then. A process that only writes
        (``lastline kb ingest``, a bulk load before the replicas start) never calls it, so its inserts
        do not pay for a graph it never reads. A background space still filling gets its index when
        its filler completes it. On SQLite there is nothing to build (its graphs are per process).
        """
        self._index_when_ready = True
        return [index.space.name for index, _ in self._searchable() if index.ensure_search_index()]

    def warm(self, tenants: Sequence[str]) -> dict[str, int]:
        """Build now, in this thread, what the first searches of ``tenants`` would otherwise start; per
        structure, how many tenants got one.

        A serving replica calls it before it says it is ready (``Runtime.build``), as the cache warms
        its lookup path: each tenant's keyword postings and each searchable space's in-memory vectors,
        and the English space's model loaded and run once. Left to the first search, those are built
        in the background at low priority while the store answers, and in the minute a flood arrives
        they are slowest to come: a py-spy profile of `bench/load.py`'s KB flood, the KB's first
        traffic, found 15 % of the servers' samples in those builds while FTS5 and sqlite-vec answered.
        """
        warmed = {KEYWORD: 0} | {index.space.name: 0 for index, _ in self._indexes}
        searchable = self._searchable()
        for tenant in dict.fromkeys(tenants):
            if self.keyword_index is not None and self.keyword_index.warm(tenant):
                warmed[KEYWORD] += 1
            for index, _ in searchable:
                if index.warm(tenant):
                    warmed[index.space.name] += 1
        for index, space_embedder in searchable:
            if index.space is not PRIMARY:  # the primary model is the cache's, warmed with its prompts
                space_embedder.warm([])
        return warmed

    def fill_spaces(self, progress: Callable[[str, int, int], None] | None = None, workers: int = 1) -> int:
        """Fill the background spaces now, from this thread; returns how many vectors were written.

        ``workers > 1`` encodes in that many processes, as :meth:`ingest` does.
        """
        return self.filler.run_once(progress, workers=workers)

    def close(self) -> None:
        """Stop the background worker (its finished batches are on disk; the rest resumes next start)
        and the in-memory builds, before the storage they read closes (``kb/_derived.py``)."""
        self.filler.stop()
        if self.keyword_index is not None:
            self.keyword_index.stop_builds()
        for index, _ in self._indexes:
            index.stop_builds()

    def status(self, *, tenant: str | None = None) -> dict[str, Any]:
        """Documents, chunks and, per vector space, model, vectors, pending chunks and readiness."""
        spaces = []
        for index, space_embedder in self._indexes:
            name = index.space.name
            progress = self.filler.progress.get(name)
            pending = index.pending()
            spaces.append({
                "name": name, "model": space_embedder.model_id, "vectors": index.count(), "pending": pending,
                "ready": pending == 0 and self._ready.get(name, True), "background": progress is not None,
                "filling": bool(progress and progress.running), "error": progress.error if progress else None,
            })
        return {
            "documents": self.store.count(tenant) if tenant is not None else None,
            "chunks": self.store.chunk_count(tenant), "spaces": spaces,
            "keyword_index": None if tenant is None else (
                {"enabled": False} if self.keyword_index is None else self.keyword_index.status(tenant)),
        }

    def _searchable(self) -> list[tuple[VectorIndex, Embedder]]:
        return [(i, e) for i, e in self._indexes if self._ready.get(i.space.name, True)]

    @property
    def english_embedder(self) -> Embedder | None:
        """The English space's model, or None when that space is off."""
        return next((e for s, e in self.spaces if s is ENGLISH), None)

    # -- writing -------------------------------------------------------------------------------

    def ingest(
        self, path: str | Path, *, tenant: str = "default", collection: str = "default", sync: bool = False,
        progress: Progress | None = None, workers: int = 1,
    ) -> IngestReport:
        """Ingest a file or folder incrementally (see :mod:`lastline.kb._ingest`).

        ``workers > 1`` encodes the write-time spaces in that many processes, each with its own copy
        of the model (:class:`~lastline.encoder_pool.EncoderPool`): one per core for a bulk ingest.
        """
        self.indexer.workers = workers
        try:
            return ingest_path(path, store=self.store, indexer=self.indexer, tenant=tenant, collection=collection,
                               sync=sync, progress=progress)
        finally:
            self.indexer.close_pools()

    def add_document(
        self, *, tenant: str = "default", title: str, text: str, source: str | None = None,
        metadata: Mapping[str, Any] | None = None, doc_id: str | None = None, collection: str = "default",
        tags: list[str] | None = None,
    ) -> tuple[str, int]:
        """Add or replace one document from text; Markdown headings are used when ``source`` is ``.md``."""
        if not text.strip():
            raise InvalidInput("text: must not be empty")
        if source and source.lower().endswith((".md", ".markdown")):
            document = markdown_document(text.replace("\r\n", "\n").replace("\r", "\n"), "doc")
            document.title = title or document.title
        else:
            document = ParsedDocument.plain(text, title)
        document.metadata = dict(metadata or {})
        document.tags = list(tags or [])
        doc_id = doc_id or "doc_" + text_hash(f"{title}\n{text}")[:16]
        digest = content_hash(document, self.config.max_chars, self.config.overlap)
        chunks = self.indexer.write(tenant, collection, [(doc_id, document, digest, source)])
        return doc_id, chunks

    def add_file(
        self, filename: str, data: bytes, *, tenant: str = "default", collection: str = "default"
    ) -> list[tuple[str, int]]:
        """Parse uploaded bytes as the type ``filename`` names; one (doc_id, chunks) per document."""
        name = upload_name(filename)
        try:
            documents = parse_bytes(data, name)
        except ParseError as exc:
            raise InvalidInput(f"file: {name}: {exc}") from exc
        out = []
        for document in documents:
            doc_id = document.doc_id or name + document.key
            digest = content_hash(document, self.config.max_chars, self.config.overlap)
            out.append((doc_id, self.indexer.write(tenant, collection, [(doc_id, document, digest, name)])))
        return out

    def delete_document(self, doc_id: str, *, tenant: str = "default") -> bool:
        return bool(self.indexer.delete(tenant, [doc_id]))

    def seed(self, path: str | Path, *, tenant: str = "default") -> IngestReport | None:
        """Ingest ``path`` when ``tenant`` has no documents yet (first start of a service)."""
        if self.count(tenant=tenant):
            return None
        return self.ingest(path, tenant=tenant, collection="default")

    # -- reading -------------------------------------------------------------------------------

    def count(self, *, tenant: str = "default") -> int:
        return self.store.count(tenant)

    def get_document(self, doc_id: str, *, tenant: str = "default") -> dict[str, Any] | None:
        return self.store.get_document(tenant, doc_id)

    def search(
        self, query: str, *, tenant: str = "default", k: int = DEFAULT_K,
        filters: Mapping[str, Any] | Filters | None = None, mode: Mode = "hybrid",
    ) -> list[SearchResult]:
        """Top ``k`` chunks for ``query`` in ``tenant``, filtered inside the search."""
        if not isinstance(query, str) or not query.strip():
            raise InvalidInput("query: must not be empty")
        if len(query) > MAX_QUERY_CHARS:
            raise InvalidInput(f"query: at most {MAX_QUERY_CHARS} characters")
        if not 1 <= k <= MAX_K:
            raise InvalidInput(f"k: between 1 and {MAX_K}")
        if mode not in ("hybrid", "keyword", "vector"):
            raise InvalidInput("mode: hybrid, keyword or vector")
        parsed = parse_filters(filters)
        rankings = self.rankings(query, tenant=tenant, filters=parsed, mode=mode, depth=max(k, self.config.candidates))
        scores = rankings.scores()
        top_score = max(scores.values(), default=0.0)
        for rowid in self.store.faq_exact(normalize_text(query), tenant=tenant, filters=parsed):
            scores[rowid] = top_score + EXACT_FAQ_BONUS + scores.get(rowid, 0.0)
        ranked = sorted(scores, key=lambda rowid: -scores[rowid])[:k]
        rows = self.store.chunk_rows(tenant, ranked)
        cosine = {name: self._cosines(rankings, name, ranked, tenant) for name in (PRIMARY.name, ENGLISH.name)}
        return [
            SearchResult(
                doc_id=row.doc_id, chunk_id=row.chunk_id, title=row.title, text=row.text,
                score=round(scores[rowid], 6), source=row.source, span=(row.start, row.end), heading=row.heading,
                collection=row.collection, kind=row.kind, metadata=row.metadata, tags=row.tags,
                similarity=_rounded(cosine[PRIMARY.name].get(rowid)),
                keyword_rank=rankings.rank(KEYWORD, rowid), vector_rank=rankings.rank(PRIMARY.name, rowid),
                english_rank=rankings.rank(ENGLISH.name, rowid),
                english_similarity=_rounded(cosine[ENGLISH.name].get(rowid)),
                question=row.question, answer=row.answer,
            )
            for rowid in ranked
            if (row := rows.get(rowid)) is not None
        ]

    def _cosines(self, rankings: Rankings, name: str, rowids: list[int], tenant: str) -> dict[int, float]:
        """Each result's cosine in space ``name``: from its kNN list, else from its stored vector."""
        known = {rowid: c for rowid in rowids if (c := rankings.cosine(name, rowid)) is not None}
        vector = rankings.query_vectors.get(name)
        missing = [rowid for rowid in rowids if rowid not in known]
        if vector is not None and missing:
            index = next(index for index, _ in self._indexes if index.space.name == name)
            known.update(index.cosines(vector, missing, tenant=tenant))
        return known

    def rankings(
        self, query: str, *, tenant: str = "default", filters: Mapping[str, Any] | Filters | None = None,
        mode: Mode = "hybrid", depth: int | None = None,
    ) -> Rankings:
        """The ranked candidate lists :meth:`search` fuses for ``query``, with their weights.

        Public for evaluation (bench/kb_eval.py re-fuses them over a grid) and for debugging a
        ranking; ``search`` is the call for everything else. An English query (by
        :func:`~lastline.text.language_of`) also searches the English space when it is on.
        """
        return rank_lists(query, keywords=self.keywords, spaces=self._searchable(), config=self.config, tenant=tenant,
                          filters=parse_filters(filters), mode=mode, depth=depth or self.config.candidates)

    def answer(
        self, query: str, *, tenant: str = "default", filters: Mapping[str, Any] | Filters | None = None
    ) -> Answer | None:
        """An extractive answer (FAQ or cited passages) with a confidence, or None below the floor.

        Never rejects a prompt for its length: the ladder hands over whole agent prompts, whose
        question is usually at the end, so only the last ``MAX_QUERY_CHARS`` characters are used.
        """
        query = query[-MAX_QUERY_CHARS:] if isinstance(query, str) else query
        if not isinstance(query, str) or not query.strip():
            return None
        results = self.search(query, tenant=tenant, k=self.config.answer_candidates, filters=filters)
        return compose_answer(query, results, self.config)

    def _ensure_segmenter(self) -> None:
        """Re-index keywords when the Chinese segmenter differs from the one the index was built with."""
        segmenter = self.config.segmenter
        if self.store.meta("segmenter") == segmenter:
            return
        self.store.reindex_keywords(lambda kind, title, heading, text: fts_text(kind, title, heading, text, segmenter))
        self.store.set_meta("segmenter", segmenter)
        if self.keyword_index is not None:
            self.keyword_index.clear()  # built from the rows just rewritten


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def upload_name(filename: str) -> str:
    """The name an uploaded file is stored under: its last path part, on either OS's separator.

    The name becomes the document id and a citation, never a path on this machine; still, a client's
    ``C:\\docs\\a.md`` or ``../../a.md`` should read as ``a.md``, and control characters (a NUL, a
    right-to-left override) have no place in an id a reader is shown.
    """
    last = filename.replace("\\", "/").rsplit("/", 1)[-1]
    cleaned = "".join(ch for ch in last if ch.isprintable()).strip()
    return cleaned if cleaned not in ("", ".", "..") else "upload"
