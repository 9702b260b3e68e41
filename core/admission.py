"""Admission control and bulkheads: bounded in-flight work, and a fast, honest "busy" past it.

lastline is called hardest in the minute every provider fails. Queueing every caller makes all of
them slow (measured: p50 1.2 s at 256 clients, nothing ever refused); refusing a few at once, with
``503 overloaded`` and ``Retry-After``, keeps the admitted ones fast and tells the others to come
back. So there is no unbounded queue anywhere:

- a :class:`Bulkhead` is a named bound on work in flight — cache lookups, KB searches, rule
  extraction, writes, the ladder each have their own, so a burst of slow KB queries fills only the
  KB's slots and cannot raise cache-lookup latency. Past the bound a request is refused at once
  (:class:`~lastline.errors.Overloaded`), never queued;
- within a bulkhead no tenant holds more than ``tenant_share`` of the slots (at least one), so one
  tenant flooding leaves room for the others;
- a bulkhead may keep a short line (``queue``): a caller that finds every slot taken (at the door,
  or a ladder rung on its thread) waits, first come first served, for at most ``max_wait_s``, and
  gets the next slot given back.
  The line is bounded in length and in time, and a caller past either is refused as before. For
  slow work with few slots (KB searches): refused at once, a flood's callers that ignore
  ``Retry-After`` come straight back, thousands of refusals a second that cost the cache lookups
  beside them more than the searches themselves (docs/reliability.md, "The KB's line");
- :meth:`Bulkhead.call` runs a tier with a hard timeout: the call runs on the bulkhead's own
  threads (as many as it has slots), the caller waits at most the timeout and then moves on — the
  ladder skips that rung and says why. A call that overran keeps its slot until it really ends, so a
  stuck tier can hold only its own slots;
- a :class:`Deadline` travels with a request: each tier gets ``min(its timeout, time left)``;
- background work (filling a vector space, building a search structure) runs its threads at a lower
  CPU priority (:func:`lower_thread_priority`, :data:`BACKGROUND_NICE`). Request work is not lowered
  by thread: a lowered thread holding the interpreter lock stalls every thread of its process, so
  the KB's searches get a lower priority in a process of their own instead
  (``lastline.api.ladder.kb_process``).

Framework-free on purpose: the HTTP middleware and the ladder use it; tests drive it directly.
"""

from __future__ import annotations

import asyncio
import math
import os
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TypeVar

from .errors import Overloaded

__all__ = [
    "BACKGROUND_NICE",
    "DEFAULT_RETRY_AFTER_S",
    "Bulkhead",
    "BulkheadStats",
    "Deadline",
    "TierTimeout",
    "lower_thread_priority",
]

T = TypeVar("T")

#: What ``Retry-After`` says when a request is shed: long enough for a burst to pass.
DEFAULT_RETRY_AFTER_S = 1
#: The nice value background threads lower themselves to: the kernel weighs a thread at nice 10 about
#: a tenth of one at 0, so background work gets the CPU the requests leave over.
BACKGROUND_NICE = 10


def lower_thread_priority(nice: int) -> bool:
    """Lower the calling thread's CPU priority to nice value ``nice``; True when it was lowered.

    To, not by: a thread already that low stays where it is. The KB's own process runs at
    ``kb_nice`` below the workers, and a background build there lowered ten steps more (to 19) got
    almost no CPU while the workers were busy, so its searches kept the store's slower path for
    minutes after a bulk ingest.

    Linux schedules threads one by one, so this touches only the calling thread (and the threads it
    starts afterwards, which inherit it). Elsewhere ``setpriority`` would lower the whole process, so
    it is left alone there. Lowering is always allowed; raising it back is not (without privileges),
    which is why only threads that do nothing else are lowered.
    """
    if not sys.platform.startswith("linux"):
        return False
    tid = threading.get_native_id()
    try:
        if os.getpriority(os.PRIO_PROCESS, tid) >= min(19, nice):
            return False
        os.setpriority(os.PRIO_PROCESS, tid, min(19, nice))
    except OSError:
        return False
    return True


class TierTimeout(Exception):
    """A tier call ran past its timeout; the caller skips that tier (not an HTTP error by itself)."""

    def __init__(self, name: str, timeout_s: float) -> None:
        super().__init__(f"{name} did not answer within {timeout_s * 1000:.0f} ms")
        self.name = name
        self.timeout_s = timeout_s


@dataclass
class BulkheadStats:
    admitted: int = 0
    shed_full: int = 0  # every slot taken (and the line full, or none)
    shed_tenant: int = 0  # this tenant already holds its share
    timeouts: int = 0  # calls that overran their timeout
    in_flight: int = 0
    by_tenant: dict[str, int] = field(default_factory=dict)
    waited: int = 0  # admitted after waiting in line
    shed_wait: int = 0  # refused after waiting ``max_wait_s`` in line
    waiting: int = 0  # callers in line now


@dataclass(eq=False)
class _Waiter:
    """One caller in a bulkhead's line: how to wake it (from any thread), and whether it got a slot."""

    tenant: str
    wake: Callable[[], None]
    granted: bool = False


def _resolve(ready: asyncio.Future[None]) -> None:
    if not ready.done():
        ready.set_result(None)


def _call_soon(loop: asyncio.AbstractEventLoop, ready: asyncio.Future[None]) -> None:
    """Wake a caller waiting on ``loop`` from whichever thread gave the slot back."""
    loop.call_soon_threadsafe(_resolve, ready)


class Bulkhead:
    """At most ``limit`` units of one kind of work in flight; no tenant above ``tenant_share`` of them.

    With ``queue`` > 0, :meth:`enter` (the door) and :meth:`call` (a ladder rung) let that many
    callers wait in line for at most ``max_wait_s`` (no tenant more than its share of the line);
    :meth:`try_acquire`, :meth:`acquire` and :meth:`slot` are refused at once.
    """

    def __init__(self, name: str, limit: int, *, tenant_share: float = 1.0,
                 retry_after_s: int = DEFAULT_RETRY_AFTER_S, queue: int = 0,
                 max_wait_s: float = 0.0) -> None:
        if limit < 1 or not 0 < tenant_share <= 1 or queue < 0 or max_wait_s < 0:
            raise ValueError("limit must be ≥ 1, tenant_share in (0, 1], queue and max_wait_s ≥ 0")
        self.name = name
        self.limit = limit
        self.tenant_limit = max(1, math.floor(tenant_share * limit))
        self.queue = queue if max_wait_s > 0 else 0
        self.max_wait_s = max_wait_s
        self.tenant_queue = max(1, math.floor(tenant_share * queue))
        self._line: deque[_Waiter] = deque()
        self.retry_after_s = retry_after_s
        self._lock = threading.Lock()
        self._in_flight = 0
        self._by_tenant: dict[str, int] = {}
        self._stats = BulkheadStats()
        self._pool: ThreadPoolExecutor | None = None

    # -- slots -----------------------------------------------------------------------------------
    def try_acquire(self, tenant: str) -> str | None:
        """Take a slot; ``None`` when admitted, else why not (``full`` or ``tenant_share``)."""
        with self._lock:
            why = self._counted_refusal(tenant)
            if why is None:
                self._take(tenant)
            return why

    def refuse_if_full(self, tenant: str) -> None:
        """Raise :class:`Overloaded` (counted as shed) when :meth:`try_acquire` would refuse now; take nothing.

        For a caller that can refuse cheaply before it hands the work to a thread, which takes the
        slot itself: a slot freed in between is not seen there, so the error is a refusal a moment
        early, never work past the limit.
        """
        with self._lock:
            why = self._counted_refusal(tenant)
        if why is not None:
            raise self.overloaded(why)

    def _counted_refusal(self, tenant: str) -> str | None:
        """Why a slot cannot be taken now (counted in the stats), or None; the caller holds the lock."""
        if self._in_flight >= self.limit:
            self._stats.shed_full += 1
            return "full"
        if self._by_tenant.get(tenant, 0) >= self.tenant_limit:
            self._stats.shed_tenant += 1
            return "tenant_share"
        return None

    async def enter(self, tenant: str) -> str | None:
        """Take a slot, waiting in line when every slot is taken and the line has room; ``None`` when
        admitted, else why not (``full``, ``tenant_share``, or ``waited`` after ``max_wait_s`` in line).

        A slot given back while callers wait goes to the first of them whose tenant is below its
        share (:meth:`release`, from any thread), so no newcomer overtakes the line. Without a line
        this is :meth:`try_acquire`.
        """
        if not self.queue:  # the door's every request: nothing to set up
            return self.try_acquire(tenant)
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()
        joined = self._join_line(tenant, lambda: _call_soon(loop, ready))
        if not isinstance(joined, _Waiter):
            return joined
        try:
            await asyncio.wait_for(asyncio.shield(ready), self.max_wait_s)
        except TimeoutError:
            pass
        except asyncio.CancelledError:  # the caller went away: out of the line, or its slot given back
            if self._leave_line(joined):
                self.release(tenant)
            raise
        return None if self._leave_line(joined) else "waited"

    def _wait_in_line(self, tenant: str, wait_s: float) -> str | None:
        """:meth:`enter` for a caller on a thread of its own (a ladder rung), waiting at most ``wait_s``."""
        ready = threading.Event()
        joined = self._join_line(tenant, ready.set, wait_s)
        if not isinstance(joined, _Waiter):
            return joined
        ready.wait(min(wait_s, self.max_wait_s))
        return None if self._leave_line(joined) else "waited"

    def _join_line(self, tenant: str, wake: Callable[[], None], wait_s: float | None = None) -> _Waiter | str | None:
        """A free slot (None), a refusal (its reason), or a place in line; counted either way."""
        with self._lock:
            if self._in_flight < self.limit or not self.queue or wait_s == 0:
                why = self._counted_refusal(tenant)  # full, or a free slot unless the tenant holds its share
                if why is None:
                    self._take(tenant)
                return why
            if len(self._line) >= self.queue or sum(w.tenant == tenant for w in self._line) >= self.tenant_queue:
                self._stats.shed_full += 1
                return "full"
            waiter = _Waiter(tenant, wake)
            self._line.append(waiter)
            return waiter

    def _leave_line(self, waiter: _Waiter) -> bool:
        """After a wait: True when a slot was handed over meanwhile (counted), else out of the line."""
        with self._lock:
            if waiter.granted:
                self._stats.waited += 1
                return True
            self._line.remove(waiter)
            self._stats.shed_wait += 1
            return False

    def _take(self, tenant: str) -> None:
        """Count one slot taken by ``tenant``; the caller holds the lock."""
        self._in_flight += 1
        self._by_tenant[tenant] = self._by_tenant.get(tenant, 0) + 1
        self._stats.admitted += 1

    def overloaded(self, why: str) -> Overloaded:
        """The refusal of a request to this bulkhead: ``why`` is a refusal reason, ``draining``, or
        ``deadline`` (its work queued for one of these slots had not begun when its deadline passed).

        One wording whoever refuses (the door, the ladder, a tier call), so a client and the logs
        read the same reason and ``Retry-After`` for the same state.
        """
        if why == "draining":
            state = "the server is shutting down"
        elif why == "deadline":
            state = f"the request's deadline passed before its work began ({self.limit} in flight at most)"
        elif why == "waited":
            state = f"no slot came free within {self.max_wait_s * 1000:.0f} ms ({self.limit} in flight at most)"
        else:
            state = f"{why.replace('_', ' ')} ({self.limit} in flight at most)"
        return Overloaded(f"{self.name}: {state}; retry after {self.retry_after_s} s",
                          reason=why, limit=self.name, retry_after_s=self.retry_after_s)

    def release(self, tenant: str) -> None:
        """Give a slot back: to the first caller in line whose tenant is below its share, if any."""
        with self._lock:
            self._in_flight -= 1
            left = self._by_tenant.get(tenant, 1) - 1
            if left:
                self._by_tenant[tenant] = left
            else:
                self._by_tenant.pop(tenant, None)
            if not self._line:
                return
            waiter = next((w for w in self._line if self._by_tenant.get(w.tenant, 0) < self.tenant_limit), None)
            if waiter is None:
                return
            self._line.remove(waiter)
            waiter.granted = True
            self._take(waiter.tenant)
        waiter.wake()

    def acquire(self, tenant: str) -> None:
        """Take a slot or raise :class:`Overloaded` at once."""
        why = self.try_acquire(tenant)
        if why is not None:
            raise self.overloaded(why)

    @contextmanager
    def slot(self, tenant: str) -> Iterator[None]:
        """``with bulkhead.slot(tenant):`` — admitted for the block, or :class:`Overloaded` at once."""
        self.acquire(tenant)
        try:
            yield
        finally:
            self.release(tenant)

    # -- tier calls with a hard timeout ----------------------------------------------------------
    def call(self, fn: Callable[[], T], *, tenant: str, timeout_s: float) -> T:
        """Run ``fn`` on this bulkhead's threads; :class:`TierTimeout` after ``timeout_s``.

        Raises :class:`Overloaded` when every slot is taken (or the tenant holds its share): at once,
        or, in a bulkhead with a line, after waiting in it for a slot at most ``max_wait_s`` of the
        timeout. The slot is released when ``fn`` really returns, even after the caller gave up on it.
        """
        started = time.monotonic()
        why = self._wait_in_line(tenant, max(0.0, timeout_s))
        if why is not None:
            raise self.overloaded(why)
        timeout_s -= time.monotonic() - started
        try:
            future: Future[T] = self.executor().submit(fn)
        except BaseException:
            self.release(tenant)
            raise
        future.add_done_callback(lambda _: self.release(tenant))
        try:
            return future.result(timeout=max(0.0, timeout_s))
        except FutureTimeout:
            with self._lock:
                self._stats.timeouts += 1
            raise TierTimeout(self.name, timeout_s) from None

    def executor(self) -> ThreadPoolExecutor:
        """This bulkhead's threads, as many as its slots: work admitted through a slot never waits for one."""
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=self.limit, thread_name_prefix=f"bulkhead-{self.name}")
            return self._pool

    def stats(self) -> BulkheadStats:
        with self._lock:
            s = self._stats
            return BulkheadStats(s.admitted, s.shed_full, s.shed_tenant, s.timeouts, self._in_flight,
                                 dict(self._by_tenant), s.waited, s.shed_wait, len(self._line))

    def close(self) -> None:
        """Stop the tier threads, waiting for calls still running (even ones their caller gave up on):
        storage closes after this, and a call must never find its connection closed under it."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


@dataclass(frozen=True)
class Deadline:
    """When a request must be answered by (monotonic clock)."""

    at: float

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        return cls(time.monotonic() + seconds)

    def left(self) -> float:
        return self.at - time.monotonic()

    def budget(self, timeout_s: float) -> float:
        """What a tier may spend: its own timeout, capped by the time this request has left."""
        return max(0.0, min(timeout_s, self.left()))

