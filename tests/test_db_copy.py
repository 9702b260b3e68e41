"""``lastline db copy``: a SQLite file's every tier moved into PostgreSQL, readable through a Runtime there."""

from __future__ import annotations

import json
import time
from pathlib import Path

import psycopg
import pytest
from typer.testing import CliRunner

from lastline import Embedder, load_settings
from lastline.api import Runtime
from lastline.api.cli.main import app
from lastline.api.ladder.database_copy import TIER_TABLES
from lastline.api.ladder.defaults import DeclaredDefault
from lastline.api.ladder.events_store import NewEvent
from lastline.cache import Threshold
from lastline.cache._pg_schema import hnsw_index_name
from lastline.kb._spaces import PRIMARY

PACK = "name: shop\nrules:\n  - id: total\n    patterns: ['合计\\s*(?P<value>[^\\n]+)']\n    normalizer: money\n"


def _fill(path: Path, *, cache_and_kb: bool) -> None:
    """A SQLite file holding rule packs, defaults and events (and cache entries, KB documents), two tenants."""
    rt = Runtime.open(load_settings(db=path, kb_english_embedder="none"))
    try:
        rt.rules.add_pack(PACK, tenant="acme")
        rt.defaults.put(tenant="acme", task="order_status", default=DeclaredDefault(answer="Orders are offline."))
        rt.defaults.put(tenant="globex", task="refund", default=DeclaredDefault(side_effects=True))
        now = time.time()
        rt.events.record_many([NewEvent(tenant=t, route="default", tier="kb", path="kb:hit", prompt_hash=f"h{i}",
                                        duration_ms=2.0, source="kb", confidence="medium", ts=now - i)
                               for i, t in enumerate(["acme", "acme", "globex"])])
        if not cache_and_kb:
            return
        rt.cache.put("How do I reset my password?", "Use the link.", tenant="acme")
        assert rt.cache.lookup("How do I reset my password?", tenant="acme").hit  # a hit count to carry over
        rt.cache.set_threshold(tenant="acme", threshold=Threshold(value=0.77, calibrated=True, source="pairs:test",
                                                                  model_id=rt.cache.model_id))
        rt.kb.add_document(tenant="globex", title="Travel", text="Hotel rooms are reimbursed up to 150 euros.",
                           doc_id="travel")
    finally:
        rt.close()


def _copy(source: Path, app_url: str, owner_url: str) -> dict[str, int]:
    result = CliRunner().invoke(app, ["db", "copy", "--from", f"sqlite:{source}", "--to", app_url,
                                      "--owner-url", owner_url, "--json"])
    assert result.exit_code == 0, f"{result.output}\n{result.exception!r}"
    return dict(json.loads(result.output))


def test_packs_defaults_and_events_are_readable_through_a_runtime_on_postgresql(
        tmp_path: Path, pg_urls: tuple[str, str]) -> None:
    app_url, owner_url = pg_urls
    source = tmp_path / "old.db"
    _fill(source, cache_and_kb=False)
    copied = _copy(source, app_url, owner_url)
    assert (copied["rule_packs"], copied["api_defaults"], copied["api_events"]) == (1, 2, 3)

    rt = Runtime.open(load_settings(database_url=app_url, database_owner_url=owner_url, kb_english_embedder="none"))
    try:
        assert [p.name for p in rt.rules.packs(tenant="acme") if p.name == "shop"] == ["shop"]
        assert not [p for p in rt.rules.packs(tenant="globex") if p.name == "shop"]
        assert rt.defaults.get(tenant="acme", task="order_status") == DeclaredDefault(answer="Orders are offline.")
        assert rt.defaults.has_side_effects(tenant="globex", task="refund")
        assert rt.events.count(tenant="acme") == 2 and rt.events.count(tenant="globex") == 1
        assert [e.prompt_hash for e in rt.events.list(tenant="acme")] == ["h0", "h1"]
        rt.events.record_many([NewEvent(tenant="acme", route="default", tier="none", path="", prompt_hash="new",
                                        duration_ms=1.0)])  # ids continue after the copied ones
        assert rt.events.list(tenant="acme", limit=1)[0].id > max(e.id for e in rt.events.list(tenant="acme")[1:])
    finally:
        rt.close()


def test_cache_entries_thresholds_and_kb_documents_are_readable_on_postgresql(
        tmp_path: Path, pg_urls: tuple[str, str]) -> None:
    app_url, owner_url = pg_urls
    source = tmp_path / "old.db"
    _fill(source, cache_and_kb=True)
    copied = _copy(source, app_url, owner_url)
    assert (copied["cache_entries"], copied["cache_thresholds"], copied["kb_documents"]) == (1, 1, 1), copied
    rt = Runtime.open(load_settings(database_url=app_url, database_owner_url=owner_url, kb_english_embedder="none"))
    try:
        hit = rt.cache.lookup("how do I reset my password", tenant="acme")
        assert hit.hit and hit.answer == "Use the link."
        assert rt.cache.get(str(hit.entry_id), tenant="acme")["hit_count"] == 2  # the copied hit and this one
        assert rt.cache.get_threshold(tenant="acme").value == pytest.approx(0.77)
        assert rt.cache.get_threshold(tenant="globex").value != pytest.approx(0.77)
        rt.cache.put("Which port does the API use?", "8765", tenant="acme")  # seqs continue past the copied
        assert rt.cache.count(tenant="acme") == 2 and rt.cache.count(tenant="globex") == 0
        assert rt.kb.get_document("travel", tenant="globex") is not None
        assert rt.kb.search("hotel reimbursement", tenant="globex", k=1)[0].doc_id == "travel"
        assert rt.kb.store.vector_index(PRIMARY).ensure_search_index() is False  # the copy built it
    finally:
        rt.close()


@pytest.mark.parametrize("vector_index", ["store", "faiss"])
def test_the_copy_builds_the_cache_hnsw_index_when_replicas_search_pgvector(
        tmp_path: Path, pg_urls: tuple[str, str], monkeypatch: pytest.MonkeyPatch, embedder: Embedder,
        vector_index: str) -> None:
    app_url, owner_url = pg_urls
    source = tmp_path / "old.db"
    _fill(source, cache_and_kb=True)
    monkeypatch.setenv("LASTLINE_CACHE_VECTOR_INDEX", vector_index)
    _copy(source, app_url, owner_url)
    with psycopg.connect(owner_url) as conn:
        built = conn.execute("SELECT 1 FROM pg_indexes WHERE indexname = %s",
                             (hnsw_index_name(embedder.model_id, embedder.dim),)).fetchall()
    assert bool(built) == (vector_index == "store")  # FAISS replicas would only pay for it on every insert


def test_a_target_that_holds_data_is_refused_by_name(tmp_path: Path, pg_urls: tuple[str, str]) -> None:
    app_url, owner_url = pg_urls
    source = tmp_path / "old.db"
    rt = Runtime.open(load_settings(db=source))
    rt.defaults.put(tenant="acme", task="t", default=DeclaredDefault(answer="a"))
    rt.close()
    runner = CliRunner()
    args = ["db", "copy", "--from", f"sqlite:{source}", "--to", app_url, "--owner-url", owner_url]
    assert runner.invoke(app, args).exit_code == 0
    again = runner.invoke(app, args)
    assert again.exit_code != 0
    assert "already holds data (api_defaults: 1 rows)" in str(again.exception)


@pytest.mark.parametrize(("args", "message"), [
    (["--from", "old.db", "--to", "postgresql://x@127.0.0.1/y"], "--from: expected sqlite:PATH"),
    (["--from", "sqlite:old.db", "--to", "sqlite:new.db"], "--to: expected a postgresql://"),
    (["--from", "sqlite:missing.db", "--to", "postgresql://x@127.0.0.1/y"], "--from: no SQLite file at"),
])
def test_bad_arguments_name_the_option(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str],
                                       message: str) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["db", "copy", *args])
    assert result.exit_code != 0 and message in str(result.exception)


def test_every_table_the_postgresql_stores_create_is_copied_or_rebuilt_by_its_tier(
        tmp_path: Path, pg_urls: tuple[str, str]) -> None:
    """A tier that adds a table must say how ``db copy`` fills it, or the copy silently leaves it empty."""
    app_url, owner_url = pg_urls
    source = tmp_path / "old.db"
    _fill(source, cache_and_kb=True)
    _copy(source, app_url, owner_url)
    with psycopg.connect(owner_url) as conn:
        created = {str(name) for (name,) in conn.execute(
            "SELECT table_name FROM information_schema.tables"
            " WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'").fetchall()}
    copied = {spec.table for tier in TIER_TABLES.values() for spec in tier.tables}
    rebuilt = {name for tier in TIER_TABLES.values() for name in tier.rebuilt}
    assert created - {"schema_migrations"} - copied - rebuilt == set()
    assert copied <= created and not copied & rebuilt
