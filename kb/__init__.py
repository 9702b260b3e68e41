"""lastline.kb — the offline knowledge base: ingest documents, search them, answer with citations.

The level-3 rung of the fallback ladder: when no model answers, an agent still gets the matching
FAQ answer or the relevant document passages, with where they came from.
"""

from ._chunking import Chunk, chunk_document
from ._filters import Filters, parse_filters
from ._fusion import Rankings
from ._ingest import IngestReport
from ._kb import DEFAULT_SEGMENTER, KBConfig, KnowledgeBase, Mode
from ._parsed import ParsedDocument, ParseError, Section
from ._parsers import PARSERS, parse_file
from ._results import SearchResult
from ._segment import SEGMENTERS, match_expression

__all__ = [
    "DEFAULT_SEGMENTER",
    "PARSERS",
    "SEGMENTERS",
    "Chunk",
    "Filters",
    "IngestReport",
    "KBConfig",
    "KnowledgeBase",
    "Mode",
    "ParseError",
    "ParsedDocument",
    "Rankings",
    "SearchResult",
    "Section",
    "chunk_document",
    "match_expression",
    "parse_file",
    "parse_filters",
]
