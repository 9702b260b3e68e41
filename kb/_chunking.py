"""Split a parsed document into chunks that follow its headings and paragraphs.

Each section (the text under one heading path) is cut into windows of at most ``max_chars``,
preferring to cut at a paragraph break, then at a sentence end, then at whitespace; consecutive
windows share about ``overlap`` characters, re-started at a sentence or word boundary, so a fact
that straddles a cut is whole in at least one chunk. Every chunk is a real span of the document
text (``text[start:end]``), which is what citations point at. An FAQ entry is always one chunk.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ._parsed import ParsedDocument

__all__ = ["DEFAULT_MAX_CHARS", "DEFAULT_OVERLAP", "Chunk", "chunk_document"]

DEFAULT_MAX_CHARS = 1200
DEFAULT_OVERLAP = 150

_PARAGRAPH = re.compile(r"\n[ \t]*\n")
_SENTENCE = re.compile(r"[.!?。！？；;:：](?=\s|$)|[。！？；]")
_SPACE = re.compile(r"\s")


@dataclass(frozen=True)
class Chunk:
    ord: int
    text: str
    heading: tuple[str, ...]
    start: int
    end: int


def _skip_space(text: str, pos: int, end: int) -> int:
    while pos < end and text[pos].isspace():
        pos += 1
    return pos


def _trim_end(text: str, start: int, end: int) -> int:
    while end > start and text[end - 1].isspace():
        end -= 1
    return end


def _best_cut(text: str, start: int, limit: int) -> int:
    """The last good cut in ``(start + (limit - start) // 2, limit]``: paragraph, sentence, space."""
    low = start + (limit - start) // 2
    window = text[low:limit]
    for pattern in (_PARAGRAPH, _SENTENCE, _SPACE):
        last = None
        for match in pattern.finditer(window):
            last = match
        if last is not None:
            return low + (last.start() if pattern is _PARAGRAPH else last.end())
    return limit


def _restart(text: str, cut: int, start: int, overlap: int) -> int:
    """Where the next window starts: ``overlap`` back from ``cut``, moved to a sentence or word start."""
    if overlap <= 0:
        return cut
    target = max(cut - overlap, start + 1)
    window = text[target:cut]
    for pattern in (_SENTENCE, _SPACE):
        match = pattern.search(window)
        if match is not None:
            return target + match.end()
    return target


def _windows(text: str, start: int, end: int, max_chars: int, overlap: int) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    pos = _skip_space(text, start, end)
    end = _trim_end(text, pos, end)
    while pos < end:
        if end - pos <= max_chars:
            spans.append((pos, end))
            break
        cut = _best_cut(text, pos, pos + max_chars)
        spans.append((pos, _trim_end(text, pos, cut)))
        nxt = _skip_space(text, _restart(text, cut, pos, overlap), end)
        pos = nxt if nxt > pos else cut
    return spans


def chunk_document(
    document: ParsedDocument, max_chars: int = DEFAULT_MAX_CHARS, overlap: int = DEFAULT_OVERLAP
) -> list[Chunk]:
    """Chunks of ``document`` in order; spans index into ``document.text``."""
    text = document.text
    if document.kind == "faq":
        return [Chunk(0, text, (), 0, len(text))]
    if max_chars < 50:
        raise ValueError("max_chars must be at least 50")
    overlap = max(0, min(overlap, max_chars // 2))
    chunks: list[Chunk] = []
    for section in document.sections:
        for start, end in _windows(text, section.start, section.end, max_chars, overlap):
            chunks.append(Chunk(len(chunks), text[start:end], section.heading, start, end))
    return chunks
