"""The answer envelope every tier returns: what the answer is and how far to trust it.

Field names are part of the v1 HTTP contract (add fields freely, rename none). ``notice`` is a
short sentence for the end user, in the request's language, so an agent can be honest about a
degraded answer without writing that text itself.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field

__all__ = ["DEPTH", "Answer", "Citation", "Confidence", "Source", "notice_for"]


class Source(StrEnum):
    CACHE = "cache"
    RULES = "rules"
    KB = "kb"
    DEFAULT = "default"


class Confidence(StrEnum):
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


#: ``degradation_depth`` by tier: 0 exact cache … 4 declared default.
DEPTH = {"exact": 0, "fuzzy": 0, "semantic": 1, "rules": 2, "kb": 3, "default": 4}


class Citation(BaseModel):
    """Where a knowledge-base answer came from: document, heading path and character span."""

    doc_id: str
    chunk_id: str | None = None
    title: str | None = None
    source: str | None = None
    heading: str | None = None
    span: tuple[int, int] | None = None


class Answer(BaseModel):
    """A degraded answer with its provenance."""

    answer: str | None
    source: Source
    confidence: Confidence
    degradation_depth: int = Field(ge=0, le=4)
    stale: bool = False
    age_s: float | None = None
    similarity: float | None = None
    citations: list[Citation] = Field(default_factory=list)
    fields: dict[str, Any] | None = None
    notice: str = ""
    layer: str | None = None
    entry_id: str | None = None


_NOTICES = {
    ("cache", "zh"): "以下内容来自此前缓存的回答，可能不是最新信息。",
    ("cache", "en"): "Answered from a previously cached response; it may be out of date.",
    ("rules", "zh"): "以下内容由本地规则自动提取，未经大模型处理，请核对。",
    ("rules", "en"): "Extracted by local rules without a language model; please check it.",
    ("kb", "zh"): "以下内容来自本地知识库，可能不是最新信息。",
    ("kb", "en"): "Answered from the local knowledge base; it may be out of date.",
    ("default", "zh"): "服务暂时不可用，以下为预设的默认回复。",
    ("default", "en"): "The service is temporarily unavailable; this is a preset default reply.",
}


def notice_for(source: Source | str, language: str, stale: bool = False) -> str:
    """The end-user notice for an answer from ``source`` in ``language`` (``zh`` or ``en``)."""
    key = Source(source).value
    lang = "zh" if language == "zh" else "en"
    text = _NOTICES[(key, lang)]
    if stale:
        text += "（该缓存已过期）" if lang == "zh" else " (This cached answer has expired.)"
    return text
