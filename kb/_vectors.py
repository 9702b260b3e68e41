"""The KB's vector spaces: sqlite-vec tables of chunk vectors, each tied to one embedding model.

A space is one ``vec0`` table with ``tenant`` as a partition key (a kNN query only ever scans the
asking tenant's vectors) and ``collection`` as a metadata column (filtered inside the kNN). Its
dimension comes from its embedder, and the model id is recorded in ``kb_meta`` under the space's
key prefix: opening the KB with another model drops the table and re-embeds the chunks it holds,
so vectors of two models never mix.

Two spaces exist:

- ``PRIMARY`` (``kb_vec``) holds every chunk, embedded by the service's one embedder (USE by
  default, the only bundled model that reads Chinese and English alike). Cross-lingual search and
  the answer floors rest on its cosines.
- ``ENGLISH`` (``kb_vec_en``) holds only chunks whose embedded text is not CJK-dominant
  (:func:`lastline.text.language_of`), embedded by an English specialist (MiniLM by default):
  USE is weak on technical English (SciFact vector-only nDCG@10 0.436 vs MiniLM 0.670), while an
  English-only model maps Chinese to unknown tokens, so it must never see Chinese chunks.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from lastline.embedding import Embedder
from lastline.storage import Connection, SQLiteStorage
from lastline.text import language_of

from ._store import embedding_text

__all__ = [
    "ENGLISH",
    "PRIMARY",
    "VectorSpace",
    "drop_space",
    "ensure_space",
    "get_meta",
    "insert_vectors",
    "set_meta",
]

REEMBED_BATCH = 256


@dataclass(frozen=True)
class VectorSpace:
    """Where a space lives (table, ``kb_meta`` key prefix) and which chunks it holds.

    ``languages`` is None for a space that holds every chunk, else the set of
    :func:`~lastline.text.language_of` values whose chunks it holds.
    """

    name: str
    table: str
    meta_prefix: str
    languages: frozenset[str] | None = None

    def holds(self, text: str) -> bool:
        """Whether a chunk whose embedded text is ``text`` gets a vector in this space."""
        return self.languages is None or language_of(text) in self.languages

    @property
    def model_key(self) -> str:
        return f"{self.meta_prefix}model_id"

    @property
    def dim_key(self) -> str:
        return f"{self.meta_prefix}dim"


# The primary space keeps the unprefixed keys and table name it has had since kb_0001, so
# existing databases open without re-embedding.
PRIMARY = VectorSpace("vector", "kb_vec", "")
ENGLISH = VectorSpace("english", "kb_vec_en", "en_", frozenset({"en"}))


def get_meta(storage: SQLiteStorage, key: str) -> str | None:
    rows = storage.query("SELECT value FROM kb_meta WHERE key = ?", (key,))
    return str(rows[0][0]) if rows else None


def set_meta(conn: Connection, key: str, value: str) -> None:
    conn.execute(
        "INSERT INTO kb_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (key, value),
    )


def _create(conn: Connection, space: VectorSpace, dim: int) -> None:
    conn.execute(f"DROP TABLE IF EXISTS {space.table}")
    conn.execute(
        f"CREATE VIRTUAL TABLE {space.table} USING vec0 (chunk_id INTEGER PRIMARY KEY,"
        f" tenant TEXT PARTITION KEY, collection TEXT, embedding float[{int(dim)}] distance_metric=cosine)"
    )


def insert_vectors(
    conn: Connection, space: VectorSpace, rows: Sequence[tuple[int, str, str]], vectors: np.ndarray
) -> None:
    """Write one vector per (chunk id, tenant, collection) row — the only writer of a space's table."""
    conn.executemany(
        f"INSERT INTO {space.table} (chunk_id, tenant, collection, embedding) VALUES (?,?,?,?)",
        [(r[0], r[1], r[2], np.asarray(v, dtype=np.float32).tobytes()) for r, v in zip(rows, vectors, strict=True)],
    )


def drop_space(storage: SQLiteStorage, space: VectorSpace) -> None:
    """Remove a space that was switched off, so no stale vectors are left to come back later."""
    with storage.atomic() as conn:
        conn.execute(f"DROP TABLE IF EXISTS {space.table}")
        conn.execute("DELETE FROM kb_meta WHERE key IN (?, ?)", (space.model_key, space.dim_key))


def ensure_space(
    storage: SQLiteStorage, space: VectorSpace, embedder: Embedder,
    progress: Callable[[int, int], None] | None = None,
) -> int:
    """Create ``space``'s table for ``embedder``, re-embedding the chunks it holds if the model changed.

    Returns how many chunks were re-embedded (0 when the model is unchanged). The model id is
    cleared first and written last, so an interrupted re-embed is redone at the next start.
    """
    model_id, dim = embedder.model_id, embedder.dim
    if get_meta(storage, space.model_key) == model_id and get_meta(storage, space.dim_key) == str(dim):
        return 0
    rows = storage.query(
        "SELECT c.id, c.tenant, c.collection, d.kind, d.title, c.heading, c.text, f.question FROM kb_chunks c"
        " JOIN kb_documents d ON d.id = c.doc LEFT JOIN kb_faq f ON f.chunk = c.id ORDER BY c.id"
    )
    todo = [
        ((r[0], r[1], r[2]), text)
        for r in rows
        if space.holds(text := embedding_text(r[3], r[4], tuple(json.loads(r[5])), r[6], r[7]))
    ]
    with storage.atomic() as conn:
        _create(conn, space, dim)
        set_meta(conn, space.model_key, "")  # incomplete until every chunk has a vector again
        set_meta(conn, space.dim_key, str(dim))
    for start in range(0, len(todo), REEMBED_BATCH):
        batch = todo[start : start + REEMBED_BATCH]
        vectors = embedder.encode([text for _, text in batch])
        with storage.atomic() as conn:
            insert_vectors(conn, space, [key for key, _ in batch], vectors)
        if progress is not None:
            progress(min(start + REEMBED_BATCH, len(todo)), len(todo))
    with storage.atomic() as conn:
        set_meta(conn, space.model_key, model_id)
    return len(todo)
