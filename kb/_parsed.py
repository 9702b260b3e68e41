"""What a parser hands to the chunker: plain document text plus where its headings are.

Parsers turn one file into one or more :class:`ParsedDocument` (a Markdown file is one document;
an FAQ file or a BEIR ``corpus.jsonl`` is one document per row). Spans in ``sections`` are
character offsets into ``text``, so every chunk can later cite exactly where it came from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["ParseError", "ParsedDocument", "Section"]


class ParseError(Exception):
    """A file could not be read as its format; the ingest reports it and moves on."""


@dataclass(frozen=True)
class Section:
    """A run of ``text[start:end]`` under one heading path (outermost heading first)."""

    heading: tuple[str, ...]
    start: int
    end: int


@dataclass
class ParsedDocument:
    """One document from a file: its text, title, sections, and FAQ fields when it is an FAQ entry."""

    text: str
    title: str
    sections: list[Section]
    kind: Literal["doc", "faq"] = "doc"
    key: str = ""  # suffix that tells documents of one file apart ("" for whole-file documents)
    doc_id: str | None = None  # an explicit id from the data (BEIR ``_id``, FAQ ``id``)
    question: str | None = None
    answer: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    tags: list[str] = field(default_factory=list)

    @classmethod
    def plain(cls, text: str, title: str, **kwargs: Any) -> ParsedDocument:
        """A document with one untitled section covering all of ``text``."""
        return cls(text=text, title=title, sections=[Section((), 0, len(text))], **kwargs)
