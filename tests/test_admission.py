"""Bulkheads: bounded in-flight work, refused at once past it (or after a bounded line), per-tenant shares,
hard tier timeouts."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time

import pytest
from _bulkheads import release_once_someone_waits

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
    with pytest.raises(ValueError):
        Bulkhead("x", 4, queue=-1)
    with pytest.raises(ValueError):
        Bulkhead("x", 4, queue=2, max_wait_s=-1)
    assert Bulkhead("x", 4, queue=8).queue == 0  # a line no one may wait in is no line


# -- the line ------------------------------------------------------------------------------------

def test_without_a_line_enter_refuses_at_once_past_the_limit() -> None:
    bulkhead = Bulkhead("kb", 1)

    async def scenario() -> list[str | None]:
        return [await bulkhead.enter("t"), await bulkhead.enter("t")]

    started = time.monotonic()
    assert asyncio.run(scenario()) == [None, "full"]
    assert time.monotonic() - started < 0.05 and bulkhead.stats().shed_full == 1


def test_callers_in_line_get_the_slots_given_back_first_come_first_served() -> None:
    bulkhead = Bulkhead("kb", 1, queue=3, max_wait_s=5)
    order: list[int] = []

    async def caller(i: int) -> str | None:
        why = await bulkhead.enter("t")
        if why is None:
            order.append(i)
            await asyncio.sleep(0.01)
            bulkhead.release("t")
        return why

    async def scenario() -> list[str | None]:
        assert await bulkhead.enter("t") is None  # the one slot, held while the others line up
        tasks = [asyncio.create_task(caller(i)) for i in range(5)]
        await asyncio.sleep(0.05)
        assert bulkhead.stats().waiting == 3  # the line is full: the last two were refused at once
        bulkhead.release("t")
        return list(await asyncio.gather(*tasks))

    assert asyncio.run(scenario()) == [None, None, None, "full", "full"]
    assert order == [0, 1, 2]
    stats = bulkhead.stats()
    assert (stats.waited, stats.shed_full, stats.in_flight, stats.waiting) == (3, 2, 0, 0)


def test_a_caller_waits_at_most_max_wait_then_is_refused_and_leaves_the_line() -> None:
    bulkhead = Bulkhead("kb", 1, queue=4, max_wait_s=0.1)

    async def scenario() -> tuple[str | None, float]:
        assert await bulkhead.enter("t") is None
        started = time.monotonic()
        why = await bulkhead.enter("t")
        return why, time.monotonic() - started

    why, waited = asyncio.run(scenario())
    assert why == "waited" and 0.09 <= waited < 1.0
    stats = bulkhead.stats()
    assert (stats.shed_wait, stats.waiting, stats.in_flight) == (1, 0, 1)
    assert "no slot came free within 100 ms" in str(bulkhead.overloaded("waited"))


def test_a_slot_given_back_from_another_thread_wakes_the_caller_in_line() -> None:
    """The ladder's tier calls release from their threads."""
    bulkhead = Bulkhead("kb", 1, queue=2, max_wait_s=5)
    bulkhead.acquire("t")

    async def scenario() -> tuple[str | None, float]:
        started = time.monotonic()
        release_once_someone_waits(bulkhead, "t")
        return await bulkhead.enter("t"), time.monotonic() - started

    why, waited = asyncio.run(scenario())
    assert why is None and waited < 1.0
    assert bulkhead.stats().in_flight == 1 and bulkhead.stats().waited == 1


def test_no_newcomer_overtakes_the_line() -> None:
    bulkhead = Bulkhead("kb", 1, queue=2, max_wait_s=5)

    async def scenario() -> tuple[str | None, str | None]:
        assert await bulkhead.enter("t") is None
        waiting = asyncio.create_task(bulkhead.enter("t"))
        await asyncio.sleep(0.01)
        bulkhead.release("t")  # handed to the caller in line, not left free
        newcomer = bulkhead.try_acquire("t")
        return await waiting, newcomer

    assert asyncio.run(scenario()) == (None, "full")


def test_a_tenant_holds_at_most_its_share_of_the_line() -> None:
    bulkhead = Bulkhead("kb", 2, tenant_share=0.5, queue=4, max_wait_s=5)

    async def scenario() -> list[str | None]:
        assert await bulkhead.enter("a") is None
        assert await bulkhead.enter("b") is None
        line = [asyncio.create_task(bulkhead.enter(t)) for t in ("a", "a", "a", "b")]
        await asyncio.sleep(0.02)
        refused = [task.result() for task in line if task.done()]
        assert refused == ["full"]  # a's third: a may hold 2 of the 4 places in line
        bulkhead.release("a")
        bulkhead.release("b")
        results = []
        for task in line:
            results.append(await task)
            if results[-1] is None:
                bulkhead.release("a" if task is not line[3] else "b")
        return results

    assert asyncio.run(scenario()) == [None, None, "full", None]


def test_a_caller_that_goes_away_in_line_gives_back_the_slot_it_was_handed() -> None:
    bulkhead = Bulkhead("kb", 1, queue=2, max_wait_s=5)

    async def scenario() -> None:
        assert await bulkhead.enter("t") is None
        gone = asyncio.create_task(bulkhead.enter("t"))
        left = asyncio.create_task(bulkhead.enter("t"))
        await asyncio.sleep(0.01)
        left.cancel()  # leaves the line before it is served
        with pytest.raises(asyncio.CancelledError):
            await left
        bulkhead.release("t")  # handed to ``gone``, whose wake-up is still on its way …
        gone.cancel()  # … when its client disconnects
        with pytest.raises(asyncio.CancelledError):
            await gone

    asyncio.run(scenario())
    stats = bulkhead.stats()
    assert (stats.in_flight, stats.waiting) == (0, 0)


def _own_nice() -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


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
    assert base < BACKGROUND_NICE  # the test process runs at the default priority
    worker = threading.Thread(target=background)
    worker.start()
    worker.join()
    assert seen == {"itself": BACKGROUND_NICE, "child": BACKGROUND_NICE}
    assert _own_nice() == base
    assert not lower_thread_priority(0)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread priorities are Linux's")
def test_a_thread_already_low_is_not_lowered_further() -> None:
    """In the KB's own process (nice 10) a background build stays at 10, beside its searches."""
    seen: dict[str, object] = {}

    def already_low() -> None:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), BACKGROUND_NICE + 2)
        seen["lowered"] = lower_thread_priority(BACKGROUND_NICE)
        seen["nice"] = _own_nice()

    worker = threading.Thread(target=already_low)
    worker.start()
    worker.join()
    assert seen == {"lowered": False, "nice": BACKGROUND_NICE + 2}


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


def test_a_tier_call_waits_in_the_line_within_its_timeout() -> None:
    """A ladder rung on its own thread: a slot given back within its wait runs it; none, and it is refused."""
    bulkhead = Bulkhead("kb", 1, queue=2, max_wait_s=5)
    bulkhead.acquire("t")
    release_once_someone_waits(bulkhead, "t")
    assert bulkhead.call(lambda: 42, tenant="t", timeout_s=2.0) == 42
    bulkhead.acquire("t")
    started = time.monotonic()
    with pytest.raises(Overloaded) as refused:
        bulkhead.call(lambda: 42, tenant="t", timeout_s=0.1)  # its timeout caps its wait
    assert refused.value.reason == "waited" and time.monotonic() - started < 1.0
    stats = bulkhead.stats()
    assert (stats.waited, stats.shed_wait, stats.waiting, stats.in_flight) == (1, 1, 0, 1)
