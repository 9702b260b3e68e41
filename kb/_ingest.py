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
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lastline.errors import InvalidInput

from ._parsed import ParsedDocument, ParseError
from ._parsers import parse_bytes, supported
from ._store import DocumentStore, StoredFile
from ._writer import Indexer

__all__ = ["IngestReport", "Progress", "content_hash", "ingest_path"]

#: (files done, files total, current file) — called before each file and once at the end.
Progress = Callable[[int, int, str], None]
CHUNKING_VERSION = 1
WRITE_BATCH = 128  # documents per embed + transaction (a BEIR corpus is thousands of rows)
PREFETCH = 8  # files read and parsed ahead of the one being embedded


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
    #: CPU seconds per stage — "parse" (read, hash, parse; in the prefetch thread), then the
    #: indexer's "chunk", "keyword text", "encode" (worker processes included) and "write".
    cpu: dict[str, float] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        return {
            "added": len(self.added), "updated": len(self.updated), "unchanged": len(self.unchanged),
            "removed": len(self.removed), "failed": len(self.failed), "skipped": len(self.skipped),
            "files": self.files, "chunks": self.chunks, "seconds": round(self.seconds, 3),
        }

    def to_dict(self) -> dict[str, Any]:
        return {**self.summary(), "failures": [{"path": p, "reason": r} for p, r in self.failed],
                "cpu_seconds": {stage: round(seconds, 4) for stage, seconds in self.cpu.items()}}


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


def settings_fingerprint(max_chars: int, overlap: int) -> str:
    """The chunking settings a file's documents were hashed with: change them and every file is re-read."""
    return f"{CHUNKING_VERSION}:{max_chars}:{overlap}"


@dataclass
class _Read:
    """One file read, hashed and parsed in the prefetch thread (``error`` when it did not parse)."""

    stat: os.stat_result
    sha256: str
    documents: list[ParsedDocument]
    error: str | None = None
    cpu: float = 0.0  # CPU seconds the prefetch thread spent on this file


def _read(file: Path) -> _Read:
    started = time.thread_time()
    read = _read_file(file)
    read.cpu = time.thread_time() - started
    return read


def _read_file(file: Path) -> _Read:
    try:
        stat = file.stat()
        data = file.read_bytes()
    except OSError as exc:
        return _Read(os.stat_result((0,) * 10), "", [], f"{type(exc).__name__}: {exc}")
    digest = hashlib.sha256(data).hexdigest()
    try:
        return _Read(stat, digest, parse_bytes(data, file.name))
    except ParseError as exc:
        return _Read(stat, digest, [], str(exc))


def _prefetched(files: list[Path], ahead: int = PREFETCH) -> Iterator[tuple[Path, _Read]]:
    """Files read and parsed one step ahead in a thread, so parsing overlaps with encoding."""
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="kb-parse") as pool:
        queue: deque[tuple[Path, Future[_Read]]] = deque()
        for file in files:
            queue.append((file, pool.submit(_read, file)))
            if len(queue) > ahead:
                done, future = queue.popleft()
                yield done, future.result()
        while queue:
            done, future = queue.popleft()
            yield done, future.result()


def ingest_path(
    path: str | Path, *, store: DocumentStore, indexer: Indexer, tenant: str, collection: str, sync: bool,
    progress: Progress | None,
) -> IngestReport:
    """Ingest a file or folder into ``tenant``: ``store`` says what is there, ``indexer`` writes.

    A file whose size and mtime (or, failing that, SHA-256) match what the last ingest recorded,
    with the same collection and chunking settings, is skipped without being parsed; documents of
    many small files are embedded and written together, ``WRITE_BATCH`` documents at a time.
    """
    started = time.perf_counter()
    target = Path(path).expanduser()
    if not target.exists():
        raise InvalidInput(f"path: {target} does not exist")
    target = target.resolve()
    root = target if target.is_dir() else target.parent
    files = _files(target)
    existing = store.documents(tenant)
    known_files = store.files(tenant)
    settings = settings_fingerprint(indexer.config.max_chars, indexer.config.overlap)
    by_source: dict[str | None, list[str]] = {}
    for doc_id, row in existing.items():
        by_source.setdefault(row.source, []).append(doc_id)
    report = IngestReport()
    cpu_before = dict(indexer.cpu)
    parse_cpu = 0.0
    seen_sources: set[str] = set()
    seen_docs: set[str] = set()
    to_read: list[Path] = []
    recorded: list[StoredFile] = []

    def unchanged(source: str, record: StoredFile | None) -> bool:
        """Same collection and settings as last time, and its documents are all still there."""
        return (record is not None and record.collection == collection and record.settings == settings
                and bool(by_source.get(source)))

    for number, file in enumerate(files):
        source = str(file)
        if not supported(file):
            report.skipped.append(source)
            continue
        seen_sources.add(source)
        report.files += 1
        record = known_files.get(source)
        if unchanged(source, record):
            try:
                stat = file.stat()
            except OSError:
                stat = None
            if record is not None and stat is not None and (stat.st_size, stat.st_mtime_ns) == (
                    record.size, record.mtime_ns):
                report.unchanged.extend(by_source[source])
                seen_docs.update(by_source[source])
                if progress is not None and number % 256 == 0:
                    progress(number, len(files), source)
                continue
        to_read.append(file)

    pending: list[tuple[str, ParsedDocument, str, str | None]] = []
    with indexer.pipeline() as pipe:  # the batch before is written while this one encodes

        def flush(last: bool = False) -> None:
            if pending:
                report.chunks += pipe.write(tenant, collection, pending, last=last)
                pending.clear()

        done_files = report.files - len(to_read)
        for number, (file, read) in enumerate(_prefetched(to_read), start=done_files):
            if progress is not None:
                progress(number, len(files), str(file))
            source = str(file)
            parse_cpu += read.cpu
            if read.error is not None:
                report.failed.append((source, read.error))
                seen_docs.update(by_source.get(source, []))  # keep what we had
                continue
            record = known_files.get(source)
            stored = StoredFile(source, collection, read.stat.st_size, read.stat.st_mtime_ns, read.sha256, settings)
            recorded.append(stored)
            if unchanged(source, record) and record is not None and record.sha256 == read.sha256:
                report.unchanged.extend(by_source[source])  # touched, not changed
                seen_docs.update(by_source[source])
                continue
            for document in read.documents:
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
                pending.append((doc_id, document, digest, source))
                if len(pending) >= WRITE_BATCH:
                    flush()
            gone = [d for d in by_source.get(source, []) if d not in seen_docs]
            report.removed.extend(indexer.delete(tenant, gone))
        flush(last=True)
        report.chunks += pipe.drain()
    store.record_files(tenant, recorded)
    if sync:
        prefix = str(root) + os.sep
        gone = [
            d for d, row in existing.items()
            if row.source and row.collection == collection and d not in seen_docs and row.source not in seen_sources
            and (row.source.startswith(prefix) or row.source == str(target))
        ]
        report.removed.extend(indexer.delete(tenant, gone))
        store.forget_files(tenant, [s for s in known_files if s not in seen_sources
                                    and (s.startswith(prefix) or s == str(target))])
    if progress is not None:
        progress(len(files), len(files), "")
    report.seconds = time.perf_counter() - started
    report.cpu = {"parse": parse_cpu, **{stage: indexer.cpu[stage] - cpu_before.get(stage, 0.0)
                                          for stage in ("chunk", "keyword text", "encode", "write")}}
    return report
