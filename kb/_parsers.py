"""Which parser reads which file, by extension; one entry point that never lets a parser crash the run."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ._parse_markup import parse_html, parse_markdown, parse_txt
from ._parse_office import parse_docx, parse_pdf
from ._parse_records import parse_csv, parse_jsonl
from ._parsed import ParsedDocument, ParseError

__all__ = ["PARSERS", "parse_file", "supported"]

Parser = Callable[[Path], list[ParsedDocument]]

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


def supported(path: Path) -> bool:
    return path.suffix.lower() in PARSERS


def parse_file(path: Path) -> list[ParsedDocument]:
    """Parse ``path``; any failure (bad bytes, broken zip, parser bug) becomes one ParseError."""
    parser = PARSERS.get(path.suffix.lower())
    if parser is None:
        raise ParseError(f"unsupported file type {path.suffix or '(none)'}")
    try:
        documents = parser(path)
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
