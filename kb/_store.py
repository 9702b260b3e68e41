"""Writing and deleting documents: every table touched for one document in one transaction.

The caller embeds first (slow, outside any lock) and then, inside one ``storage.atomic()``, calls
:func:`write_document` (documents, tags, chunks, FTS rows, FAQ questions) and writes the chunks'
vectors into each vector space (:func:`lastline.kb._vectors.insert_vectors`), so a killed ingest
leaves each document either fully old or fully new.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lastline.storage import Connection
from lastline.text import normalize_text

from ._chunking import Chunk
from ._parsed import ParsedDocument
from ._segment import index_text

__all__ = ["ChunkRow", "delete_document", "embedding_text", "fts_text", "write_document"]


def _context(title: str, heading: tuple[str, ...]) -> str:
    parts = [title] if title else []
    parts += [h for h in heading if h and h != title]
    return " > ".join(parts)


def embedding_text(kind: str, title: str, heading: tuple[str, ...], text: str, question: str | None) -> str:
    """What the embedder sees for a chunk: an FAQ's question, else title/headings then the text."""
    if kind == "faq" and question:
        return question
    context = _context(title, heading)
    return f"{context}\n{text}" if context else text


def fts_text(kind: str, title: str, heading: tuple[str, ...], text: str, segmenter: str) -> str:
    """What FTS5 indexes for a chunk: title and headings count as words of the chunk."""
    context = "" if kind == "faq" else _context(title, heading)
    return index_text(f"{context}\n{text}" if context else text, segmenter)


@dataclass(frozen=True)
class ChunkRow:
    """A stored chunk with what a search result or a citation needs."""

    rowid: int
    doc_id: str
    ord: int
    title: str
    text: str
    source: str | None
    heading: tuple[str, ...]
    start: int
    end: int
    collection: str
    kind: str
    metadata: dict[str, Any]
    tags: list[str]
    question: str | None
    answer: str | None

    @property
    def chunk_id(self) -> str:
        return f"{self.doc_id}:{self.ord}"


def delete_document(conn: Connection, doc_rowid: int, vector_tables: Sequence[str]) -> None:
    """Remove a document and everything derived from it (virtual tables do not cascade).

    ``vector_tables`` names every vector space's table, so no space keeps a deleted chunk's vector.
    """
    ids = [r[0] for r in conn.execute("SELECT id FROM kb_chunks WHERE doc = ?", (doc_rowid,))]
    for start in range(0, len(ids), 500):
        batch = json.dumps(ids[start : start + 500])
        conn.execute("DELETE FROM kb_fts WHERE rowid IN (SELECT value FROM json_each(?))", (batch,))
        for table in vector_tables:
            conn.execute(f"DELETE FROM {table} WHERE chunk_id IN (SELECT value FROM json_each(?))", (batch,))
    conn.execute("DELETE FROM kb_documents WHERE id = ?", (doc_rowid,))


def write_document(
    conn: Connection,
    *,
    tenant: str,
    collection: str,
    doc_id: str,
    document: ParsedDocument,
    source: str | None,
    content_hash: str,
    chunks: list[Chunk],
    segmenter: str,
    vector_tables: Sequence[str],
) -> list[int]:
    """Insert (or replace) one document with its chunks; returns the chunk row ids, in chunk order.

    The caller writes the vectors for those ids in the same transaction; ``vector_tables`` is only
    used to clear the replaced document's old vectors.
    """
    now = time.time()
    old = conn.execute(
        "SELECT id, created_at FROM kb_documents WHERE tenant = ? AND doc_id = ?", (tenant, doc_id)
    ).fetchone()
    created = now
    if old is not None:
        created = old[1]
        delete_document(conn, old[0], vector_tables)
    tags = sorted(set(document.tags))
    cursor = conn.execute(
        "INSERT INTO kb_documents (tenant, doc_id, collection, kind, source, content_hash, title, metadata,"
        " tags, text, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        (tenant, doc_id, collection, document.kind, source, content_hash, document.title,
         json.dumps(document.metadata, ensure_ascii=False, default=str), json.dumps(tags, ensure_ascii=False),
         document.text, created, now),
    )
    doc_rowid = int(cursor.lastrowid)
    conn.executemany("INSERT INTO kb_doc_tags (doc, tag) VALUES (?, ?)", [(doc_rowid, t) for t in tags])
    rowids: list[int] = []
    for chunk in chunks:
        cursor = conn.execute(
            'INSERT INTO kb_chunks (doc, tenant, collection, ord, heading, start, "end", text)'
            " VALUES (?,?,?,?,?,?,?,?)",
            (doc_rowid, tenant, collection, chunk.ord, json.dumps(list(chunk.heading), ensure_ascii=False),
             chunk.start, chunk.end, chunk.text),
        )
        chunk_rowid = int(cursor.lastrowid)
        rowids.append(chunk_rowid)
        body = fts_text(document.kind, document.title, chunk.heading, chunk.text, segmenter)
        conn.execute("INSERT INTO kb_fts (rowid, body) VALUES (?, ?)", (chunk_rowid, body))
        if document.kind == "faq" and document.question is not None:
            conn.execute(
                "INSERT INTO kb_faq (chunk, tenant, question, question_norm, answer) VALUES (?,?,?,?,?)",
                (chunk_rowid, tenant, document.question, normalize_text(document.question),
                 document.answer or ""),
            )
    return rowids


_HYDRATE = (
    'SELECT c.id, d.doc_id, c.ord, d.title, c.text, d.source, c.heading, c.start, c."end", d.collection,'
    " d.kind, d.metadata, d.tags, f.question, f.answer FROM kb_chunks c JOIN kb_documents d ON d.id = c.doc"
    " LEFT JOIN kb_faq f ON f.chunk = c.id WHERE c.tenant = ? AND c.id IN (SELECT value FROM json_each(?))"
)


def hydrate(conn: Connection, tenant: str, rowids: list[int]) -> dict[int, ChunkRow]:
    """Chunk rows by id, restricted to ``tenant`` (a foreign id simply does not come back)."""
    out: dict[int, ChunkRow] = {}
    for row in conn.execute(_HYDRATE, (tenant, json.dumps(rowids))):
        out[row[0]] = ChunkRow(
            rowid=row[0], doc_id=row[1], ord=row[2], title=row[3], text=row[4], source=row[5],
            heading=tuple(json.loads(row[6])), start=row[7], end=row[8], collection=row[9], kind=row[10],
            metadata=json.loads(row[11]), tags=json.loads(row[12]), question=row[13], answer=row[14],
        )
    return out
