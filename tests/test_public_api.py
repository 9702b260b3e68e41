"""The public names of each package are pinned: adding or removing one is a deliberate change."""

from __future__ import annotations

import importlib

import lastline


def test_core_public_names() -> None:
    assert sorted(lastline.__all__) == sorted(
        [
            "DEPTH", "Answer", "Citation", "ConfigError", "Confidence", "Conflict", "Embedder",
            "InvalidInput", "LastlineError", "Migration", "ModelUnavailable", "NoDegradedWrites",
            "NoFallbackAnswer", "NotFound", "Overloaded", "PayloadTooLarge", "PostgresStorage", "SQLiteStorage",
            "Settings", "Source", "Storage", "StorageError", "Unauthorized", "__version__", "get_embedder",
            "is_cjk_dominant", "language_of", "load_settings", "normalize_rows", "normalize_text", "notice_for",
            "open_storage", "text_hash",
        ]
    )


def test_every_exported_name_exists() -> None:
    for package in ("lastline", "lastline.cache", "lastline.kb", "lastline.rules", "lastline.api"):
        module = importlib.import_module(package)
        for name in getattr(module, "__all__", []):
            assert hasattr(module, name), f"{package}.{name} is exported but missing"


def test_every_error_maps_to_an_http_status_and_code() -> None:
    errors = [getattr(lastline, n) for n in lastline.__all__ if n.endswith(("Error", "Input", "Unavailable"))]
    errors += [lastline.NotFound, lastline.NoFallbackAnswer, lastline.Conflict, lastline.NoDegradedWrites,
               lastline.Overloaded]
    for cls in errors:
        assert issubclass(cls, lastline.LastlineError)
        assert 400 <= cls.status < 600
        body = cls("why", idempotency_key="k").to_dict()
        assert body["error"] == cls.code
        assert body["detail"] == "why"
        assert body["idempotency_key"] == "k"


def test_packages_install_under_one_namespace() -> None:
    """The tiers are lastline.* only: no bare top-level `api` or `cache` packages installed."""
    for bare in ("api", "cache", "kb", "rules", "core"):
        spec = importlib.util.find_spec(bare)
        assert spec is None or "site-packages" not in str(spec.origin or "")
