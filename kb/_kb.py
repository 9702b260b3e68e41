"""The knowledge base: one object that ingests, searches and answers, over one storage and its embedders.

Every chunk is embedded by the service's one multilingual embedder (the primary vector space);
English chunks are also embedded by an optional English specialist (the English space), which
English queries search as a third ranked list. See :mod:`lastline.kb._vectors`.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from lastline.embedding import Embedder
from lastline.envelope import Answer
from lastline.errors import InvalidInput
from lastline.storage import SQLiteStorage
from lastline.text import text_hash

from ._answer import compose_answer
from ._chunking import DEFAULT_MAX_CHARS, DEFAULT_OVERLAP
from ._filters import Filters, parse_filters
from ._fusion import KEYWORD, Rankings, rank_lists
from ._ingest import IngestReport, Progress, content_hash, ingest_path
from ._parse_markup import parse_markdown
from ._parsed import ParsedDocument, ParseError
from ._parsers import parse_file
from ._results import SearchResult
from ._schema import MIGRATIONS
from ._search import DEFAULT_RRF_K, cosines_of, faq_exact
from ._segment import SEGMENTERS
from ._store import delete_document, fts_text, hydrate
from ._vectors import ENGLISH, PRIMARY, VectorSpace, drop_space, ensure_space, get_meta, set_meta
from ._writer import write_batch

__all__ = ["DEFAULT_SEGMENTER", "KBConfig", "KnowledgeBase", "Mode"]

Mode = Literal["hybrid", "keyword", "vector"]
DEFAULT_SEGMENTER = "char"
EXACT_FAQ_BONUS = 1.0  # larger than any RRF score: an exact FAQ question match ranks first
MAX_K = 1000
MAX_QUERY_CHARS = 4000


@dataclass(frozen=True)
class KBConfig:
    """Tuning knobs; defaults come from bench/kb_eval.py on SciFact and BQ FAQ (docs/benchmarks.md)."""

    max_chars: int = DEFAULT_MAX_CHARS
    overlap: int = DEFAULT_OVERLAP
    segmenter: str = DEFAULT_SEGMENTER
    # RRF k and weights: picked from the curves in docs/benchmarks.md for the default USE model —
    # SciFact wants a small k and a light vector weight (USE is weak on science), BQ FAQ is flat
    # (±0.005) across the grid, so k=10, w=0.5 sits in the good region of both.
    rrf_k: float = DEFAULT_RRF_K
    keyword_weight: float = 1.0
    vector_weight: float = 0.5
    # An English query with the English space on fuses three lists (same k, keyword weight above):
    # the English space's kNN and, lightly, USE's. Picked from the three-way curve on SciFact
    # (docs/benchmarks.md): the English model carries the vector side; a little USE still helps.
    english_weight: float = 0.7
    english_vector_weight: float = 0.2
    candidates: int = 100  # depth of each ranked list before fusion
    # Answer floors for the default USE model (cosines differ per model; set them per model). Picked by
    # hand on 20 on-topic and 10 off-topic questions against data/demo (tests/test_kb_answer.py pins them).
    faq_min_similarity: float = 0.80
    faq_min_fuzz: float = 0.90
    passage_min_similarity: float = 0.33  # when the passage is also a keyword hit
    passage_vector_only_similarity: float = 0.45  # when only the vectors found it
    passage_medium_similarity: float = 0.50
    answer_candidates: int = 5
    answer_passages: int = 2


class KnowledgeBase:
    """Documents → chunks → FTS5 + sqlite-vec; hybrid search; extractive answers with citations.

    ``english_embedder`` switches the English space on: English chunks also get its vectors and
    English queries search them. ``None`` (or the same model as ``embedder``, which would only
    duplicate the primary space) switches it off and drops its table, so no stale vectors linger.
    """

    def __init__(
        self, storage: SQLiteStorage, embedder: Embedder, config: KBConfig | None = None, *,
        english_embedder: Embedder | None = None,
    ) -> None:
        self.storage = storage
        self.embedder = embedder
        self.config = config or KBConfig()
        if self.config.segmenter not in SEGMENTERS:
            raise InvalidInput(f"segmenter: choose one of {', '.join(SEGMENTERS)}")
        storage.migrate(MIGRATIONS)
        self.spaces: list[tuple[VectorSpace, Embedder]] = [(PRIMARY, embedder)]
        if english_embedder is not None and english_embedder.model_id != embedder.model_id:
            self.spaces.append((ENGLISH, english_embedder))
        elif get_meta(storage, ENGLISH.model_key) is not None:
            drop_space(storage, ENGLISH)
        for space, space_embedder in self.spaces:
            ensure_space(storage, space, space_embedder)
        self._vector_tables = [space.table for space, _ in self.spaces]
        self._ensure_segmenter()

    @property
    def english_embedder(self) -> Embedder | None:
        """The English space's model, or None when that space is off."""
        return next((e for s, e in self.spaces if s is ENGLISH), None)

    # -- writing -------------------------------------------------------------------------------

    def ingest(
        self, path: str | Path, *, tenant: str = "default", collection: str = "default", sync: bool = False,
        progress: Progress | None = None,
    ) -> IngestReport:
        """Ingest a file or folder incrementally (see :mod:`lastline.kb._ingest`)."""
        return ingest_path(self, path, tenant=tenant, collection=collection, sync=sync, progress=progress)

    def add_document(
        self, *, tenant: str = "default", title: str, text: str, source: str | None = None,
        metadata: Mapping[str, Any] | None = None, doc_id: str | None = None, collection: str = "default",
        tags: list[str] | None = None,
    ) -> tuple[str, int]:
        """Add or replace one document from text; Markdown headings are used when ``source`` is ``.md``."""
        if not text.strip():
            raise InvalidInput("text: must not be empty")
        if source and source.lower().endswith((".md", ".markdown")):
            with tempfile.TemporaryDirectory() as tmp:
                tmp_file = Path(tmp) / "doc.md"
                tmp_file.write_text(text, encoding="utf-8")
                document = parse_markdown(tmp_file)[0]
            document.title = title or document.title
        else:
            document = ParsedDocument.plain(text, title)
        document.metadata = dict(metadata or {})
        document.tags = list(tags or [])
        doc_id = doc_id or "doc_" + text_hash(f"{title}\n{text}")[:16]
        digest = content_hash(document, self.config.max_chars, self.config.overlap)
        chunks = self._write_batch(tenant, collection, source, [(doc_id, document, digest)])
        return doc_id, chunks

    def add_file(
        self, filename: str, data: bytes, *, tenant: str = "default", collection: str = "default"
    ) -> list[tuple[str, int]]:
        """Parse uploaded bytes as the type ``filename`` names; one (doc_id, chunks) per document."""
        name = Path(filename).name or "upload"
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / name
            path.write_bytes(data)
            try:
                documents = parse_file(path)
            except ParseError as exc:
                raise InvalidInput(f"file: {name}: {exc}") from exc
        out = []
        for document in documents:
            doc_id = document.doc_id or name + document.key
            digest = content_hash(document, self.config.max_chars, self.config.overlap)
            out.append((doc_id, self._write_batch(tenant, collection, name, [(doc_id, document, digest)])))
        return out

    def delete_document(self, doc_id: str, *, tenant: str = "default") -> bool:
        return bool(self._delete_many(tenant, [doc_id]))

    def seed(self, path: str | Path, *, tenant: str = "default") -> IngestReport | None:
        """Ingest ``path`` when ``tenant`` has no documents yet (first start of a service)."""
        if self.count(tenant=tenant):
            return None
        return self.ingest(path, tenant=tenant, collection="default")

    # -- reading -------------------------------------------------------------------------------

    def count(self, *, tenant: str = "default") -> int:
        return int(self.storage.query("SELECT count(*) FROM kb_documents WHERE tenant = ?", (tenant,))[0][0])

    def get_document(self, doc_id: str, *, tenant: str = "default") -> dict[str, Any] | None:
        rows = self.storage.query(
            "SELECT d.doc_id, d.title, d.source, d.collection, d.kind, d.metadata, d.tags, d.text,"
            " d.created_at, d.updated_at, (SELECT count(*) FROM kb_chunks c WHERE c.doc = d.id)"
            " FROM kb_documents d WHERE d.tenant = ? AND d.doc_id = ?",
            (tenant, doc_id),
        )
        if not rows:
            return None
        r = rows[0]
        return {
            "id": r[0], "title": r[1], "source": r[2], "collection": r[3], "kind": r[4],
            "metadata": json.loads(r[5]), "tags": json.loads(r[6]), "text": r[7], "created_at": r[8],
            "updated_at": r[9], "chunks": r[10],
        }

    def search(
        self, query: str, *, tenant: str = "default", k: int = 10,
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
        conn = self.storage.connection()
        rankings = self.rankings(query, tenant=tenant, filters=parsed, mode=mode, depth=max(k, self.config.candidates))
        scores = rankings.scores()
        top_score = max(scores.values(), default=0.0)
        for rowid in faq_exact(conn, query, tenant=tenant, filters=parsed):
            scores[rowid] = top_score + EXACT_FAQ_BONUS + scores.get(rowid, 0.0)
        ranked = sorted(scores, key=lambda rowid: -scores[rowid])[:k]
        rows = hydrate(conn, tenant, ranked)
        cosine = {name: self._cosines(conn, rankings, name, ranked) for name in (PRIMARY.name, ENGLISH.name)}
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

    def _cosines(self, conn: Any, rankings: Rankings, name: str, rowids: list[int]) -> dict[int, float]:
        """Each result's cosine in space ``name``: from its kNN list, else from its stored vector."""
        known = {rowid: c for rowid in rowids if (c := rankings.cosine(name, rowid)) is not None}
        vector = rankings.query_vectors.get(name)
        missing = [rowid for rowid in rowids if rowid not in known]
        if vector is not None and missing:
            table = next(space.table for space, _ in self.spaces if space.name == name)
            known.update(cosines_of(conn, vector, table=table, rowids=missing))
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
        return rank_lists(self, query, tenant=tenant, filters=parse_filters(filters), mode=mode,
                          depth=depth or self.config.candidates)

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

    # -- internals used by ingest --------------------------------------------------------------

    def _existing(self, tenant: str) -> dict[str, tuple[int, str, str, str | None]]:
        rows = self.storage.query(
            "SELECT doc_id, id, content_hash, collection, source FROM kb_documents WHERE tenant = ?", (tenant,)
        )
        return {r[0]: (r[1], r[2], r[3], r[4]) for r in rows}

    def _write_batch(
        self, tenant: str, collection: str, source: str | None, items: list[tuple[str, ParsedDocument, str]]
    ) -> int:
        return write_batch(self, tenant, collection, source, items)

    def _delete_many(self, tenant: str, doc_ids: list[str]) -> list[str]:
        removed = []
        with self.storage.atomic() as conn:
            for doc_id in doc_ids:
                row = conn.execute(
                    "SELECT id FROM kb_documents WHERE tenant = ? AND doc_id = ?", (tenant, doc_id)
                ).fetchone()
                if row is not None:
                    delete_document(conn, row[0], self._vector_tables)
                    removed.append(doc_id)
        return removed

    def _ensure_segmenter(self) -> None:
        """Re-index FTS when the Chinese segmenter differs from the one the index was built with."""
        if get_meta(self.storage, "segmenter") == self.config.segmenter:
            return
        rows = self.storage.query(
            "SELECT c.id, d.kind, d.title, c.heading, c.text FROM kb_chunks c JOIN kb_documents d ON d.id = c.doc"
        )
        with self.storage.atomic() as conn:
            conn.execute("DELETE FROM kb_fts")
            conn.executemany(
                "INSERT INTO kb_fts (rowid, body) VALUES (?, ?)",
                [(r[0], fts_text(r[1], r[2], tuple(json.loads(r[3])), r[4], self.config.segmenter)) for r in rows],
            )
            set_meta(conn, "segmenter", self.config.segmenter)


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 6)
