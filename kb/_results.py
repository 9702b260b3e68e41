"""The search result shape shared by the Python API, the CLI and the HTTP face."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["SearchResult"]


@dataclass(frozen=True)
class SearchResult:
    """One chunk found for a query; ``span`` indexes the document text, ``score`` depends on ``mode``.

    ``score`` is the fused RRF score in hybrid mode, ``-bm25`` in keyword mode and cosine similarity
    in vector mode (RRF over both spaces when an English query also searched the English space).
    ``similarity`` is the primary (multilingual) model's cosine whenever the chunk was a candidate
    there — the answer floors read it; ``*_rank`` are 1-based ranks in each list the chunk was
    in: ``keyword_rank`` (FTS5), ``vector_rank`` (primary space), ``english_rank`` (English space,
    with its own model's cosine in ``english_similarity``; None for Chinese queries or chunks).
    """

    doc_id: str
    chunk_id: str
    title: str
    text: str
    score: float
    source: str | None
    span: tuple[int, int]
    heading: tuple[str, ...] = ()
    collection: str = "default"
    kind: str = "doc"
    metadata: dict[str, Any] = field(default_factory=dict)
    tags: list[str] = field(default_factory=list)
    similarity: float | None = None
    keyword_rank: int | None = None
    vector_rank: int | None = None
    english_rank: int | None = None
    english_similarity: float | None = None
    question: str | None = None
    answer: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["span"] = list(self.span)
        data["heading"] = list(self.heading)
        return data
