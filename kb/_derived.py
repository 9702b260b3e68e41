"""Per-tenant structures derived from the store: built past a size threshold, rebuilt when stale.

Why one piece: the KB's two accelerators — the in-memory BM25 postings (:mod:`lastline.kb._bm25`)
and the HNSW graphs of a vector space (:mod:`lastline.kb._ann`) — keep their structures the same
way, and the rules that make that safe are easy to get subtly wrong twice:

- One structure per tenant, so no search can meet another tenant's rows.
- A tenant without one has its size read at most every ``recheck_s`` (a search must not count the
  tenant's chunks each time), and gets one built once it reaches ``threshold``.
- A build reads the store into a new structure aside — in a background thread in the service, inline
  in tests and benches — and swaps it in whole; a search holding the old one keeps a consistent
  view. One build per tenant at a time; a build that finds the tenant below the threshold (or the
  source not ready: ``make`` returns None) drops the tenant's structure instead.
- Changes since the snapshot (rows written or deleted, which every accelerator tracks its own way)
  past ``rebuild_fraction`` of the structure start a rebuild (:meth:`TenantStructures.stale`).
- ``clear()`` forgets everything (the store's rows were rewritten); the store stays the truth, so
  losing a structure loses nothing. For the same reason a background build that fails (a storage
  error) is logged and dropped, and the next check retries.
- ``stop_builds()`` comes before the store closes: no build starts after it, a running one stops at its
  next batch (``make`` reads ``stopping``) and is waited for. A build's thread reading on a
  connection that the storage closes under it crashed the process (a segmentation fault in
  SQLite's cursor, seen when a test closed its KB while a build was reading).

What a structure is and how it is searched stays with its accelerator: this module knows only how
many rows the tenant has (``size``), how to build one (``make``) and how many rows one holds (``len``).
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable, Sized
from typing import Generic, Protocol, TypeVar

from lastline.admission import BACKGROUND_NICE, lower_thread_priority

__all__ = ["BuildPolicy", "TenantStructures"]

T = TypeVar("T", bound=Sized)
log = logging.getLogger(__name__)


class BuildPolicy(Protocol):
    """The part of an accelerator's settings that says when its structures are built and rebuilt."""

    @property
    def threshold(self) -> int: ...

    @property
    def recheck_s(self) -> float: ...

    @property
    def rebuild_fraction(self) -> float: ...

    @property
    def background(self) -> bool: ...


class TenantStructures(Generic[T]):
    """One derived structure per tenant, built from the store past ``policy.threshold`` rows.

    ``size(tenant)``: the tenant's rows in the store (an upper bound is fine). ``make(tenant)``: a
    new structure from the store as it is now, or None when the source cannot give a complete one.
    ``name`` names the build threads (``kb-<name>-<tenant>``).
    """

    def __init__(self, name: str, policy: BuildPolicy, *, size: Callable[[str], int],
                 make: Callable[[str], T | None]) -> None:
        self.name = name
        self.policy = policy
        self._size = size
        self._make = make
        self._items: dict[str, T] = {}
        self._checked: dict[str, float] = {}
        self._building: set[str] = set()
        self._threads: set[threading.Thread] = set()
        #: Set by :meth:`stop_builds`: a ``make`` reading the store in batches returns None at the next one.
        self.stopping = threading.Event()
        #: Held while a structure is swapped in or changed in place (tombstones, appends).
        self.lock = threading.Lock()
        #: Structures built so far (tests and the benches read it).
        self.builds = 0

    def current(self, tenant: str) -> T | None:
        """The tenant's structure as it is, without starting anything."""
        return self._items.get(tenant)

    def get(self, tenant: str) -> T | None:
        """The tenant's structure; without one, starts a build when the tenant has grown past the threshold.

        The size is read at most every ``recheck_s``. An inline build (``background`` off) is
        returned at once.
        """
        if tenant not in self._items and self.due(tenant) and self._size(tenant) >= self.policy.threshold:
            self.start_build(tenant)
        return self._items.get(tenant)

    def warm(self, tenant: str) -> T | None:
        """The tenant's structure, built now in this thread if it has none and is past the threshold.

        For a serving start. Left to the first search, the build runs in the background, at low
        priority, and the store answers meanwhile: a flood of searches paid for sqlite-vec and FTS5
        while it ran (py-spy during `bench/load.py`'s KB flood: 15 % of the servers' samples in it).
        """
        current = self._items.get(tenant)
        return current if current is not None else self.build(tenant)

    def building(self, tenant: str) -> bool:
        return tenant in self._building

    def due(self, tenant: str) -> bool:
        """True at most once every ``recheck_s`` per tenant (the size check, an accelerator's own recheck)."""
        now = time.monotonic()
        if now - self._checked.get(tenant, -math.inf) < self.policy.recheck_s:
            return False
        self._checked[tenant] = now
        return True

    def stale(self, tenant: str, changed: int, of: int) -> bool:
        """Start a rebuild when ``changed`` rows (new plus dead) pass ``rebuild_fraction`` of ``of``."""
        if changed > max(1, int(self.policy.rebuild_fraction * of)):
            self.start_build(tenant)
            return True
        return False

    def drop(self, tenant: str, item: T) -> None:
        """Forget ``item`` if it is still the tenant's structure (it no longer matches the store)."""
        with self.lock:
            if self._items.get(tenant) is item:
                del self._items[tenant]

    def replace(self, tenant: str, update: Callable[[T], T]) -> T | None:
        """Swap in ``update(current)`` under the lock; None (and no call) when the tenant has none."""
        with self.lock:
            item = self._items.get(tenant)
            if item is None:
                return None
            item = self._items[tenant] = update(item)
            return item

    def start_build(self, tenant: str) -> None:
        """Build in a thread (or inline, per ``background``) unless a build of this tenant is running."""
        with self.lock:
            if tenant in self._building or self.stopping.is_set():
                return
            self._building.add(tenant)
            thread = (threading.Thread(target=self._build_in_background, args=(tenant,),
                                       name=f"kb-{self.name}-{tenant}", daemon=True)
                      if self.policy.background else None)
            if thread is not None:
                self._threads.add(thread)
        if thread is None:
            self.build(tenant)
        else:
            thread.start()

    def _build_in_background(self, tenant: str) -> None:
        lower_thread_priority(BACKGROUND_NICE)  # searches meanwhile use the store's own search
        try:
            self.build(tenant)
        except Exception as exc:  # the store failed: searches keep the store's own
            log.warning("kb %s: building tenant %r's structure failed (%s); the store answers its searches",
                        self.name, tenant, type(exc).__name__)
        finally:
            with self.lock:
                self._threads.discard(threading.current_thread())

    def stop_builds(self, timeout_s: float = 30.0) -> bool:
        """Start no more builds, stop the running ones at their next batch and wait for them (at most
        ``timeout_s`` in all); True when none is left running."""
        self.stopping.set()
        with self.lock:
            threads = list(self._threads)
        deadline = time.monotonic() + timeout_s
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        left = [t.name for t in threads if t.is_alive()]
        if left:
            log.warning("kb %s: %s still building after %.0f s when stopped", self.name, ", ".join(left), timeout_s)
        return not left

    def build(self, tenant: str) -> T | None:
        """Build (or rebuild) the tenant's structure now, in this thread, and swap it in."""
        with self.lock:
            self._building.add(tenant)
        try:
            item = self._make(tenant) if self._size(tenant) >= self.policy.threshold else None
            with self.lock:
                if item is None or len(item) < self.policy.threshold:
                    self._items.pop(tenant, None)
                    return None
                self._items[tenant] = item
                self.builds += 1
                return item
        finally:
            with self.lock:
                self._building.discard(tenant)

    def clear(self) -> None:
        """Forget every structure (the store's rows were rewritten, or the space reset)."""
        with self.lock:
            self._items.clear()
            self._checked.clear()
