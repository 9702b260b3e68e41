"""The API's own stores (degradation events, declared defaults) mean the same on SQLite and PostgreSQL."""

from __future__ import annotations

import dataclasses
import time

import psycopg
import pytest

from lastline import PostgresStorage, SQLiteStorage
from lastline.api.ladder.defaults_store import DefaultRow
from lastline.api.ladder.events_store import NewEvent
from lastline.api.ladder.pg_events_store import PostgresEventStore
from lastline.api.ladder.stores import open_defaults_store, open_event_store

pytestmark = pytest.mark.backends("sqlite", "postgresql")

Storage = SQLiteStorage | PostgresStorage


def _event(tenant: str, ts: float, tier: str = "kb", source: str | None = "kb") -> NewEvent:
    return NewEvent(tenant=tenant, route="default", tier=tier, path=f"{tier}:hit", prompt_hash="h",
                    duration_ms=1.5, source=source, confidence="medium", ts=ts)


def test_events_of_many_tenants_in_one_batch_stay_apart(storage: Storage) -> None:
    store = open_event_store(storage)
    now = time.time()
    store.append_many([_event("acme", now - 3), _event("globex", now - 2), _event("acme", now - 1, "none", None)])
    assert store.count("acme") == 2 and store.count("globex") == 1
    assert [e.tier for e in store.recent("acme", limit=10, since=0)] == ["none", "kb"]
    assert store.recent("acme", limit=1, since=0)[0].ts == pytest.approx(now - 1)
    assert store.recent("acme", limit=10, since=now - 1.5)[0].tier == "none"
    assert store.tier_counts("acme", since=0) == {"kb": 1, "none": 1}
    assert store.answer_counts("acme", since=0) == [("kb", "medium", 1)]
    assert store.answer_counts("nobody", since=0) == [] and store.count("nobody") == 0


def test_every_field_of_an_event_is_stored_in_its_own_column(storage: Storage) -> None:
    """Each field distinct, so a value written to another field's column shows."""
    store = open_event_store(storage)
    event = NewEvent(tenant="acme", route="chat_completions", tier="cache", path="cache:hit", prompt_hash="p-hash",
                     duration_ms=2.25, source="semantic", reason="the-reason", depth=3, confidence="high",
                     entry_id="e-1", task="t-1", prompt="the prompt", answer="the answer", ts=time.time() - 5)
    store.append_many([event])
    (stored,) = store.recent("acme", limit=5, since=0)
    assert {k: v for k, v in stored.model_dump().items() if k != "id"} == pytest.approx(dataclasses.asdict(event))


def test_retention_deletes_old_events_of_every_tenant(storage: Storage) -> None:
    store = open_event_store(storage)
    now = time.time()
    store.append_many([_event(t, now - age) for t in ("acme", "globex") for age in (100, 90, 1)])
    assert store.delete_before(now - 50) == 4
    assert store.count("acme") == 1 and store.count("globex") == 1
    assert store.delete_before(now - 50) == 0


def test_defaults_put_get_list_delete_per_tenant(storage: Storage) -> None:
    store = open_defaults_store(storage)
    store.put("acme", DefaultRow("b_task", "later", False))
    store.put("acme", DefaultRow("a_task", None, True))
    store.put("acme", DefaultRow("B_task", "upper", False))
    store.put("globex", DefaultRow("a_task", "theirs", False))
    assert store.get("acme", "a_task") == DefaultRow("a_task", None, True)
    assert [r.task for r in store.list("acme")] == ["B_task", "a_task", "b_task"]  # bytewise on both
    store.put("acme", DefaultRow("a_task", "now an answer", False))
    assert store.get("acme", "a_task") == DefaultRow("a_task", "now an answer", False)
    assert store.get("globex", "a_task") == DefaultRow("a_task", "theirs", False)
    assert store.delete("acme", "a_task") and not store.delete("acme", "a_task")
    assert store.get("acme", "a_task") is None and store.get("globex", "a_task") is not None


@pytest.mark.backends("postgresql")
def test_raw_sql_as_one_tenant_sees_none_of_anothers_events_or_defaults(storage: PostgresStorage) -> None:
    open_event_store(storage).append_many([_event("acme", time.time()), _event("globex", time.time())])
    open_defaults_store(storage).put("globex", DefaultRow("secret", "theirs", False))
    with psycopg.connect(storage.url) as conn:  # the application role, no lastline code
        conn.execute("SELECT set_config('lastline.tenant', 'acme', true)")
        assert conn.execute("SELECT DISTINCT tenant FROM api_events").fetchall() == [("acme",)]
        assert conn.execute("SELECT count(*) FROM api_defaults").fetchone() == (0,)
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("INSERT INTO api_defaults VALUES ('globex', 'x', 'y', false, 0)")


@pytest.mark.backends("postgresql")
def test_replicas_pruning_at_once_delete_each_old_event_once(storage: PostgresStorage) -> None:
    import threading

    old = time.time() - 1000
    writer = PostgresEventStore(storage)
    writer.append_many([_event(f"t{i % 7}", old + i * 0.001) for i in range(2500)])
    replicas = [PostgresEventStore(storage, prune_batch=100) for _ in range(3)]
    deleted: list[int] = []
    threads = [threading.Thread(target=lambda r=r: deleted.append(r.delete_before(old + 10))) for r in replicas]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(deleted) == 2500
    assert sum(writer.count(f"t{i}") for i in range(7)) == 0
