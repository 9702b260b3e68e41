"""KB tables, created by numbered migrations (``kb_0001_…``).

- ``kb_documents``: one row per document (tenant, collection, source path, content hash, title,
  metadata and tags as JSON, the full text so spans can be resolved), unique per (tenant, doc_id).
- ``kb_doc_tags``: tags as rows, so tag filters run inside the search query.
- ``kb_chunks``: chunk text with heading path and span; tenant/collection copied for filtering.
- ``kb_faq``: the question of each FAQ chunk, normalized, for direct matching.
- ``kb_fts``: FTS5 over segmented chunk text (rowid = chunk id), porter stemming; written
  explicitly in the same transaction as the chunk (Chinese segmentation happens in Python, so a
  trigger cannot do it). Since ``kb_0002`` it stores its text: see :func:`_fts_with_content`.
- ``kb_chunks.lang`` (since ``kb_0003``): :func:`~lastline.text.language_of` of the chunk's embedded
  text, so a vector space that holds only some languages finds the chunks it still lacks in SQL.
- ``kb_files`` (since ``kb_0004``): per tenant and source path, the size, mtime and SHA-256 the
  last ingest saw and the chunking settings it used — re-ingest skips a file whose stat matches.
- ``kb_meta``: key/value (embedding model id and dimension, Chinese segmenter).
The vector table (sqlite-vec ``vec0``) depends on the embedder's dimension and is created by
:mod:`lastline.kb._vectors`, not here.
"""

from __future__ import annotations

import json

from lastline.storage import Connection, Migration
from lastline.text import language_of

from ._index_text import embedding_text

__all__ = ["MIGRATIONS"]


def _run(conn: Connection, script: str) -> None:
    """Execute ``;``-separated statements one by one (``executescript`` would COMMIT the migration)."""
    for statement in script.split(";\n"):
        if statement.strip():
            conn.execute(statement)


def _documents(conn: Connection) -> None:
    _run(
        conn,
        """
        CREATE TABLE kb_documents (
            id INTEGER PRIMARY KEY,
            tenant TEXT NOT NULL,
            doc_id TEXT NOT NULL,
            collection TEXT NOT NULL,
            kind TEXT NOT NULL DEFAULT 'doc',
            source TEXT,
            content_hash TEXT NOT NULL,
            title TEXT NOT NULL DEFAULT '',
            metadata TEXT NOT NULL DEFAULT '{}',
            tags TEXT NOT NULL DEFAULT '[]',
            text TEXT NOT NULL,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL,
            UNIQUE (tenant, doc_id)
        );
        CREATE INDEX kb_documents_source ON kb_documents (tenant, source);
        CREATE INDEX kb_documents_collection ON kb_documents (tenant, collection);
        CREATE TABLE kb_doc_tags (
            doc INTEGER NOT NULL REFERENCES kb_documents (id) ON DELETE CASCADE,
            tag TEXT NOT NULL,
            PRIMARY KEY (doc, tag)
        );
        CREATE INDEX kb_doc_tags_tag ON kb_doc_tags (tag);
        CREATE TABLE kb_chunks (
            id INTEGER PRIMARY KEY,
            doc INTEGER NOT NULL REFERENCES kb_documents (id) ON DELETE CASCADE,
            tenant TEXT NOT NULL,
            collection TEXT NOT NULL,
            ord INTEGER NOT NULL,
            heading TEXT NOT NULL DEFAULT '[]',
            start INTEGER NOT NULL,
            "end" INTEGER NOT NULL,
            text TEXT NOT NULL
        );
        CREATE INDEX kb_chunks_doc ON kb_chunks (doc);
        CREATE INDEX kb_chunks_tenant ON kb_chunks (tenant, collection);
        CREATE TABLE kb_faq (
            chunk INTEGER PRIMARY KEY REFERENCES kb_chunks (id) ON DELETE CASCADE,
            tenant TEXT NOT NULL,
            question TEXT NOT NULL,
            question_norm TEXT NOT NULL,
            answer TEXT NOT NULL
        );
        CREATE INDEX kb_faq_norm ON kb_faq (tenant, question_norm);
        CREATE VIRTUAL TABLE kb_fts USING fts5 (
            body, content='', contentless_delete=1, tokenize='porter unicode61 remove_diacritics 2'
        );
        CREATE TABLE kb_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)
        """
    )


def _fts_with_content(conn: Connection) -> None:
    """Replace the contentless FTS table by one that stores its (segmented) text.

    Measured: with ``contentless_delete=1`` deleting rows does not update FTS5's BM25 statistics
    (row count, token totals), so every re-ingest skewed scores; a table that keeps its text
    updates them exactly (tests/test_kb_ingest.py pins this). Clearing the ``segmenter`` key makes
    the next ``KnowledgeBase`` re-index every chunk into the new table.
    """
    _run(
        conn,
        """
        DROP TABLE kb_fts;
        CREATE VIRTUAL TABLE kb_fts USING fts5 (body, tokenize='porter unicode61 remove_diacritics 2');
        DELETE FROM kb_meta WHERE key = 'segmenter'
        """,
    )


def _chunk_language(conn: Connection) -> None:
    """Record each chunk's language, computed as the English space decides it (see ``_spaces``)."""
    conn.execute("ALTER TABLE kb_chunks ADD COLUMN lang TEXT NOT NULL DEFAULT ''")
    rows = conn.execute(
        "SELECT c.id, d.kind, d.title, c.heading, c.text, f.question FROM kb_chunks c"
        " JOIN kb_documents d ON d.id = c.doc LEFT JOIN kb_faq f ON f.chunk = c.id"
    ).fetchall()
    conn.executemany("UPDATE kb_chunks SET lang = ? WHERE id = ?", [
        (language_of(embedding_text(r[1], r[2], tuple(json.loads(r[3])), r[4], r[5])), r[0]) for r in rows
    ])
    conn.execute("CREATE INDEX kb_chunks_lang ON kb_chunks (lang)")


def _files(conn: Connection) -> None:
    """What the last ingest saw of each file, so an unchanged file is skipped without being read."""
    _run(
        conn,
        """
        CREATE TABLE kb_files (
            tenant TEXT NOT NULL,
            source TEXT NOT NULL,
            collection TEXT NOT NULL,
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            sha256 TEXT NOT NULL,
            settings TEXT NOT NULL,
            PRIMARY KEY (tenant, source)
        )
        """,
    )


MIGRATIONS = [
    Migration("kb_0001_documents_chunks_fts", _documents),
    Migration("kb_0002_fts_with_content", _fts_with_content),
    Migration("kb_0003_chunk_language", _chunk_language),
    Migration("kb_0004_files", _files),
]
