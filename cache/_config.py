"""Value classes of the cache API: its configuration, a threshold, a lookup's result.

Settings are plain frozen dataclasses with ``DEFAULT_*`` constants so the Python API, the HTTP
face and the CLI agree on one set of defaults, and a test can build a small cache (tiny HNSW
switch-over, tiny LRU caps) without touching the environment.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Annotated, Any, Literal, get_args

from pydantic import ConfigDict, Field, with_config

from lastline import Confidence, InvalidInput, settings

__all__ = [
    "DEFAULT_FUZZY_MIN_RATIO",
    "DEFAULT_FUZZY_SCAN_LIMIT",
    "DEFAULT_HNSW_THRESHOLD",
    "DEFAULT_KNN_K",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_ENTRIES",
    "DEFAULT_MAX_PROMPT_CHARS",
    "DEFAULT_MAX_RESPONSE_CHARS",
    "DEFAULT_TTL_S",
    "DEFAULT_VALUE_CANDIDATES",
    "LANGUAGES",
    "VECTOR_INDEXES",
    "CacheConfig",
    "Language",
    "Layer",
    "LookupResult",
    "Mode",
    "Threshold",
    "VectorIndexKind",
]

Mode = Literal["intercept", "fallback"]
#: Threshold languages: English-like text, CJK-dominant text (``lastline.language_of``), and any.
Language = Literal["en", "zh", "*"]
LANGUAGES: tuple[Language, ...] = get_args(Language)
Layer = Literal["exact", "fuzzy", "semantic"]
VectorIndexKind = Literal["faiss", "store"]
#: The values of ``CacheConfig.vector_index``.
VECTOR_INDEXES = ("faiss", "store")

#: Default lifetime of an entry: a week. ``None`` in the config means "never expires".
DEFAULT_TTL_S: float | None = 7 * 24 * 3600.0
#: Per-tenant caps; the least recently used entries go first when either is exceeded.
DEFAULT_MAX_ENTRIES = 1_000_000
DEFAULT_MAX_BYTES = 2_000_000_000
#: A partition's FAISS index switches from exact flat search to HNSW past this many vectors. A flat
#: search reads every vector; past about ten thousand, the graph costs less even though a lookup
#: after an approximate search always extracts its values (``bench/crowded_scan.py --other hnsw``:
#: CPU per QQP lookup −2 % at 5,906 entries, −10 % at 10,000, −15 to −19 % at 15,000; no decision of
#: 2,000 lookups changed at any of them).
DEFAULT_HNSW_THRESHOLD = 10_000
#: Neighbours fetched per semantic lookup: the guard may reject the first ones.
DEFAULT_KNN_K = 8
#: Entries sharing the query's values (amounts, IDs, dates…) looked at besides the kNN neighbours
#: (``cache/_values.py``); 0 turns value-aware candidates off.
DEFAULT_VALUE_CANDIDATES = 16
#: rapidfuzz ``ratio`` (0–100) pre-filter of the near-exact layer; a fuzzy hit must also differ
#: from the cached prompt by in-word typos only (see ``cache/_fuzzy.py`` for why and the numbers).
DEFAULT_FUZZY_MIN_RATIO = 90.0
#: The most prompts one rapidfuzz scan reads before any embedding: those of the partition whose
#: length could reach ``fuzzy_min_ratio`` (FAISS index), or the whole partition (kNN in the
#: database, capped lower: ``_neighbours.STORE_FUZZY_SCAN_LIMIT``). A lookup with more takes
#: its fuzzy candidates from its kNN neighbours instead, and then extracts its values and reads
#: its neighbours' rows every time: at 6,000–7,000 QQP entries 0.3–0.7 ms CPU more per lookup
#: than a window scan, whose median reads 2,317 prompts there (``bench/crowded_scan.py``). A
#: lookup never scans a million strings.
DEFAULT_FUZZY_SCAN_LIMIT = 8_000
DEFAULT_MAX_PROMPT_CHARS = settings.DEFAULT_MAX_PROMPT_CHARS  # the service-wide text limit, defined once
DEFAULT_MAX_RESPONSE_CHARS = 1_000_000


@dataclass(frozen=True)
class CacheConfig:
    """How one :class:`SemanticCache` behaves; every field has a zero-configuration default."""

    default_ttl_s: float | None = DEFAULT_TTL_S
    max_entries: int = DEFAULT_MAX_ENTRIES
    max_bytes: int = DEFAULT_MAX_BYTES
    hnsw_threshold: int = DEFAULT_HNSW_THRESHOLD
    hnsw_m: int = 32
    hnsw_ef_search: int = 64
    hnsw_ef_construction: int = 80
    knn_k: int = DEFAULT_KNN_K
    value_candidates: int = DEFAULT_VALUE_CANDIDATES
    fuzzy_min_ratio: float = DEFAULT_FUZZY_MIN_RATIO
    fuzzy_scan_limit: int = DEFAULT_FUZZY_SCAN_LIMIT
    #: Seconds a threshold read from SQLite is reused (another process may calibrate meanwhile).
    threshold_cache_s: float = 2.0
    #: On a database shared by replicas (PostgreSQL), the longest this process lags another
    #: replica's commits: the vector index polls the change counters at most this often (0: on
    #: every lookup) and stored thresholds are re-read at least this often. SQLite detects other
    #: connections' commits on every lookup (``PRAGMA data_version``) and ignores it.
    replica_sync_s: float = 1.0
    #: Where semantic lookups find neighbours: ``"faiss"``, the in-process index derived from the
    #: database (an accelerator, kept in step by ``_sync.py``), or ``"store"``, kNN in the database
    #: itself (pgvector; PostgreSQL only), so nothing depends on per-process state.
    vector_index: VectorIndexKind = "faiss"
    #: Entries are deleted this long after they expired (a fallback lookup serves expired entries as
    #: stale until then), in bounded batches with the retention pruning; None keeps them until LRU
    #: eviction or invalidation removes them.
    expired_retention_s: float | None = None
    max_prompt_chars: int = DEFAULT_MAX_PROMPT_CHARS
    max_response_chars: int = DEFAULT_MAX_RESPONSE_CHARS
    slot_guard: bool = True
    #: Record every lookup (id → entry, layer, similarity) so feedback can name a lookup id.
    record_lookups: bool = True
    #: Lookup records older than this are pruned (feedback must arrive within it).
    lookup_retention_s: float = 7 * 24 * 3600.0
    #: Hit/miss counter buckets older than this are pruned (``stats`` without a window counts the rest).
    counter_retention_s: float = 90 * 24 * 3600.0
    #: Deletion-log rows (how other processes learn of deletions) older than this are pruned; a
    #: process that has not looked anything up for that long rebuilds its index at its next lookup.
    sync_log_retention_s: float = 7 * 24 * 3600.0
    #: Width of one hit/miss counter bucket used by ``stats(window_s=…)``.
    stats_bucket_s: int = 60
    #: Thresholds used when a tenant has none stored, by model id (overrides the shipped table).
    default_thresholds: dict[str, tuple[float, float]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.default_ttl_s is not None and self.default_ttl_s <= 0:
            raise ValueError("default_ttl_s must be positive or None")
        for name in ("max_entries", "max_bytes", "hnsw_threshold", "knn_k", "max_prompt_chars"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")
        if self.value_candidates < 0:
            raise ValueError("value_candidates must be 0 or more")
        if not 0 <= self.fuzzy_min_ratio <= 100:
            raise ValueError("fuzzy_min_ratio must be within [0, 100]")
        if self.vector_index not in VECTOR_INDEXES:
            raise ValueError(f"vector_index must be one of {', '.join(VECTOR_INDEXES)}")
        if self.replica_sync_s < 0:
            raise ValueError("replica_sync_s must be 0 or more")
        if self.expired_retention_s is not None and self.expired_retention_s < 0:
            raise ValueError("expired_retention_s must be 0 or more, or None")


@dataclass(frozen=True)
class Threshold:
    """A cosine threshold for one tenant, model and mode, with the evidence behind it.

    ``calibrated`` is False for the shipped default; a calibrated value records the target
    false-hit rate, the upper confidence bound it reached and how many judged lookups (or labelled
    non-duplicates) that bound rests on. ``language`` is ``"en"``, ``"zh"`` or ``"*"`` (any): a
    lookup uses its prompt's language's threshold, else the one for any language.

    A threshold calibrated on served decisions (``source`` ``pairs…``) also records the partition
    size it was measured at: a lookup is answered by the best of all entries, so the more a
    partition holds the likelier some unrelated entry clears a threshold. The growth rule is to
    re-calibrate once the tenant holds more than ``recalibrate_above`` entries (twice the measured
    size); ``stats()`` says when that is due.
    """

    value: float
    calibrated: bool = False
    target: float | None = None
    bound: float | None = None
    n_negatives: int | None = None
    model_id: str | None = None
    mode: Mode = "intercept"
    source: str = "default"
    language: str = "*"
    partition_size: int | None = None
    recalibrate_above: int | None = None

    def __post_init__(self) -> None:
        value = self.value
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= value <= 1.0:
            raise InvalidInput(f"threshold value {value!r} is outside [0, 1]", field="threshold")
        if self.mode not in ("intercept", "fallback"):
            raise InvalidInput(f"unknown mode {self.mode!r}", field="mode")
        if self.language not in LANGUAGES:
            raise InvalidInput(f"unknown language {self.language!r}; one of {', '.join(LANGUAGES)}", field="language")

    def to_dict(self) -> dict[str, Any]:
        return {
            "value": self.value, "calibrated": self.calibrated, "target": self.target,
            "bound": self.bound, "n_negatives": self.n_negatives, "model_id": self.model_id,
            "mode": self.mode, "source": self.source, "language": self.language,
            "partition_size": self.partition_size, "recalibrate_above": self.recalibrate_above,
        }


# Every field is in every answer: the HTTP schema marks them all required.
@with_config(ConfigDict(json_schema_serialization_defaults_required=True))
@dataclass(frozen=True)
class LookupResult:
    """What one lookup found, and why not when it found nothing.

    ``similarity`` is the served entry's score (cosine for ``semantic``, rapidfuzz ratio / 100
    for ``fuzzy``, 1.0 for ``exact``); ``best_similarity`` is the nearest candidate's cosine even
    on a miss, so replays can sweep thresholds without a second lookup.

    This class is the one definition of the lookup's shape: ``POST /v1/cache/lookup`` answers with
    it (pydantic reads the field annotations) and the Python client parses into it. ``metadata``
    stays in-process (the ladder reads it); it is not part of the HTTP answer.
    """

    hit: bool
    answer: str | None = None
    entry_id: str | None = None
    layer: Layer | None = None
    similarity: float | None = None
    confidence: Confidence | None = None
    stale: bool = False
    age_s: float | None = None
    lookup_id: Annotated[str | None, Field(description="Send it back with POST /v1/cache/feedback.")] = None
    reason: Annotated[
        str | None, Field(description="Why a miss: empty, below_threshold, slot_mismatch, expired.")
    ] = None
    best_similarity: float | None = None
    threshold: float | None = None
    mode: Mode = "intercept"
    metadata: Annotated[dict[str, Any] | None, Field(exclude=True)] = None

    def to_dict(self) -> dict[str, Any]:
        """The HTTP answer's fields (everything but ``metadata``), for the CLI's ``--json``."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "metadata"}
