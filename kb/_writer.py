"""The write path of ingestion: chunk, embed into the inline vector spaces, write in one transaction.

Embedding is the slow part and runs before the transaction, so the write lock is held only for
the inserts. Each vector space embeds the chunks it holds (the English space only English ones).
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

from lastline.embedding import Embedder, encode_distinct
from lastline.encoder_pool import EncoderPool, PendingRows
from lastline.errors import InvalidInput
from lastline.text import language_of

from ._chunking import chunk_document
from ._config import KBConfig
from ._index_text import embedding_text, fts_text
from ._parsed import ParsedDocument
from ._spaces import VectorSpace
from ._store import DocumentStore, DocumentWrite, VectorIndex

__all__ = ["POOL_MIN_TEXTS", "Indexer", "WritePipeline", "encode_sorted"]

#: Smallest batch a worker pool encodes: below it, starting processes costs more than it saves.
POOL_MIN_TEXTS = 64


def encode_sorted(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    """Rows aligned with ``texts``, encoded shortest first: a batch of similar lengths pads little."""
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    encoded = encode_distinct(embedder, [texts[i] for i in order])
    out = np.empty_like(encoded)
    out[order] = encoded
    return out


class Indexer:
    """Writes and deletes documents through ``store``, embedding each chunk into ``spaces``.

    ``spaces`` are the vector spaces filled at write time; a space left out here is filled later
    from the chunks it lacks (:mod:`lastline.kb._filler`). Each write's texts are encoded sorted by
    length (:func:`encode_sorted`), so each model call pads little.
    """

    def __init__(
        self, store: DocumentStore, config: KBConfig, spaces: Sequence[tuple[VectorIndex, Embedder]],
        after_write: Callable[[Sequence[str]], None] | None = None,
    ) -> None:
        self.store = store
        self.config = config
        self.spaces = list(spaces)
        self.after_write = after_write  # called with the written chunks' languages (background spaces)
        #: Worker processes per write-time space for batches of ``POOL_MIN_TEXTS`` or more (1: none);
        #: :meth:`close_pools` ends them. Set by a bulk ingest, see ``KnowledgeBase.ingest(workers=)``.
        self.workers = 1
        self.pools: dict[str, EncoderPool] = {}
        #: Texts the worker pools encoded (the rest were encoded in this process).
        self.pooled_texts = 0
        #: CPU seconds spent per stage ("chunk", "keyword text", "encode", "write"), encoder worker
        #: processes included: what an ingest costs whatever the machine's load (bench/kb_ingest.py).
        self.cpu: defaultdict[str, float] = defaultdict(float)

    def plan(
        self, doc_id: str, document: ParsedDocument, digest: str, source: str | None
    ) -> tuple[DocumentWrite, list[str]]:
        """Chunk one document: the write for the store and each chunk's embedded text."""
        config = self.config
        started = time.thread_time()
        chunks = chunk_document(document, config.max_chars, config.overlap)
        texts = [embedding_text(document.kind, document.title, c.heading, c.text, document.question) for c in chunks]
        chunked = time.thread_time()
        write = DocumentWrite(
            doc_id=doc_id, document=document, content_hash=digest, source=source, chunks=chunks,
            keyword_texts=[fts_text(document.kind, document.title, c.heading, c.text, config.segmenter)
                           for c in chunks],
            languages=[language_of(t) for t in texts],
        )
        self.cpu["chunk"] += chunked - started
        self.cpu["keyword text"] += time.thread_time() - chunked
        return write, texts

    def write(
        self, tenant: str, collection: str, items: Sequence[tuple[str, ParsedDocument, str, str | None]]
    ) -> int:
        """Chunk and embed ``items`` (doc_id, document, hash, source), then write them in one transaction."""
        return self.finish(self.start(tenant, collection, items))

    @contextmanager
    def pipeline(self) -> Iterator[WritePipeline]:
        """Writes of a bulk job, each returning before its batch is written (:class:`WritePipeline`).

        If the block raises, the batch still encoding is dropped, never half written; otherwise
        whatever is left is written when it ends (call :meth:`WritePipeline.drain` to count it).
        """
        pipe = WritePipeline(self)
        yield pipe
        pipe.drain()

    def start(
        self, tenant: str, collection: str, items: Sequence[tuple[str, ParsedDocument, str, str | None]],
        *, last: bool = False,
    ) -> _Batch:
        """Chunk ``items`` and start embedding them: in the pool when it is up, else here and now.

        ``last``: no batch follows, so no pool is started for it (it could not be used in time).
        """
        if not tenant or not collection:
            raise InvalidInput("tenant and collection must not be empty")
        writes: list[DocumentWrite] = []
        texts: list[str] = []
        for doc_id, document, digest, source in items:
            write, chunk_texts = self.plan(doc_id, document, digest, source)
            writes.append(write)
            texts.extend(chunk_texts)
        batch = _Batch(tenant, collection, writes, [lang for w in writes for lang in w.languages])
        for index, embedder in self.spaces:
            positions = [i for i, lang in enumerate(batch.languages) if index.space.holds_language(lang)]
            chars = self.config.reads(index.space)
            held = [texts[i][:chars] for i in positions]
            pool = self._pool(index.space.name, embedder, start=not last) if len(held) >= POOL_MIN_TEXTS else None
            if pool is not None and pool.ready:
                batch.vectors[index.space] = (positions, pool.submit(held))
                self.pooled_texts += len(held)
            else:  # no pool, or its workers are still loading their models: encode in this process
                started = time.thread_time()
                batch.vectors[index.space] = (positions, encode_sorted(embedder, held))
                self.cpu["encode"] += time.thread_time() - started
        return batch

    def finish(self, batch: _Batch) -> int:
        """Wait for the batch's vectors and write it in one transaction; returns the chunks written."""
        vectors: dict[VectorSpace, tuple[list[int], np.ndarray]] = {}
        for space, (positions, rows) in batch.vectors.items():
            if isinstance(rows, PendingRows):
                vectors[space] = (positions, rows.result())
                self.cpu["encode"] += rows.cpu_seconds
            else:
                vectors[space] = (positions, rows)
        started = time.thread_time()
        written = len(self.store.write(batch.tenant, batch.collection, batch.writes, vectors))
        self.cpu["write"] += time.thread_time() - started
        if self.after_write is not None and batch.languages:
            self.after_write(batch.languages)
        return written

    def _pool(self, name: str, embedder: Embedder, *, start: bool = True) -> EncoderPool | None:
        """The space's worker pool, started on first use (a small ingest never pays for the processes).

        It starts without waiting: batches are encoded here until its workers have loaded the model.
        """
        if self.workers <= 1:
            return None
        if name not in self.pools and start:
            self.pools[name] = EncoderPool(embedder.name, self.workers, model_id=embedder.model_id, wait=False)
        return self.pools.get(name)

    def close_pools(self) -> None:
        """End the worker processes and go back to encoding in this process."""
        pools, self.pools, self.workers = self.pools, {}, 1
        for pool in pools.values():
            pool.close(wait=pool.ready)  # workers still loading exit when they are done: nothing to wait for

    def delete(self, tenant: str, doc_ids: Iterable[str]) -> list[str]:
        return self.store.delete(tenant, doc_ids)


@dataclass
class _Batch:
    """Documents chunked and handed to the encoders, waiting for their vectors to be written."""

    tenant: str
    collection: str
    writes: list[DocumentWrite]
    languages: list[str]
    vectors: dict[VectorSpace, tuple[list[int], np.ndarray | PendingRows]] = field(default_factory=dict)


class WritePipeline:
    """``write`` that returns while its batch encodes, having written the batch before it.

    Why: with worker processes encoding, the batch before is written (and the next one chunked)
    while the workers encode this one, so neither side waits for the other. One batch at most is
    in flight, and each is still one transaction of whole documents.
    """

    def __init__(self, indexer: Indexer) -> None:
        self.indexer = indexer
        self._in_flight: _Batch | None = None

    def write(self, tenant: str, collection: str, items: Sequence[tuple[str, ParsedDocument, str, str | None]],
              *, last: bool = False) -> int:
        """Start ``items``; returns the chunks written meanwhile (those of the batch before).

        ``last`` says no batch follows (see :meth:`Indexer.start`).
        """
        batch = self.indexer.start(tenant, collection, items, last=last)
        written = self.drain()
        self._in_flight = batch
        return written

    def drain(self) -> int:
        """Write the batch in flight, if any; returns its chunks."""
        batch, self._in_flight = self._in_flight, None
        return self.indexer.finish(batch) if batch is not None else 0
