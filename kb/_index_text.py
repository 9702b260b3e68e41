"""What each index sees for one chunk: the text the embedders encode and the text FTS5 indexes.

Both put the document title and heading path in front of the chunk, because a chunk's own words
often do not name its topic ("It is paid back within 5 days" under "Refunds"). An FAQ entry is
embedded by its question alone, which is what a user's query resembles.
"""

from __future__ import annotations

from ._segment import index_text

__all__ = ["embedding_text", "fts_text"]


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
