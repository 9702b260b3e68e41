"""Retrieval: FTS5 BM25, sqlite-vec kNN, and their reciprocal rank fusion — plain functions.

Every query carries the tenant: the FTS query joins ``kb_chunks`` and filters on its tenant, and
the kNN query uses the vec0 partition key, so another tenant's chunk can never be a candidate.
The kNN runs on one vector space's table (see :mod:`lastline.kb._vectors`): the primary space for
every query, the English space as well for an English query.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from lastline.storage import Connection
from lastline.text import normalize_text

from ._filters import Filters
from ._segment import match_expression

__all__ = ["DEFAULT_RRF_K", "Ranked", "cosines_of", "faq_exact", "keyword_search", "rrf", "vector_search"]

DEFAULT_RRF_K = 10  # see KBConfig and the curves in docs/benchmarks.md
MAX_KNN = 4096  # sqlite-vec's limit on k


@dataclass(frozen=True)
class Ranked:
    rowid: int
    score: float  # keyword: -bm25 (higher is better); vector: cosine similarity


def keyword_search(
    conn: Connection, query: str, *, tenant: str, filters: Filters, limit: int, segmenter: str
) -> list[Ranked]:
    """BM25 over the tenant's chunks; the user's words are quoted, so no input is FTS5 syntax."""
    expression = match_expression(query, segmenter)
    if expression is None:
        return []
    where, params = filters.document_sql()
    sql = (
        "SELECT c.id, bm25(kb_fts) AS s FROM kb_fts JOIN kb_chunks c ON c.id = kb_fts.rowid"
        f" WHERE kb_fts MATCH ? AND c.tenant = ?{where} ORDER BY s LIMIT ?"
    )
    rows = conn.execute(sql, (expression, tenant, *params, limit)).fetchall()
    return [Ranked(int(r[0]), -float(r[1])) for r in rows]


def _candidates(conn: Connection, tenant: str, filters: Filters) -> list[int]:
    where, params = filters.document_sql()
    return [r[0] for r in conn.execute(f"SELECT c.id FROM kb_chunks c WHERE c.tenant = ?{where}", (tenant, *params))]


def vector_search(
    conn: Connection, vector: np.ndarray, *, table: str, tenant: str, filters: Filters, limit: int
) -> list[Ranked]:
    """Cosine kNN in ``table`` inside the tenant's partition, collection filtered by vec0, the rest by ids."""
    sql = f"SELECT chunk_id, distance FROM {table} WHERE embedding MATCH ? AND k = ? AND tenant = ?"
    params: list[object] = [np.asarray(vector, dtype=np.float32).tobytes(), min(limit, MAX_KNN), tenant]
    if filters.collections is not None:
        sql += f" AND collection IN ({','.join('?' * len(filters.collections))})"
        params.extend(filters.collections)
    if filters.needs_candidates:
        allowed = _candidates(conn, tenant, filters)
        if not allowed:
            return []
        sql += " AND chunk_id IN (SELECT value FROM json_each(?))"
        params.append(json.dumps(allowed))
    rows = conn.execute(sql + " ORDER BY distance", params).fetchall()
    return [Ranked(int(r[0]), 1.0 - float(r[1])) for r in rows]


def cosines_of(conn: Connection, vector: np.ndarray, *, table: str, rowids: Sequence[int]) -> dict[int, float]:
    """Cosine of ``vector`` with the stored vectors of ``rowids`` (those the table holds).

    For results a kNN list did not reach (keyword hits, or chunks past its depth): the answer
    floors read the cosine, and "not in the top 100" is not the same as "not similar".
    """
    query = np.asarray(vector, dtype=np.float32)
    out: dict[int, float] = {}
    for rowid in rowids:
        row = conn.execute(f"SELECT embedding FROM {table} WHERE chunk_id = ?", (rowid,)).fetchone()
        if row is not None:
            out[rowid] = float(np.frombuffer(row[0], dtype=np.float32) @ query)
    return out


def faq_exact(conn: Connection, query: str, *, tenant: str, filters: Filters) -> list[int]:
    """FAQ chunks whose question equals the query after normalization (case, width, punctuation)."""
    where, params = filters.document_sql()
    sql = (
        "SELECT f.chunk FROM kb_faq f JOIN kb_chunks c ON c.id = f.chunk"
        f" WHERE f.tenant = ? AND f.question_norm = ?{where} ORDER BY f.chunk"
    )
    return [int(r[0]) for r in conn.execute(sql, (tenant, normalize_text(query), *params))]


def rrf(lists: Sequence[Sequence[Ranked]], weights: Sequence[float], k: float = DEFAULT_RRF_K) -> dict[int, float]:
    """Reciprocal rank fusion: ``sum(w / (k + rank))`` over the lists a chunk appears in (rank from 1)."""
    fused: dict[int, float] = {}
    for ranked, weight in zip(lists, weights, strict=True):
        for rank, item in enumerate(ranked, start=1):
            fused[item.rowid] = fused.get(item.rowid, 0.0) + weight / (k + rank)
    return fused
