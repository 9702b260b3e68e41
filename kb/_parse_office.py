"""PDF (pypdf) and DOCX (python-docx) parsers.

PDF pages become sections headed ``p. N`` (PDFs rarely carry a usable heading structure);
DOCX paragraphs styled ``Heading N`` / ``Title`` become the heading path.
"""

from __future__ import annotations

import io
import logging
import re
from pathlib import Path

from ._parsed import ParsedDocument, ParseError, Section

__all__ = ["parse_docx", "parse_pdf"]

# pypdf logs every repair it attempts on a malformed file; the ingest report already says what failed.
logging.getLogger("pypdf").setLevel(logging.ERROR)

_HEADING_STYLE = re.compile(r"^(?:heading|标题)\s*(\d)", re.I)


def parse_pdf(data: bytes, name: str) -> list[ParsedDocument]:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise ParseError("encrypted PDF")
        pages = [(page.extract_text() or "").strip() for page in reader.pages]
        info_title = (reader.metadata.title if reader.metadata else None) or ""
    except (PdfReadError, ValueError, KeyError, TypeError) as exc:
        raise ParseError(f"unreadable PDF: {exc}") from exc
    parts: list[str] = []
    sections: list[Section] = []
    pos = 0
    for number, page_text in enumerate(pages, start=1):
        if not page_text:
            continue
        sections.append(Section((f"p. {number}",), pos, pos + len(page_text)))
        parts.append(page_text)
        pos += len(page_text) + 2
    text = "\n\n".join(parts)
    title = str(info_title).strip() or Path(name).stem
    return [ParsedDocument(text=text, title=title, sections=sections)]


def parse_docx(data: bytes, name: str) -> list[ParsedDocument]:
    import docx
    from docx.opc.exceptions import PackageNotFoundError

    try:
        document = docx.Document(io.BytesIO(data))
    except (PackageNotFoundError, KeyError, ValueError) as exc:
        raise ParseError(f"unreadable DOCX: {exc}") from exc
    except Exception as exc:  # zipfile.BadZipFile, lxml errors: all mean "not a DOCX"
        raise ParseError(f"unreadable DOCX: {type(exc).__name__}: {exc}") from exc
    parts: list[str] = []
    sections: list[Section] = []
    heading_path: list[tuple[int, str]] = []
    title = ""
    pos = 0
    section_start = 0

    def close_section(end: int) -> None:
        if end > section_start:
            sections.append(Section(tuple(t for _, t in heading_path), section_start, end))

    for paragraph in document.paragraphs:
        content = paragraph.text.strip()
        if not content:
            continue
        style = (paragraph.style.name if paragraph.style is not None else "") or ""
        match = _HEADING_STYLE.match(style)
        if style.lower() == "title" or match:
            level = 0 if style.lower() == "title" else int(match.group(1)) if match else 1
            close_section(max(pos - 2, section_start))
            if level == 0:
                title = title or content
            while heading_path and heading_path[-1][0] >= level:
                heading_path.pop()
            heading_path.append((level, content))
            parts.append(content)
            pos += len(content) + 2
            section_start = pos
            continue
        parts.append(content)
        pos += len(content) + 2
    for table in document.tables:
        for row in table.rows:
            content = " | ".join(cell.text.strip() for cell in row.cells if cell.text.strip())
            if content:
                parts.append(content)
                pos += len(content) + 2
    text = "\n\n".join(parts)
    close_section(len(text))
    if not title:
        title = str(document.core_properties.title or "").strip() or next(
            (s.heading[0] for s in sections if s.heading), Path(name).stem
        )
    return [ParsedDocument(text=text, title=title, sections=sections or [Section((), 0, len(text))])]
