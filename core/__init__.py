"""lastline: the tier an LLM agent calls when every model provider is down.

This package (``core/`` in the source tree) holds the few pieces every tier shares: settings,
the one embedder, storage, the answer envelope, text normalization and the error hierarchy.
"""

from .backends import open_storage
from .embedding import Embedder, get_embedder, normalize_rows
from .envelope import DEPTH, Answer, Citation, Confidence, Source, notice_for
from .errors import (
    ConfigError,
    Conflict,
    InvalidInput,
    LastlineError,
    ModelUnavailable,
    NoDegradedWrites,
    NoFallbackAnswer,
    NotFound,
    Overloaded,
    PayloadTooLarge,
    StorageError,
    Unauthorized,
)
from .postgres import PostgresStorage
from .settings import Settings, load_settings
from .storage import Migration, SQLiteStorage, Storage
from .text import is_cjk_dominant, language_of, normalize_text, text_hash

__version__ = "0.1.0"

__all__ = [
    "DEPTH",
    "Answer",
    "Citation",
    "Confidence",
    "ConfigError",
    "Conflict",
    "Embedder",
    "InvalidInput",
    "LastlineError",
    "Migration",
    "ModelUnavailable",
    "NoDegradedWrites",
    "NoFallbackAnswer",
    "NotFound",
    "Overloaded",
    "PayloadTooLarge",
    "PostgresStorage",
    "SQLiteStorage",
    "Settings",
    "Source",
    "Storage",
    "StorageError",
    "Unauthorized",
    "__version__",
    "get_embedder",
    "is_cjk_dominant",
    "language_of",
    "load_settings",
    "normalize_rows",
    "normalize_text",
    "notice_for",
    "open_storage",
    "text_hash",
]
