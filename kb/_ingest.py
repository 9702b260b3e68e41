"""Folder and file ingestion: parse, compare content hashes, chunk, embed, write — incrementally.

Per document the content hash (text, title, metadata, tags and chunking settings) decides: the same
hash in the same collection is skipped, a different one is replaced, a new id is added. Documents
that a re-read file no longer contains are removed, and with ``sync=True`` so are documents whose
file under the ingested folder is gone. Writes happen per batch of whole documents in one
transaction, after embedding, so a killed run leaves every document either old or new, never half.
A file that fails to parse is reported with its reason and the run goes on.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lastline.errors import InvalidInput

from ._parsed import ParsedDocument, ParseError
from ._parsers import parse_file, supported
from ._store import DocumentStore
from ._writer import Indexer

__all__ = ["IngestReport", "Progress", "content_hash", "ingest_path"]

#: (files done, files total, current file) — called before each file and once at the end.
Progress = Callable[[int, int, str], None]
CHUNKING_VERSION = 1
WRITE_BATCH = 128  # documents per embed + transaction (a BEIR corpus is thousands of rows)


@dataclass
class IngestReport:
    """What an ingest did; ``failed`` holds (path, reason) pairs."""

    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # files of a type no parser reads
    files: int = 0
    chunks: int = 0
    seconds: float = 0.0

    def summary(self) -> dict[str, Any]:
        return {
            "added": len(self.added), "updated": len(self.updated), "unchanged": len(self.unchanged),
            "removed": len(self.removed), "failed": len(self.failed), "skipped": len(self.skipped),
            "files": self.files, "chunks": self.chunks, "seconds": round(self.seconds, 3),
        }

    def to_dict(self) -> dict[str, Any]:
        return {**self.summary(), "failures": [{"path": p, "reason": r} for p, r in self.failed]}


def content_hash(document: ParsedDocument, max_chars: int, overlap: int) -> str:
    payload = [CHUNKING_VERSION, max_chars, overlap, document.kind, document.title, document.text,
               document.metadata, sorted(document.tags)]
    return hashlib.sha256(json.dumps(payload, ensure_ascii=False, default=str).encode()).hexdigest()


def _files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(path):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        found.extend(Path(dirpath) / name for name in sorted(filenames) if not name.startswith("."))
    return found


def _doc_id(root: Path, file: Path, document: ParsedDocument) -> str:
    if document.doc_id:
        return document.doc_id
    return file.relative_to(root).as_posix() + document.key


def ingest_path(
    path: str | Path, *, store: DocumentStore, indexer: Indexer, tenant: str, collection: str, sync: bool,
    progress: Progress | None,
) -> IngestReport:
    """Ingest a file or folder into ``tenant``: ``store`` says what is there, ``indexer`` writes."""
    started = time.perf_counter()
    target = Path(path).expanduser()
    if not target.exists():
        raise InvalidInput(f"path: {target} does not exist")
    target = target.resolve()
    root = target if target.is_dir() else target.parent
    files = _files(target)
    existing = store.documents(tenant)
    report = IngestReport()
    seen_sources: set[str] = set()
    seen_docs: set[str] = set()
    for number, file in enumerate(files):
        if progress is not None:
            progress(number, len(files), str(file))
        source = str(file)
        if not supported(file):
            report.skipped.append(source)
            continue
        seen_sources.add(source)
        report.files += 1
        try:
            documents = parse_file(file)
        except ParseError as exc:
            report.failed.append((source, str(exc)))
            seen_docs.update(d for d, row in existing.items() if row.source == source)  # keep what we had
            continue
        pending: list[tuple[str, ParsedDocument, str]] = []
        for document in documents:
            doc_id = _doc_id(root, file, document)
            if doc_id in seen_docs:
                report.failed.append((source, f"duplicate document id {doc_id!r}; later one skipped"))
                continue
            seen_docs.add(doc_id)
            digest = content_hash(document, indexer.config.max_chars, indexer.config.overlap)
            old = existing.get(doc_id)
            if old is not None and (old.content_hash, old.collection, old.source) == (digest, collection, source):
                report.unchanged.append(doc_id)
                continue
            (report.updated if old is not None else report.added).append(doc_id)
            pending.append((doc_id, document, digest))
            if len(pending) >= WRITE_BATCH:
                report.chunks += indexer.write(tenant, collection, source, pending)
                pending = []
        if pending:
            report.chunks += indexer.write(tenant, collection, source, pending)
        gone = [d for d, row in existing.items() if row.source == source and d not in seen_docs]
        report.removed.extend(indexer.delete(tenant, gone))
    if sync:
        prefix = str(root) + os.sep
        gone = [
            d for d, row in existing.items()
            if row.source and row.collection == collection and d not in seen_docs and row.source not in seen_sources
            and (row.source.startswith(prefix) or row.source == str(target))
        ]
        report.removed.extend(indexer.delete(tenant, gone))
    if progress is not None:
        progress(len(files), len(files), "")
    report.seconds = time.perf_counter() - started
    return report
