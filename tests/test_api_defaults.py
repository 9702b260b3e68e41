"""Declared defaults: a YAML/JSON file for every tenant, per-tenant declarations over HTTP."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from conftest import LiveServer

from lastline import ConfigError, PostgresStorage, SQLiteStorage
from lastline.api.ladder.defaults import DeclaredDefault, Defaults, load_defaults_file
from lastline.api.ladder.stores import open_defaults_store

pytestmark = pytest.mark.backends("sqlite", "postgresql")

YAML = """
tasks:
  order_status: {answer: "Orders cannot be looked up right now."}
  transfer_money: {side_effects: true}
  greeting: "Hello! The assistant is in reduced mode."
  "*": {answer: "The assistant is temporarily unavailable."}
"""


def test_file_declarations_load_and_tenant_declarations_override(
        tmp_path: Path, storage: SQLiteStorage | PostgresStorage) -> None:
    path = tmp_path / "defaults.yaml"
    path.write_text(YAML, encoding="utf-8")
    store = Defaults(open_defaults_store(storage), load_defaults_file(path))
    assert store.answer_for(tenant="t", task="order_status")[1] == "Orders cannot be looked up right now."
    assert store.answer_for(tenant="t", task="greeting")[1].startswith("Hello!")
    assert store.answer_for(tenant="t", task="other") == ("*", "The assistant is temporarily unavailable.")
    assert store.has_side_effects(tenant="t", task="transfer_money")
    assert store.answer_for(tenant="t", task="transfer_money") == ("*", "The assistant is temporarily unavailable.")
    store.put(tenant="t", task="order_status", default=DeclaredDefault(answer="mine"))
    assert store.answer_for(tenant="t", task="order_status") == ("order_status", "mine")
    assert store.answer_for(tenant="u", task="order_status")[1].startswith("Orders")


def test_bad_defaults_file_fails_by_setting_name(tmp_path: Path) -> None:
    bad = tmp_path / "d.yaml"
    bad.write_text("tasks: [1, 2]", encoding="utf-8")
    with pytest.raises(ConfigError, match="LASTLINE_DEFAULTS_FILE"):
        load_defaults_file(bad)
    with pytest.raises(ConfigError, match="LASTLINE_DEFAULTS_FILE"):
        load_defaults_file(tmp_path / "missing.yaml")


def test_put_list_delete_defaults_over_http(live_server: LiveServer) -> None:
    url = live_server.url("/v1/defaults/shipping_eta")
    assert httpx.put(url, json={"answer": "2-5 days"}).json() == {"answer": "2-5 days", "side_effects": False}
    listed = httpx.get(live_server.url("/v1/defaults")).json()["defaults"]
    assert listed["shipping_eta"]["answer"] == "2-5 days"
    got = httpx.post(live_server.url("/v1/fallback"), json={"prompt": "when will it ship", "task": "shipping_eta"})
    assert got.json()["answer"] == "2-5 days" and got.json()["degradation_depth"] == 4
    assert httpx.delete(url).status_code == 204
    assert httpx.delete(url).json()["error"] == "not_found"


def test_side_effect_task_over_http_is_409_with_key(live_server: LiveServer) -> None:
    httpx.put(live_server.url("/v1/defaults/refund_payment_sidefx"), json={"side_effects": True}).raise_for_status()
    r = httpx.post(live_server.url("/v1/fallback"),
                   json={"prompt": "refund order 77", "task": "refund_payment_sidefx", "idempotency_key": "r-77"})
    assert r.status_code == 409
    assert r.json() == {"error": "no_degraded_writes", "detail": r.json()["detail"], "idempotency_key": "r-77"}


def test_defaults_file_setting_feeds_the_ladder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from lastline import NoDegradedWrites, load_settings
    from lastline.api import FallbackRequest, Runtime, run_ladder

    path = tmp_path / "defaults.yaml"
    path.write_text(YAML, encoding="utf-8")
    monkeypatch.setenv("LASTLINE_DEFAULTS_FILE", str(path))
    runtime = Runtime.open(load_settings(db=tmp_path / "x.db"))
    try:
        got = run_ladder(runtime, "default", FallbackRequest(prompt="where is my order", task="order_status"))
        assert got.answer == "Orders cannot be looked up right now." and got.degradation_depth == 4
        with pytest.raises(NoDegradedWrites):
            run_ladder(runtime, "default", FallbackRequest(prompt="send 5 EUR", task="transfer_money"))
    finally:
        runtime.close()
