"""KB searches in a process of their own, at a lower CPU priority than the cache lookups.

Why a process: a KB search is mostly Python (keyword postings, kNN walk, fusion) plus a model call,
and in the server's worker it shares one interpreter lock with the cache's lookup rounds and the
event loop. Beside a flood of searches the lookups then waited for the lock, not for a core: their
p99 rose 2–4 × alone while the two cores were not both busy, and fewer slots, a lower thread
priority (a lowered thread holding the lock stalls the whole worker) or a CPU-time pace on the
searches did not bring it under 2 ×. The same flood with searches that only slept in their slot
raised it 1.3–1.5 × (docs/reliability.md, "The KB's own process"). So each worker hands its
searches and answers to one child process with its own lock, its own copy of the KB's in-memory
structures, and a nice value ``kb_nice`` steps lower: the kernel runs the lookups first whenever
both want a core, and no lookup waits for a lock a search holds.

How: the child is *spawned* (never forked: the worker has threads and open connections), opens
the same database and models from the worker's settings, warms the tenants' search structures
and then serves one call at a time. The KB stays fresh the way several workers on one file already
do: every search checks the store for chunks written elsewhere. Until the child says it is ready
(two to a few seconds after the first search), and after it died until its successor is, calls
run in the worker as before, so nothing waits for it. The bulkhead still bounds the calls in
flight; a caller waits on one of the bulkhead's threads, holding no lock.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from lastline import Settings
from lastline.backends import open_storage
from lastline.embedding import get_embedder
from lastline.kb import KnowledgeBase
from lastline.postgres import PostgresStorage
from lastline.storage import SQLiteStorage

__all__ = ["RETRY_FAILED_START_S", "KBSearchProcess", "open_knowledge_base"]

T = TypeVar("T")


def open_knowledge_base(settings: Settings, storage: SQLiteStorage | PostgresStorage) -> KnowledgeBase:
    """The KB as ``settings`` describe it, on ``storage``: the worker's and its search process's alike."""
    name = settings.kb_english_embedder  # the KB's English vector space; "none" turns it off
    english = None if name == "none" else get_embedder(name, settings.embed_threads)
    # The English space fills in the background: a document is searchable once keyword + USE are in.
    return KnowledgeBase(storage, get_embedder(settings.embedder, settings.embed_threads),
                         english_embedder=english, background_spaces=True)


_child_kb: KnowledgeBase | None = None


#: How long calls stay in the worker after a child could not start (a bad setting, no memory).
RETRY_FAILED_START_S = 30.0
#: How often the child looks whether its worker is still there.
_PARENT_CHECK_S = 0.5


def _exit_with_parent(parent: int) -> None:
    """End the child when its worker is gone: a worker killed outright (SIGKILL, OOM) sends no word,
    and the pool's queue does not tell a child blocked reading it."""
    while os.getppid() == parent:
        time.sleep(_PARENT_CHECK_S)
    os._exit(0)


def _start_child(settings: Settings, nice: int, parent: int) -> None:
    """The child's start: lower itself, open the KB, build the tenants' search structures."""
    global _child_kb
    threading.Thread(target=_exit_with_parent, args=(parent,), name="lastline-kb-parent", daemon=True).start()
    if nice > 0:
        os.nice(nice)
    storage = open_storage(settings.database_url or settings.db, owner_url=settings.database_owner_url,
                           pool_size=2)
    _child_kb = open_knowledge_base(settings, storage)
    _child_kb.warm(settings.tenants)


def _ready() -> int:
    return os.getpid()


def _call(method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    assert _child_kb is not None
    return getattr(_child_kb, method)(*args, **kwargs)


class KBSearchProcess:
    """``search`` and ``answer`` of the worker's KB, run in a child process once it is ready."""

    def __init__(self, settings: Settings, kb: KnowledgeBase, *, nice: int,
                 observer: Callable[[str], None] | None = None) -> None:
        self.settings = settings
        self.kb = kb  # the worker's own: calls run here until the child is ready
        self.nice = nice
        self.observer = observer  # told "process" or "worker" for every call (the server's metrics)
        self._lock = threading.Lock()
        self._pool: ProcessPoolExecutor | None = None
        self._ready = False
        self._closed = False
        self._retry_at = 0.0  # after a child that could not start, when to try again
        #: Calls the child answered / calls run in the worker (none ready, or it died under them).
        self.ran_in_process = 0
        self.ran_in_worker = 0

    @property
    def ready(self) -> bool:
        return self._ready

    def start(self) -> None:
        """Spawn the child (if none runs) without waiting; calls switch to it once it is warm."""
        with self._lock:
            if self._pool is not None or self._closed or time.monotonic() < self._retry_at:
                return
            pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                       initializer=_start_child, initargs=(self.settings, self.nice, os.getpid()))
            self._pool = pool
        pool.submit(_ready).add_done_callback(lambda done: self._started(pool, done))

    def _started(self, pool: ProcessPoolExecutor, done: Future[int]) -> None:
        with self._lock:
            if self._pool is pool and done.exception() is None:
                self._ready = True
            elif self._pool is pool:  # the child could not start: calls stay in the worker a while
                self._pool = None
                self._retry_at = time.monotonic() + RETRY_FAILED_START_S
                pool.shutdown(wait=False, cancel_futures=True)

    def pid(self) -> int | None:
        """The child's process id once it is ready (for tests and operators), else None."""
        with self._lock:
            pool = self._pool if self._ready else None
        return pool.submit(_ready).result() if pool is not None else None

    def search(self, *args: Any, **kwargs: Any) -> Any:
        return self._run("search", args, kwargs)

    def answer(self, *args: Any, **kwargs: Any) -> Any:
        return self._run("answer", args, kwargs)

    def _run(self, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        with self._lock:
            pool = self._pool if self._ready else None
        if pool is None:
            self.start()
            return self._in_worker(method, args, kwargs)
        try:
            future = pool.submit(_call, method, args, kwargs)
        except RuntimeError:  # the child died before (a broken pool), or it is being stopped
            self._lost(pool)
            return self._in_worker(method, args, kwargs)
        try:
            result = future.result()
        except BrokenProcessPool:  # the child died under this call, which then runs here
            self._lost(pool)
            return self._in_worker(method, args, kwargs)
        self.ran_in_process += 1
        if self.observer is not None:
            self.observer("process")
        return result

    def _in_worker(self, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        self.ran_in_worker += 1
        if self.observer is not None:
            self.observer("worker")
        fn: Callable[..., Any] = getattr(self.kb, method)
        return fn(*args, **kwargs)

    def _lost(self, pool: ProcessPoolExecutor) -> None:
        """The child died (killed, out of memory): forget it and spawn its successor."""
        with self._lock:
            if self._pool is pool:
                self._pool, self._ready = None, False
        pool.shutdown(wait=False, cancel_futures=True)
        self.start()

    def close(self) -> None:
        """Stop the child, waiting for a call it runs (storage closes after this)."""
        with self._lock:
            pool, self._pool, self._ready, self._closed = self._pool, None, False, True
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
