"""How ``lastline serve`` runs uvicorn: event loop, HTTP parser, Nagle off, no access log.

- **Nagle off on every connection.** asyncio turns ``TCP_NODELAY`` on for an accepted connection
  only when the listening socket reports ``IPPROTO_TCP`` as its protocol. The socket uvicorn binds
  itself to share between several workers reports 0, so with ``--workers`` ≥ 2 the last segment of
  every response waited for the client's delayed ACK: ≈44 ms per request on loopback, against
  ≈1 ms with one worker (tests/test_serve_load.py). Our protocol sets it first.
- **uvloop and httptools** (dependencies; uvloop has no Windows build, where asyncio's loop
  runs): the profile of a kept-alive exact-hit lookup spent most of its event-loop time in h11's
  pure-Python parser and writer and asyncio's selector loop. Measured with ``bench/load.py``'s
  mixes on one worker, server CPU per request at 16 clients: exact hits 2.7 → 1.7 ms, the bare
  app 1.7 → 0.6 ms (h11 and asyncio before).
- **No access log line per request**: formatting and writing it was a measurable share of an
  exact hit. Every request is counted by route and status in ``/metrics`` instead
  (``lastline_requests_total``); ``LASTLINE_ACCESS_LOG=true`` turns the lines back on.

- **A worker has a minute to answer the supervisor's health check** (uvicorn's default is 5 s):
  a spawned worker answers only once it has imported the application, and on a busy 2-core host
  (load average 10) that took longer, so with ``--workers 2`` the supervisor killed and respawned
  every worker before it could start, and the server never became ready. A hung worker is still
  replaced, a minute later.

``bench/load.py`` serves its bare ceiling app with :func:`uvicorn_options` too, so the ratio to
it measures the application, not the server underneath.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import socket
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

__all__ = ["WORKER_HEALTHCHECK_S", "NoDelayHttpToolsProtocol", "uvicorn_options"]

#: Seconds a worker may take to answer the supervisor's health check before it is replaced.
WORKER_HEALTHCHECK_S = 60


def _no_nagle(transport: asyncio.BaseTransport) -> None:
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class NoDelayHttpToolsProtocol(HttpToolsProtocol):
    """:class:`HttpToolsProtocol` that sets ``TCP_NODELAY`` on its connection first."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        _no_nagle(transport)
        super().connection_made(transport)


def uvicorn_options(*, access_log: bool) -> dict[str, Any]:
    """Keyword arguments for ``uvicorn.run`` shared by every way the service is served."""
    loop = "uvloop" if importlib.util.find_spec("uvloop") is not None else "asyncio"  # none on Windows
    return {"loop": loop, "http": NoDelayHttpToolsProtocol, "access_log": access_log, "log_level": "info",
            "timeout_worker_healthcheck": WORKER_HEALTHCHECK_S}
