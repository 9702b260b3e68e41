"""Which parser reads which file, by extension; entry points that never let a parser crash the run.

Parsers read bytes (and the file name, for the type and a fallback title), so an upload is parsed
from memory exactly as a file on disk is.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ._parse_markup import parse_html, parse_markdown, parse_txt
from ._parse_office import parse_docx, parse_pdf
from ._parse_records import parse_csv, parse_jsonl
from ._parsed import ParsedDocument, ParseError

__all__ = ["PARSERS", "parse_bytes", "parse_file", "supported"]

#: (file contents, file name) → documents
Parser = Callable[[bytes, str], list[ParsedDocument]]

PARSERS: dict[str, Parser] = {
    ".md": parse_markdown,
    ".markdown": parse_markdown,
    ".html": parse_html,
    ".htm": parse_html,
    ".pdf": parse_pdf,
    ".docx": parse_docx,
    ".txt": parse_txt,
    ".text": parse_txt,
    ".csv": parse_csv,
    ".tsv": parse_csv,
    ".jsonl": parse_jsonl,
}


def supported(path: Path | str) -> bool:
    return Path(path).suffix.lower() in PARSERS


def parse_file(path: Path) -> list[ParsedDocument]:
    """Parse the file at ``path`` (see :func:`parse_bytes`); an unreadable file is a ParseError too."""
    if not supported(path):
        raise ParseError(f"unsupported file type {path.suffix or '(none)'}")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ParseError(f"{type(exc).__name__}: {exc}") from exc
    return parse_bytes(data, path.name)


def parse_bytes(data: bytes, name: str) -> list[ParsedDocument]:
    """Parse ``data`` as the type ``name``'s extension says; any failure becomes one ParseError."""
    suffix = Path(name).suffix.lower()
    parser = PARSERS.get(suffix)
    if parser is None:
        raise ParseError(f"unsupported file type {suffix or '(none)'}")
    try:
        documents = parser(data, name)
    except ParseError:
        raise
    except (OSError, RecursionError, MemoryError) as exc:
        raise ParseError(f"{type(exc).__name__}: {exc}") from exc
    except Exception as exc:  # third-party parsers raise anything on malformed input
        raise ParseError(f"{type(exc).__name__}: {exc}") from exc
    documents = [d for d in documents if d.text.strip()]
    if not documents:
        raise ParseError("no extractable text")
    return documents
