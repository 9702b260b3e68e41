"""The per-tenant skeleton both KB accelerators share (lastline.kb._derived): when a structure is built and rebuilt.

The structure here is a plain list standing for a tenant's rows, and ``size`` / ``make`` read a dict
standing for the store: the skeleton's contract is only about when it calls them and what it keeps.
The accelerators' own tests (test_kb_bm25.py, test_kb_ann.py) run it over real stores.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass

import pytest

from lastline import StorageError
from lastline.kb._derived import TenantStructures


@dataclass(frozen=True)
class Policy:
    threshold: int = 10
    recheck_s: float = 0.0
    rebuild_fraction: float = 0.2
    background: bool = False


class Store:
    """Rows per tenant, and how often the skeleton asked for a size or a build."""

    def __init__(self) -> None:
        self.rows: dict[str, int] = {}
        self.sizes = 0
        self.makes = 0
        self.ready = True

    def size(self, tenant: str) -> int:
        self.sizes += 1
        return self.rows.get(tenant, 0)

    def make(self, tenant: str) -> list[int] | None:
        self.makes += 1
        return list(range(self.rows.get(tenant, 0))) if self.ready else None


def _structures(store: Store, policy: Policy = Policy()) -> TenantStructures[list[int]]:
    return TenantStructures("test", policy, size=store.size, make=store.make)


def test_a_tenant_gets_its_structure_once_it_reaches_the_threshold_and_an_inline_build_answers_at_once() -> None:
    store = Store()
    structures = _structures(store)
    store.rows["acme"] = 9
    assert structures.get("acme") is None and store.makes == 0
    store.rows["acme"] = 10
    assert structures.get("acme") == list(range(10))
    assert structures.builds == 1 and structures.get("acme") is structures.current("acme")
    assert structures.current("globex") is None  # one structure per tenant


def test_the_size_of_a_tenant_without_one_is_read_at_most_every_recheck_interval() -> None:
    store = Store()
    structures = _structures(store, Policy(recheck_s=3600.0))
    store.rows["acme"] = 5
    for _ in range(5):
        assert structures.get("acme") is None
    assert store.sizes == 1
    store.rows["acme"] = 50  # grown past the threshold, but not looked at again within the hour
    assert structures.get("acme") is None and store.makes == 0


def test_changes_past_the_rebuild_fraction_rebuild_and_fewer_do_not() -> None:
    store = Store()
    structures = _structures(store)
    store.rows["acme"] = 100
    structures.get("acme")
    assert not structures.stale("acme", 20, 100) and structures.builds == 1
    store.rows["acme"] = 130
    assert structures.stale("acme", 21, 100) and structures.builds == 2
    assert structures.current("acme") == list(range(130))


def test_a_build_below_the_threshold_or_from_a_source_not_ready_drops_the_structure() -> None:
    store = Store()
    structures = _structures(store)
    store.rows["acme"] = 20
    assert structures.get("acme") is not None
    store.rows["acme"] = 3  # most rows deleted: the rebuild finds the tenant small again
    assert structures.build("acme") is None and structures.current("acme") is None
    store.rows["acme"], store.ready = 20, False  # e.g. a vector space still being filled
    assert structures.build("acme") is None and structures.current("acme") is None
    assert structures.builds == 1


def test_drop_and_replace_touch_only_the_structure_they_were_given() -> None:
    store = Store()
    structures = _structures(store)
    store.rows["acme"] = 10
    old = structures.get("acme")
    assert old is not None
    new = structures.replace("acme", lambda current: [*current, 10])
    assert new == list(range(11)) and structures.current("acme") is new
    structures.drop("acme", old)  # a stale reference: the newer structure stays
    assert structures.current("acme") is new
    assert structures.replace("globex", lambda current: current) is None
    structures.clear()
    assert structures.current("acme") is None


def test_one_background_build_per_tenant_at_a_time() -> None:
    store = Store()
    release = threading.Event()
    started = threading.Event()

    def slow_make(tenant: str) -> list[int] | None:
        started.set()
        release.wait(10)
        return store.make(tenant)

    structures = TenantStructures("test", Policy(background=True), size=store.size, make=slow_make)
    store.rows["acme"] = 10
    assert structures.get("acme") is None  # the build runs in a thread; the store answers meanwhile
    assert started.wait(10) and structures.building("acme")
    for _ in range(3):
        structures.start_build("acme")  # already building: no second thread
    release.set()
    for thread in [t for t in threading.enumerate() if t.name == "kb-test-acme"]:
        thread.join(10)
    assert store.makes == 1 and structures.builds == 1 and not structures.building("acme")
    assert structures.current("acme") == list(range(10))


def test_a_background_build_that_fails_is_dropped_and_the_next_check_builds(caplog: pytest.LogCaptureFixture) -> None:
    """A store closed under a build (a shutdown) or failing must not kill the thread with an error
    (pytest fails a test on an unhandled thread exception): the store keeps answering, and a later
    check builds again."""

    class Failing(Store):
        def make(self, tenant: str) -> list[int] | None:
            self.makes += 1
            if self.makes == 1:
                raise StorageError("read from kb.db failed: Cannot operate on a closed database.")
            return super().make(tenant)

    store = Failing()
    store.rows["acme"] = 20
    structures = _structures(store, Policy(background=True))
    with caplog.at_level(logging.WARNING, logger="lastline.kb._derived"):
        assert structures.get("acme") is None
        _join_builds()
    assert store.makes == 1 and not structures.building("acme") and structures.current("acme") is None
    assert "StorageError" in caplog.text and "closed database" not in caplog.text
    structures.get("acme")
    _join_builds()
    assert structures.current("acme") == list(range(20)) and structures.builds == 1


def _join_builds() -> None:
    for thread in threading.enumerate():
        if thread.name.startswith("kb-test-"):
            thread.join(10)


def test_stop_builds_stops_the_build_in_flight_waits_for_it_and_starts_no_more() -> None:
    """Before the storage closes: a build reading on a connection the storage closed under it crashed
    the process (a segmentation fault in SQLite's cursor)."""
    store = Store()
    started, ended = threading.Event(), threading.Event()

    def batched_make(tenant: str) -> list[int] | None:
        started.set()
        structures.stopping.wait(10)  # a make reading in batches sees the stop at its next batch …
        time.sleep(0.05)  # … after the batch it is reading
        ended.set()
        return None

    structures: TenantStructures[list[int]] = TenantStructures(
        "test", Policy(background=True), size=store.size, make=batched_make)
    store.rows["acme"] = 10
    assert structures.get("acme") is None and started.wait(10)
    assert structures.stop_builds(timeout_s=10)
    assert ended.is_set() and not structures.building("acme")  # it returned after the build ended
    structures.start_build("acme")
    assert not structures.building("acme") and structures.current("acme") is None  # none started after
