"""A background worker that fills the slower vector spaces (the English MiniLM space) after ingest.

Ingest makes documents searchable as soon as their keyword rows and primary vectors are written;
a space marked *background* gets its vectors here, batch by batch, each batch its own transaction.
Nothing is queued in memory: the work list is "chunks this space holds but has no vector for"
(:meth:`~lastline.kb._store.VectorIndex.missing`), so a restart — or another process that wrote
the chunks — resumes exactly where the last batch ended. While a space has chunks pending, search
leaves it out (results come from the spaces that are complete) and status reports its progress.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass

from lastline.admission import BACKGROUND_NICE, lower_thread_priority
from lastline.embedding import Embedder
from lastline.encoder_pool import EncoderPool

from ._spaces import VectorSpace
from ._store import VectorIndex
from ._vectors import fill_space
from ._writer import POOL_MIN_TEXTS

__all__ = ["SpaceFiller", "SpaceProgress"]

POLL_S = 5.0  # how often an idle worker looks for chunks another process wrote
BATCH = 32  # chunks per encode + transaction: small, so a stop (shutdown) waits seconds, not minutes


@dataclass
class SpaceProgress:
    """One background space: vectors written by this worker and what was last seen pending."""

    name: str
    done: int = 0
    pooled: int = 0  # of ``done``, encoded by worker processes (a bulk fill, ``run_once(workers=)``)
    pending: int = 0
    running: bool = False
    error: str | None = None


class SpaceFiller:
    """Fills ``spaces`` in a daemon thread; ``kick()`` after a write, ``stop()`` before closing storage.

    ``on_ready(name, ready)`` is called when a space is found to have chunks pending (False) and
    each time it has none left (True), so search can leave an incomplete space out. ``reads`` says
    how much of each chunk a space's model is fed (``KBConfig.reads``), the same as at write time.
    """

    def __init__(
        self, spaces: Sequence[tuple[VectorIndex, Embedder]], on_ready: Callable[[str, bool], None],
        poll_s: float = POLL_S, reads: Callable[[VectorSpace], int | None] | None = None,
    ) -> None:
        self.spaces = list(spaces)
        self.reads = reads
        self.on_ready = on_ready
        self.poll_s = poll_s
        self.progress = {index.space.name: SpaceProgress(index.space.name) for index, _ in self.spaces}
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="kb-space-filler", daemon=True)
            self._thread.start()

    def kick(self) -> None:
        self._wake.set()

    def stop(self, timeout: float = 30.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def run_once(self, progress: Callable[[str, int, int], None] | None = None, workers: int = 1) -> int:
        """Fill every space now, from the calling thread; returns the vectors written.

        ``workers > 1`` encodes in that many processes of the space's model (each loads it: worth it
        for a bulk fill, such as ``kb ingest`` finishing the English space before it exits).
        """
        written = 0
        for index, embedder in self.spaces:
            state = self.progress[index.space.name]
            state.pending = index.pending()
            if state.pending == 0:
                self.on_ready(index.space.name, True)
                continue
            self.on_ready(index.space.name, False)
            state.running = True
            try:
                def report(done: int, total: int, name: str = index.space.name) -> None:
                    self.progress[name].pending = total - done
                    if progress is not None:
                        progress(name, done, total)

                chars = None if self.reads is None else self.reads(index.space)
                processes = workers if state.pending >= POOL_MIN_TEXTS else 1  # else starting them costs more
                with (EncoderPool(embedder.name, processes, model_id=embedder.model_id) if processes > 1
                      else nullcontext()) as pool:
                    n = fill_space(index, embedder, batch=BATCH * processes, progress=report,
                                   should_stop=self._stop.is_set, chars=chars, pool=pool)
                if pool is not None:
                    state.pooled += n
            finally:
                state.running = False
            state.done += n
            written += n
            if not self._stop.is_set():
                state.pending = index.pending()
                if state.pending == 0:
                    self.on_ready(index.space.name, True)
        return written

    def _run(self) -> None:
        lower_thread_priority(BACKGROUND_NICE)  # filling waits for the CPU that requests leave
        while not self._stop.is_set():
            try:
                self.run_once()
            except Exception as exc:  # a storage error: record it, say it in status, retry next round
                for state in self.progress.values():
                    state.error = f"{type(exc).__name__}: {exc}"
            self._wake.wait(self.poll_s)
            self._wake.clear()
