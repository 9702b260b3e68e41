"""Random ids (lookup ids, entry ids, completion ids) without a system call for each.

``uuid.uuid4()`` reads 16 bytes through ``os.urandom``, and CPython lets go of the interpreter lock
around that ``getrandom`` call. On a busy worker that is the expensive part: the thread that let go
waits to take the lock back from the event loop or the lookup rounds, once per lookup (a py-spy
profile of the lookup rounds found them there in 5 % of its samples). So the bytes come from the
same kernel source in blocks: one ``os.urandom`` call per :data:`BLOCK_IDS` ids. The ids are as
unpredictable as ``uuid4``'s and keep its form (32 hex digits, version 4); a forked child drops its
parent's block, so no two processes hand out the same id.
"""

from __future__ import annotations

import os
import threading
import uuid

__all__ = ["BLOCK_IDS", "random_hex_id"]

#: Ids drawn from one read of the kernel's random source.
BLOCK_IDS = 256
_ID_BYTES = 16


class _RandomBlocks:
    """Random bytes handed out 16 at a time from blocks read at once; thread-safe, fork-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._block = b""
        self._at = 0

    def take(self) -> bytes:
        with self._lock:
            if self._at >= len(self._block):
                self._block, self._at = os.urandom(_ID_BYTES * BLOCK_IDS), 0
            start, self._at = self._at, self._at + _ID_BYTES
            return self._block[start:self._at]

    def forget(self) -> None:
        """Drop the block (a forked child must not repeat its parent's ids); a fresh lock too."""
        self._lock = threading.Lock()
        self._block, self._at = b"", 0


_BLOCKS = _RandomBlocks()
os.register_at_fork(after_in_child=_BLOCKS.forget)


def random_hex_id() -> str:
    """A random version-4 UUID as 32 hex digits, the form ``uuid.uuid4().hex`` gives."""
    return uuid.UUID(bytes=_BLOCKS.take(), version=4).hex
