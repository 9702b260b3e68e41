"""lastline.kb — the offline knowledge base: ingest documents, search them, answer with citations.

The level-3 rung of the fallback ladder: when no model answers, an agent still gets the matching
FAQ answer or the relevant document passages, with where they came from.
"""

from ._chunking import Chunk, chunk_document
from ._config import DEFAULT_K, DEFAULT_SEGMENTER, MAX_K, MAX_QUERY_CHARS, KBConfig, Mode
from ._filters import Filters, parse_filters
from ._fusion import Rankings
from ._ingest import IngestReport
from ._kb import KnowledgeBase
from ._parsed import ParsedDocument, ParseError, Section
from ._parsers import PARSERS, parse_bytes, parse_file
from ._pg_schema import COPIED_TABLES
from ._pg_store import PostgresKBStore
from ._results import SearchResult
from ._segment import SEGMENTERS, match_expression
from ._sqlite_store import SQLiteKBStore
from ._store import DocumentStore, KBStore, KeywordIndex, VectorIndex

__all__ = [
    "COPIED_TABLES",
    "DEFAULT_K",
    "DEFAULT_SEGMENTER",
    "MAX_K",
    "MAX_QUERY_CHARS",
    "PARSERS",
    "SEGMENTERS",
    "Chunk",
    "DocumentStore",
    "Filters",
    "IngestReport",
    "KBConfig",
    "KBStore",
    "KeywordIndex",
    "KnowledgeBase",
    "Mode",
    "ParseError",
    "ParsedDocument",
    "PostgresKBStore",
    "Rankings",
    "SQLiteKBStore",
    "SearchResult",
    "Section",
    "VectorIndex",
    "chunk_document",
    "match_expression",
    "parse_bytes",
    "parse_file",
    "parse_filters",
]
