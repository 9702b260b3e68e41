"""The wired-up process: settings, storage and the embedder, opened once for CLI and HTTP alike.

Tiers attach here as they are built, so both faces of the API get the same objects.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lastline import Embedder, Settings, SQLiteStorage, get_embedder, load_settings, open_storage

__all__ = ["Runtime"]


@dataclass
class Runtime:
    settings: Settings
    storage: SQLiteStorage
    embedder: Embedder
    extras: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def open(cls, settings: Settings | None = None, **overrides: Any) -> Runtime:
        """Read settings (failing by name), open storage and name the embedder (loaded lazily)."""
        settings = settings or load_settings(**overrides)
        storage = open_storage(settings.db)
        embedder = get_embedder(settings.embedder, settings.embed_threads)
        return cls(settings=settings, storage=storage, embedder=embedder)

    def close(self) -> None:
        self.storage.close()
