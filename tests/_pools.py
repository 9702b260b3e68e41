"""Ingest with worker pools made deterministic: the batches after the first go to the workers."""

from __future__ import annotations

from lastline.kb import KnowledgeBase
from lastline.kb._ingest import Progress


def wait_for_pools(kb: KnowledgeBase, seen: set[int] | None = None) -> Progress:
    """A progress callback that waits for a started pool's workers to load their model.

    An ingest starts its pool without waiting and encodes in-process until the workers are up; a
    test that must exercise the workers blocks here (before the next file) until they are.
    ``seen`` collects the worker counts of the pools met.
    """

    def watch(done: int, total: int, source: str) -> None:
        for pool in kb.indexer.pools.values():
            pool.wait_ready()
            if seen is not None:
                seen.add(pool.workers)

    return watch
