"""Running a blocking call from an ``async`` endpoint: the event loop's executor, sized at start-up.

Why not FastAPI's sync endpoints (anyio's ``to_thread.run_sync``): each hop there detects the async
library, takes a capacity-limiter token inside a shielded cancel scope and wakes a worker through
a queue — ≈140 µs of CPU per call against ≈50 µs for asyncio's ``run_in_executor`` (uvloop, 16
concurrent callers, a 2-core host at load 9), and in a profile of exact-hit lookups at 16 clients
the hop was a quarter of the interpreter lock's time. The hot endpoints (the ladder's faces,
``POST /v1/fallback`` and ``POST /v1/chat/completions``, and ``POST /v1/cache/lookup`` on PostgreSQL)
hop this way; the rest keep FastAPI's pool. On SQLite a lookup's work goes to the cache's lookup
rounds instead, and :func:`settled` awaits it the same way.

The executor has as many threads as the bulkheads have slots (``create_app`` sizes it beside
anyio's limiter), so an admitted request never waits for a thread. Like anyio, a cancelled caller
waits for its call to end before it lets go: the request keeps its bulkhead slot while its thread
works, so threads in use never outnumber slots. KB searches hop to the ``kb`` bulkhead's own threads
instead, which wait there for the KB's own process (``lastline.api.ladder.kb_process``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
from collections.abc import Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import Any, TypeVar

__all__ = ["in_thread", "install_executor", "settled"]

T = TypeVar("T")


def install_executor(loop: asyncio.AbstractEventLoop, threads: int) -> ThreadPoolExecutor:
    """Make a pool of ``threads`` the loop's default executor (what :func:`in_thread` uses)."""
    executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="lastline-request")
    loop.set_default_executor(executor)
    return executor


async def in_thread(fn: Callable[..., T], *args: Any, executor: Executor | None = None, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)`` in ``executor`` (default: the loop's); on cancellation, wait for it before
    re-raising."""
    return await settled(asyncio.get_running_loop().run_in_executor(executor, functools.partial(fn, *args, **kwargs)))


async def settled(future: asyncio.Future[T] | concurrent.futures.Future[T]) -> T:
    """The result of work another thread runs; on cancellation, wait for the work to end before re-raising.

    Why wait: the request keeps its bulkhead slot until then, so work in flight never outnumbers slots.
    """
    waited = asyncio.wrap_future(future)
    try:
        return await asyncio.shield(waited)
    except asyncio.CancelledError:
        await asyncio.wait([waited])
        raise
