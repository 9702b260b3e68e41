"""KB searches in a process of their own, at a lower CPU priority than the cache lookups.

Why a process: a KB search is mostly Python (keyword postings, kNN walk, fusion) plus a model call,
and in the server's worker it shares one interpreter lock with the cache's lookup rounds and the
event loop. Beside a flood of searches the lookups' p99 rose 2–4 × alone, and fewer slots, a lower
thread priority (a lowered thread holding the lock stalls the whole worker), a shorter switch
interval or a CPU-time pace on the searches did not bring it under 2 ×. The same flood with
searches that only slept in their slot raised it 1.3–1.5 × (docs/reliability.md, "The KB's own
process"). So each worker hands its
searches and answers to one child process with its own lock, its own copy of the KB's in-memory
structures, and a nice value ``kb_nice`` steps lower: the kernel runs the lookups first whenever
both want a core, and no lookup waits for a lock a search holds.

How: the child is *spawned* (never forked: the worker has threads and open connections), opens
the same database and models from the worker's settings, warms the tenants' search structures
and then serves one pipe per slot of the ``kb`` bulkhead, each on a thread of its own. A caller
(on one of the bulkhead's threads) takes a free pipe, sends the call and waits for the reply with
the interpreter lock let go. No executor between them: ``ProcessPoolExecutor`` passes each call
through two more threads of the worker (its manager and its queue's feeder), which cost the
worker nearly three times the CPU per call (a diagnostic measurement, docs/reliability.md). The KB
stays fresh the way several workers on one file already do: every search checks the store for
chunks written elsewhere. Until the child says it is ready (a few seconds after start-up), and
after it died until its successor is, calls run in the worker as before, so nothing waits for it.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, cast

from lastline import Answer, Settings
from lastline.backends import open_settings_storage
from lastline.embedding import Embedder, get_embedder
from lastline.kb import KnowledgeBase, SearchResult
from lastline.postgres import PostgresStorage
from lastline.storage import SQLiteStorage

__all__ = ["RETRY_FAILED_START_S", "KBSearchProcess", "open_knowledge_base"]

#: How long calls stay in the worker after a child could not start (a bad setting, no memory).
RETRY_FAILED_START_S = 30.0
#: The longest a child may take to open and warm the KB before it counts as failed to start.
START_TIMEOUT_S = 600.0
#: How often the child looks whether its worker is still there.
_PARENT_CHECK_S = 0.5
#: What a worker may ask of its child: the KB's reads, nothing that writes.
_METHODS = frozenset({"search", "answer"})


def open_knowledge_base(settings: Settings, storage: SQLiteStorage | PostgresStorage,
                        embedder: Embedder) -> KnowledgeBase:
    """The KB as ``settings`` describe it, on ``storage``: the worker's and its search process's alike."""
    name = settings.kb_english_embedder  # the KB's English vector space; "none" turns it off
    english = None if name == "none" else get_embedder(name, settings.embed_threads)
    # The English space fills in the background: a document is searchable once keyword + USE are in.
    return KnowledgeBase(storage, embedder, english_embedder=english, background_spaces=True)


# -- the child ----------------------------------------------------------------------------------

def _exit_with_parent(parent: int) -> None:
    """End the child when its worker is gone: a worker killed outright (SIGKILL, OOM) sends no word,
    and a thread blocked reading a pipe is not told either."""
    while os.getppid() == parent:
        time.sleep(_PARENT_CHECK_S)
    os._exit(0)


def _serve(kb: KnowledgeBase, conn: Connection) -> None:
    """One pipe's calls, one at a time, until the worker closes it."""
    while True:
        try:
            method, args, kwargs = conn.recv()
        except (EOFError, OSError):
            return
        try:
            if method not in _METHODS:
                raise ValueError(f"the KB's process does not run {method!r}")
            reply: tuple[bool, Any] = (True, getattr(kb, method)(*args, **kwargs))
        except Exception as exc:  # the worker raises it, as if the call had run there
            reply = (False, exc)
        try:
            conn.send(reply)
        except (EOFError, OSError):
            return
        except Exception as exc:  # a result or an error that does not pickle
            conn.send((False, RuntimeError(f"the KB's process could not send its reply: {exc!r}")))


def _child_main(settings: Settings, nice: int, parent: int, conns: list[Connection], ready: Connection) -> None:
    """Lower itself, open and warm the KB, say so, then serve every pipe until the worker closes them."""
    threading.Thread(target=_exit_with_parent, args=(parent,), name="lastline-kb-parent", daemon=True).start()
    if nice > 0:
        os.nice(nice)
    storage = open_settings_storage(settings, pool_size=len(conns))
    kb = open_knowledge_base(settings, storage, get_embedder(settings.embedder, settings.embed_threads))
    kb.warm(settings.tenants)
    ready.send(os.getpid())
    ready.close()
    threads = [threading.Thread(target=_serve, args=(kb, conn), name="lastline-kb-call") for conn in conns]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


# -- the worker's side --------------------------------------------------------------------------

class KBSearchProcess:
    """``search`` and ``answer`` of the worker's KB, run in a child process once it is ready.

    ``slots``: how many calls may run at once (the ``kb`` bulkhead's limit), one pipe each.
    """

    def __init__(self, settings: Settings, kb: KnowledgeBase, *, nice: int, slots: int,
                 observer: Callable[[str], None] | None = None) -> None:
        self.settings = settings
        self.kb = kb  # the worker's own: calls run here until the child is ready
        self.nice = nice
        self.slots = slots
        self.observer = observer  # told "process" or "worker" for every call (the server's metrics)
        self._lock = threading.Lock()
        self._process: BaseProcess | None = None
        self._pipes: queue.SimpleQueue[Connection] | None = None  # the free ones, once the child is ready
        self._all_pipes: list[Connection] = []
        self._closed = False
        self._retry_at = 0.0  # after a child that could not start, when to try again

    @property
    def ready(self) -> bool:
        return self._pipes is not None

    def pid(self) -> int | None:
        """The child's process id once it is ready (for tests and operators), else None."""
        with self._lock:
            return self._process.pid if self._process is not None and self._pipes is not None else None

    def start(self) -> None:
        """Spawn the child (if none runs) without waiting; calls switch to it once it is warm."""
        context = multiprocessing.get_context("spawn")
        with self._lock:
            if self._process is not None or self._closed or time.monotonic() < self._retry_at:
                return
            pairs = [context.Pipe() for _ in range(self.slots)]
            ready_in, ready_out = context.Pipe(duplex=False)
            process = context.Process(target=_child_main, name="lastline-kb", daemon=True,
                                      args=(self.settings, self.nice, os.getpid(), [c for _, c in pairs], ready_out))
            process.start()
            self._process, self._all_pipes = process, [p for p, _ in pairs]
        for _, child_end in pairs:
            child_end.close()
        ready_out.close()
        threading.Thread(target=self._await_ready, args=(process, ready_in, [p for p, _ in pairs]),
                         name="lastline-kb-start", daemon=True).start()

    def _await_ready(self, process: BaseProcess, ready: Connection, pipes: list[Connection]) -> None:
        try:
            started = ready.poll(START_TIMEOUT_S) and isinstance(ready.recv(), int)
        except (EOFError, OSError):  # the child ended before it was ready
            started = False
        ready.close()
        free: queue.SimpleQueue[Connection] = queue.SimpleQueue()
        for pipe in pipes:
            free.put(pipe)
        with self._lock:
            if self._process is not process:  # closed meanwhile
                return
            if started:
                self._pipes = free
                return
            self._retry_at = time.monotonic() + RETRY_FAILED_START_S  # calls stay in the worker a while
        self._lost(process)

    def search(self, query: str, **kwargs: Any) -> list[SearchResult]:
        """:meth:`KnowledgeBase.search <lastline.kb.KnowledgeBase.search>`, in the child once it is ready."""
        return cast("list[SearchResult]", self._run("search", (query,), kwargs))

    def answer(self, query: str, **kwargs: Any) -> Answer | None:
        """:meth:`KnowledgeBase.answer <lastline.kb.KnowledgeBase.answer>`, in the child once it is ready."""
        return cast("Answer | None", self._run("answer", (query,), kwargs))

    def _run(self, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        with self._lock:
            process, pipes = self._process, self._pipes
        if process is None or pipes is None:
            self.start()
            return self._in_worker(method, args, kwargs)
        pipe = pipes.get()  # as many pipes as slots: a free one is there
        try:
            pipe.send((method, args, kwargs))
            ok, value = pipe.recv()
        except (EOFError, OSError):  # the child died (before or under this call), which then runs here
            self._lost(process)
            return self._in_worker(method, args, kwargs)
        pipes.put(pipe)
        if not ok:
            raise value
        if self.observer is not None:
            self.observer("process")
        return value

    def _in_worker(self, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if self.observer is not None:
            self.observer("worker")
        fn: Callable[..., Any] = getattr(self.kb, method)
        return fn(*args, **kwargs)

    def _lost(self, process: BaseProcess) -> None:
        """The child died (killed, out of memory) or never started: forget it, spawn its successor."""
        with self._lock:
            if self._process is not process:
                return
            self._process, self._pipes, pipes, self._all_pipes = None, None, self._all_pipes, []
        _stop(process, pipes)
        self.start()

    def close(self) -> None:
        """Stop the child: after the bulkhead's threads, so no call is in flight (storage closes next)."""
        with self._lock:
            process, pipes, self._process, self._pipes, self._all_pipes = self._process, self._all_pipes, None, None, []
            self._closed = True
        if process is not None:
            _stop(process, pipes)


def _stop(process: BaseProcess, pipes: list[Connection]) -> None:
    """Close the worker's ends (the child's threads then end), wait briefly, then make sure."""
    for pipe in pipes:
        pipe.close()
    process.join(timeout=5)
    if process.is_alive():
        process.kill()
        process.join()
