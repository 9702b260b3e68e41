"""The search result shape shared by the Python API, the CLI, the HTTP face and the Python client.

``POST /v1/kb/search`` answers with :class:`SearchResult` itself (pydantic reads the annotations,
descriptions included) and the client parses into it: one definition of the shape. ``question`` and
``answer`` (an FAQ chunk's parts, read by the answer composer) stay in-process.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Annotated, Any

from pydantic import ConfigDict, Field, with_config

__all__ = ["SearchResult"]


# Every field is in every answer: the HTTP schema marks them all required.
@with_config(ConfigDict(json_schema_serialization_defaults_required=True))
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
    similarity: Annotated[
        float | None, Field(description="Cosine in the multilingual (USE) space; the answer floors read it.")
    ] = None
    keyword_rank: Annotated[int | None, Field(description="Rank in the keyword (BM25) list, when in it.")] = None
    vector_rank: Annotated[int | None, Field(description="Rank in the multilingual vector list, when in it.")] = None
    english_rank: Annotated[int | None, Field(description="Rank in the English vector list, when in it.")] = None
    english_similarity: Annotated[
        float | None, Field(description="Cosine in the English space (English chunks only).")
    ] = None
    question: Annotated[str | None, Field(exclude=True)] = None
    answer: Annotated[str | None, Field(exclude=True)] = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["span"] = list(self.span)
        data["heading"] = list(self.heading)
        return data
