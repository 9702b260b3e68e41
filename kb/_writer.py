"""The write path of ingestion: chunk, embed into every vector space, write in one transaction.

Embedding is the slow part and runs before the transaction, so the write lock is held only for
the inserts. Each vector space embeds the chunks it holds (the English space only English ones).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lastline.embedding import encode_distinct
from lastline.errors import InvalidInput

from ._chunking import chunk_document
from ._parsed import ParsedDocument
from ._store import embedding_text, write_document
from ._vectors import insert_vectors

if TYPE_CHECKING:
    from ._kb import KnowledgeBase

__all__ = ["write_batch"]


def write_batch(
    kb: KnowledgeBase, tenant: str, collection: str, source: str | None,
    items: list[tuple[str, ParsedDocument, str]],
) -> int:
    """Chunk and embed ``items`` (doc_id, document, hash), then write them in one transaction."""
    if not tenant or not collection:
        raise InvalidInput("tenant and collection must not be empty")
    config = kb.config
    planned = []
    texts: list[str] = []
    for doc_id, document, digest in items:
        chunks = chunk_document(document, config.max_chars, config.overlap)
        planned.append((doc_id, document, digest, chunks))
        texts.extend(
            embedding_text(document.kind, document.title, c.heading, c.text, document.question) for c in chunks
        )
    encoded = []
    for space, embedder in kb.spaces:
        positions = [i for i, text in enumerate(texts) if space.holds(text)]
        encoded.append((space, positions, encode_distinct(embedder, [texts[i] for i in positions])))
    tables = [space.table for space, _ in kb.spaces]
    rowids: list[int] = []
    with kb.storage.atomic() as conn:
        for doc_id, document, digest, chunks in planned:
            rowids += write_document(
                conn, tenant=tenant, collection=collection, doc_id=doc_id, document=document, source=source,
                content_hash=digest, chunks=chunks, segmenter=config.segmenter, vector_tables=tables,
            )
        for space, positions, vectors in encoded:
            insert_vectors(conn, space, [(rowids[i], tenant, collection) for i in positions], vectors)
    return len(rowids)

