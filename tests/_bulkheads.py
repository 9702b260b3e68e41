"""Driving a bulkhead's line from a test without racing it."""

from __future__ import annotations

import threading
import time

from lastline.admission import Bulkhead


def release_once_someone_waits(bulkhead: Bulkhead, tenant: str, patience_s: float = 5.0) -> threading.Thread:
    """Gives back a held slot from another thread once a caller is in line. A timer would race the
    caller: on a slow host it can fire before the caller gets to the line, and then nobody waits."""
    def release() -> None:
        deadline = time.monotonic() + patience_s
        while bulkhead.stats().waiting == 0 and time.monotonic() < deadline:
            time.sleep(0.002)
        bulkhead.release(tenant)

    thread = threading.Thread(target=release, daemon=True)
    thread.start()
    return thread
