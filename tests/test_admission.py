"""Bulkheads: bounded in-flight work, refused at once past it, per-tenant shares, hard tier timeouts."""

from __future__ import annotations

import os
import sys
import threading
import time

import pytest

from lastline import Overloaded
from lastline.admission import BACKGROUND_NICE, Bulkhead, Deadline, TierTimeout, lower_thread_priority


def test_past_the_limit_a_request_is_refused_at_once() -> None:
    bulkhead = Bulkhead("cache", 2)
    bulkhead.acquire("a")
    bulkhead.acquire("a")
    started = time.perf_counter()
    with pytest.raises(Overloaded) as info:
        bulkhead.acquire("a")
    assert time.perf_counter() - started < 0.01
    assert info.value.status == 503
    assert info.value.to_dict()["error"] == "overloaded"
    assert info.value.extra["limit"] == "cache"
    assert info.value.extra["retry_after_s"] >= 1
    assert bulkhead.stats().shed_full == 1


def test_a_released_slot_admits_the_next_request() -> None:
    bulkhead = Bulkhead("kb", 1)
    with bulkhead.slot("a"):
        assert bulkhead.try_acquire("b") == "full"
    with bulkhead.slot("b"):
        assert bulkhead.stats().in_flight == 1
    assert bulkhead.stats().in_flight == 0


def test_one_tenant_cannot_take_every_slot() -> None:
    bulkhead = Bulkhead("cache", 8, tenant_share=0.5)
    for _ in range(4):
        assert bulkhead.try_acquire("flood") is None
    assert bulkhead.try_acquire("flood") == "tenant_share"
    for _ in range(4):
        assert bulkhead.try_acquire("quiet") is None
    assert bulkhead.try_acquire("third") == "full"
    stats = bulkhead.stats()
    assert (stats.shed_tenant, stats.shed_full, stats.by_tenant) == (1, 1, {"flood": 4, "quiet": 4})


def test_a_small_bulkhead_still_gives_each_tenant_a_slot() -> None:
    bulkhead = Bulkhead("rules", 1, tenant_share=0.25)
    assert bulkhead.tenant_limit == 1
    assert bulkhead.try_acquire("a") is None


def test_a_tier_call_returns_its_value_and_frees_its_slot() -> None:
    bulkhead = Bulkhead("rules", 2)
    assert bulkhead.call(lambda: 41 + 1, tenant="a", timeout_s=1.0) == 42
    assert bulkhead.stats().in_flight == 0
    bulkhead.close()


def test_a_slow_tier_call_times_out_and_keeps_its_slot_until_it_ends() -> None:
    bulkhead = Bulkhead("kb", 1)
    release = threading.Event()
    started = time.perf_counter()
    with pytest.raises(TierTimeout) as info:
        bulkhead.call(lambda: release.wait(5), tenant="a", timeout_s=0.05)
    assert time.perf_counter() - started < 1.0
    assert "kb" in str(info.value)
    with pytest.raises(Overloaded):  # the overrunning call still holds the only slot
        bulkhead.call(lambda: 1, tenant="b", timeout_s=1.0)
    release.set()
    deadline = time.monotonic() + 5
    while bulkhead.stats().in_flight and time.monotonic() < deadline:
        time.sleep(0.01)
    assert bulkhead.call(lambda: 2, tenant="b", timeout_s=1.0) == 2
    assert bulkhead.stats().timeouts == 1
    bulkhead.close()


def test_an_error_in_a_tier_call_reaches_the_caller() -> None:
    bulkhead = Bulkhead("kb", 1)

    def boom() -> None:
        raise ValueError("bad query")

    with pytest.raises(ValueError, match="bad query"):
        bulkhead.call(boom, tenant="a", timeout_s=1.0)
    deadline = time.monotonic() + 5
    while bulkhead.stats().in_flight and time.monotonic() < deadline:
        time.sleep(0.01)
    assert bulkhead.stats().in_flight == 0
    bulkhead.close()


def test_a_deadline_caps_every_tier_budget() -> None:
    deadline = Deadline.after(0.2)
    assert 0.1 < deadline.budget(10.0) <= 0.2
    assert deadline.budget(0.05) == 0.05
    passed = Deadline.after(-1)
    assert passed.budget(1.0) == 0.0  # the ladder skips a rung with no budget left as timed out


def test_limits_must_make_sense() -> None:
    with pytest.raises(ValueError):
        Bulkhead("x", 0)
    with pytest.raises(ValueError):
        Bulkhead("x", 4, tenant_share=0)


def _own_nice() -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread priorities are Linux's")
def test_a_bulkheads_threads_run_its_nice_steps_below_the_caller() -> None:
    base = _own_nice()
    lowered = Bulkhead("kb", 2, nice=5)
    assert lowered.call(_own_nice, tenant="a", timeout_s=5) == min(19, base + 5)
    assert Bulkhead("cache", 2).call(_own_nice, tenant="a", timeout_s=5) == base
    assert _own_nice() == base  # the caller's own priority is untouched
    lowered.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread priorities are Linux's")
def test_lowering_a_thread_lowers_it_and_the_threads_it_starts_only() -> None:
    seen: dict[str, int] = {}

    def background() -> None:
        assert lower_thread_priority(BACKGROUND_NICE)
        seen["itself"] = _own_nice()
        child = threading.Thread(target=lambda: seen.setdefault("child", _own_nice()))
        child.start()
        child.join()

    base = _own_nice()
    worker = threading.Thread(target=background)
    worker.start()
    worker.join()
    assert seen == {"itself": min(19, base + BACKGROUND_NICE), "child": min(19, base + BACKGROUND_NICE)}
    assert _own_nice() == base
    assert not lower_thread_priority(0)


def test_refuse_if_full_refuses_as_a_slot_request_would_without_taking_one() -> None:
    """For a caller that refuses cheaply before handing work to a thread that takes the slot itself."""
    bulkhead = Bulkhead("semantic", 2, tenant_share=0.5)
    bulkhead.refuse_if_full("a")  # room: nothing taken
    assert bulkhead.stats().in_flight == 0
    bulkhead.acquire("a")
    with pytest.raises(Overloaded) as refused:
        bulkhead.refuse_if_full("a")
    assert refused.value.reason == "tenant_share" and refused.value.extra["limit"] == "semantic"
    bulkhead.refuse_if_full("b")
    bulkhead.acquire("b")
    with pytest.raises(Overloaded) as refused:
        bulkhead.refuse_if_full("c")
    assert refused.value.reason == "full"
    stats = bulkhead.stats()
    assert (stats.in_flight, stats.shed_full, stats.shed_tenant, stats.admitted) == (2, 1, 1, 2)
