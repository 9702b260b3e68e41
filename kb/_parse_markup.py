"""Markdown, HTML and plain-text parsers.

Markdown keeps its source as the document text (so spans point into the file) and turns headings
into sections with a heading path; HTML is flattened to text blocks, headings likewise.
"""

from __future__ import annotations

import re
from pathlib import Path

from ._parsed import ParsedDocument, ParseError, Section

__all__ = ["decode_text", "markdown_document", "parse_html", "parse_markdown", "parse_txt"]

_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.S)


def decode_text(raw: bytes) -> str:
    """File contents as text: UTF-8 (with or without BOM), else GB18030, else a ParseError."""
    if b"\x00" in raw[:4096]:
        raise ParseError("binary content in a text file")
    for encoding in ("utf-8-sig", "gb18030"):
        try:
            return raw.decode(encoding).replace("\r\n", "\n").replace("\r", "\n")
        except UnicodeDecodeError:
            continue
    raise ParseError("not UTF-8 or GB18030 text")


def _sections_from_headings(
    text: str, headings: list[tuple[int, int, int, str]]
) -> list[Section]:
    """Sections between headings; ``headings`` are (level, heading start, body start, title)."""
    sections: list[Section] = []
    path: list[tuple[int, str]] = []
    first = headings[0][1] if headings else len(text)
    if text[:first].strip():
        sections.append(Section((), 0, first))
    for i, (level, _start, body_start, title) in enumerate(headings):
        while path and path[-1][0] >= level:
            path.pop()
        path.append((level, title))
        end = headings[i + 1][1] if i + 1 < len(headings) else len(text)
        sections.append(Section(tuple(t for _, t in path), body_start, end))
    return sections


def parse_markdown(data: bytes, name: str) -> list[ParsedDocument]:
    return [markdown_document(decode_text(data), Path(name).stem)]


def markdown_document(text: str, default_title: str) -> ParsedDocument:
    """A Markdown text as one document: headings become sections, the first ``#`` heading the title."""
    from markdown_it import MarkdownIt

    match = _FRONT_MATTER.match(text)
    offset = match.end() if match else 0
    body = text[offset:]
    tokens = MarkdownIt("commonmark").parse(body)
    line_starts = [0]
    for line in body.split("\n"):
        line_starts.append(line_starts[-1] + len(line) + 1)
    headings: list[tuple[int, int, int, str]] = []
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and token.map:
            title = tokens[i + 1].content.strip() if i + 1 < len(tokens) else ""
            begin, end = token.map
            start = offset + line_starts[begin]
            body_start = offset + min(line_starts[end], len(body))
            headings.append((int(token.tag[1]), start, body_start, title))
    title = next((h[3] for h in headings if h[0] == 1), default_title)
    sections = _sections_from_headings(text, headings)
    if offset:
        sections = [s if s.start >= offset else Section(s.heading, offset, s.end) for s in sections]
    return ParsedDocument(text=text, title=title, sections=sections)


_BLOCKS = ["h1", "h2", "h3", "h4", "h5", "h6", "p", "li", "pre", "blockquote", "td", "th", "dt", "dd"]


def parse_html(data: bytes, name: str) -> list[ParsedDocument]:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(decode_text(data), "html.parser")
    for tag in soup(["script", "style", "noscript", "template", "nav", "svg"]):
        tag.decompose()
    page_title = soup.title.get_text(" ", strip=True) if soup.title else ""
    root = soup.body or soup
    parts: list[str] = []
    headings: list[tuple[int, int, int, str]] = []
    pos = 0
    for element in root.find_all(_BLOCKS):
        if element.find_parent(_BLOCKS[6:]) is not None:
            continue  # nested block (a <p> inside an <li>): its text is already in the parent
        content = " ".join(element.get_text(" ", strip=True).split())
        if not content:
            continue
        if element.name in _BLOCKS[:6]:
            headings.append((int(element.name[1]), pos, pos + len(content) + 2, content))
        parts.append(content)
        pos += len(content) + 2
    text = "\n\n".join(parts)
    if not text.strip():
        text = " ".join(root.get_text(" ", strip=True).split())
        headings = []
    title = page_title or next((h[3] for h in headings if h[0] == 1), Path(name).stem)
    return [ParsedDocument(text=text, title=title, sections=_sections_from_headings(text, headings))]


def parse_txt(data: bytes, name: str) -> list[ParsedDocument]:
    text = decode_text(data)
    first = text.strip().split("\n", 1)[0].strip() if text.strip() else ""
    title = first if 0 < len(first) <= 120 else Path(name).stem
    return [ParsedDocument.plain(text, title)]
