"""lastline.cache: a semantic cache that does not serve wrong answers.

Layers cheapest first (exact hash → rapidfuzz near-exact → FAISS kNN with a per-tenant
threshold), a slot guard on values, and an age check. SQLite is the truth; FAISS is derived.
"""

from ._cache import SemanticCache
from ._config import (
    DEFAULT_FUZZY_MIN_RATIO,
    DEFAULT_HNSW_THRESHOLD,
    DEFAULT_KNN_K,
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_ENTRIES,
    DEFAULT_TTL_S,
    CacheConfig,
    Language,
    LookupResult,
    Mode,
    Threshold,
)
from ._pg_schema import COPIED_TABLES
from ._rows import context_hash
from ._sync import SyncReport
from .slot_guard import SlotGuard, extract_slots, slot_guard_ok
from .thresholds import SHIPPED_THRESHOLDS, default_threshold

__all__ = [
    "COPIED_TABLES",
    "DEFAULT_FUZZY_MIN_RATIO",
    "DEFAULT_HNSW_THRESHOLD",
    "DEFAULT_KNN_K",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_ENTRIES",
    "DEFAULT_TTL_S",
    "SHIPPED_THRESHOLDS",
    "CacheConfig",
    "Language",
    "LookupResult",
    "Mode",
    "SemanticCache",
    "SlotGuard",
    "SyncReport",
    "Threshold",
    "context_hash",
    "default_threshold",
    "extract_slots",
    "slot_guard_ok",
]
