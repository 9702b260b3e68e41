"""The public names of lastline.kb are pinned: adding one is a deliberate edit here."""

from __future__ import annotations

import lastline.kb


def test_kb_public_names() -> None:
    assert lastline.kb.__all__ == [
        "COPIED_TABLES", "DEFAULT_K", "DEFAULT_SEGMENTER", "MAX_K", "MAX_QUERY_CHARS", "PARSERS", "SEGMENTERS", "Chunk",
        "DocumentStore", "Filters", "IngestReport",
        "KBConfig", "KBStore", "KeywordIndex", "KnowledgeBase", "Mode", "ParseError", "ParsedDocument",
        "PostgresKBStore", "Rankings", "SQLiteKBStore", "SearchResult", "Section", "VectorIndex", "chunk_document",
        "match_expression", "parse_bytes", "parse_file", "parse_filters",
    ]
    for name in lastline.kb.__all__:
        assert getattr(lastline.kb, name) is not None
