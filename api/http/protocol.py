"""The HTTP protocol ``lastline serve`` runs: uvicorn's, with Nagle's algorithm off on every connection.

asyncio turns ``TCP_NODELAY`` on for an accepted connection only when the listening socket reports
``IPPROTO_TCP`` as its protocol. The socket uvicorn binds itself to share between several workers
reports 0, so with ``--workers`` ≥ 2 the last segment of every response waited for the client's
delayed ACK: ≈44 ms per request on loopback, against ≈1 ms with one worker (tests/test_serve_load.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket

from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["NoDelayH11Protocol"]


class NoDelayH11Protocol(H11Protocol):
    """:class:`H11Protocol` that sets ``TCP_NODELAY`` on its connection first."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().connection_made(transport)
