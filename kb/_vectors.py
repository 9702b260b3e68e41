"""The sqlite-vec table of chunk vectors, tied to one embedding model.

The table is ``vec0`` with ``tenant`` as a partition key (a kNN query only ever scans the asking
tenant's vectors) and ``collection`` as a metadata column (filtered inside the kNN). Its dimension
comes from the embedder, and the model id is recorded in ``kb_meta``: opening the KB with another
model drops the table and re-embeds every chunk, so vectors of two models never mix.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import numpy as np

from lastline.embedding import Embedder
from lastline.storage import SQLiteStorage

from ._store import VEC_TABLE, embedding_text

__all__ = ["ensure_vector_table", "get_meta", "set_meta"]

REEMBED_BATCH = 256


def get_meta(storage: SQLiteStorage, key: str) -> str | None:
    rows = storage.query("SELECT value FROM kb_meta WHERE key = ?", (key,))
    return str(rows[0][0]) if rows else None


def set_meta(conn: object, key: str, value: str) -> None:
    conn.execute(  # type: ignore[attr-defined]
        "INSERT INTO kb_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (key, value),
    )


def _create(conn: object, dim: int) -> None:
    conn.execute(f"DROP TABLE IF EXISTS {VEC_TABLE}")  # type: ignore[attr-defined]
    conn.execute(  # type: ignore[attr-defined]
        f"CREATE VIRTUAL TABLE {VEC_TABLE} USING vec0 (chunk_id INTEGER PRIMARY KEY,"
        f" tenant TEXT PARTITION KEY, collection TEXT, embedding float[{int(dim)}] distance_metric=cosine)"
    )


def ensure_vector_table(
    storage: SQLiteStorage, embedder: Embedder, progress: Callable[[int, int], None] | None = None
) -> int:
    """Create the table for ``embedder``, re-embedding stored chunks if the model changed.

    Returns how many chunks were re-embedded (0 when the model is unchanged).
    """
    model_id, dim = embedder.model_id, embedder.dim
    stored = get_meta(storage, "model_id")
    if stored == model_id and get_meta(storage, "dim") == str(dim):
        return 0
    rows = storage.query(
        'SELECT c.id, c.tenant, c.collection, d.kind, d.title, c.heading, c.text, f.question FROM kb_chunks c'
        " JOIN kb_documents d ON d.id = c.doc LEFT JOIN kb_faq f ON f.chunk = c.id ORDER BY c.id"
    )
    with storage.atomic() as conn:
        _create(conn, dim)
        set_meta(conn, "model_id", "")  # incomplete until every chunk has a vector again
        set_meta(conn, "dim", str(dim))
    for start in range(0, len(rows), REEMBED_BATCH):
        batch = rows[start : start + REEMBED_BATCH]
        texts = [embedding_text(r[3], r[4], tuple(json.loads(r[5])), r[6], r[7]) for r in batch]
        vectors = embedder.encode(texts)
        with storage.atomic() as conn:
            conn.executemany(
                f"INSERT INTO {VEC_TABLE} (chunk_id, tenant, collection, embedding) VALUES (?,?,?,?)",
                [
                    (r[0], r[1], r[2], np.asarray(v, dtype=np.float32).tobytes())
                    for r, v in zip(batch, vectors, strict=True)
                ],
            )
        if progress is not None:
            progress(min(start + REEMBED_BATCH, len(rows)), len(rows))
    with storage.atomic() as conn:
        set_meta(conn, "model_id", model_id)
    return len(rows)
