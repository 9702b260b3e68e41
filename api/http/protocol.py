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
- **Work whose client left is dropped before it starts.** uvicorn tells an application that its
  client closed the connection only through ``receive()``, which nothing awaits once the body is
  read: a lookup queued in the lookup rounds, or a request waiting in a bulkhead's line, ran to its
  end for nobody and held its slot meanwhile, while the client (one that timed out, say) asked
  again. Our protocol runs the callbacks a request registered with :func:`when_client_leaves` when
  its connection is lost before its response is complete; nothing is watched per request.

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
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

__all__ = ["CLIENT_CLOSED_REQUEST", "WORKER_HEALTHCHECK_S", "NoDelayHttpToolsProtocol", "client_left",
           "uvicorn_options", "when_client_leaves"]

#: Seconds a worker may take to answer the supervisor's health check before it is replaced.
WORKER_HEALTHCHECK_S = 60

#: The status a request dropped because its client left is counted under (nginx's "client closed
#: request"); nobody receives it.
CLIENT_CLOSED_REQUEST = 499

#: Scope keys: the callbacks of :func:`when_client_leaves`, and whether the client has left.
_ON_LEAVING = "lastline.on_client_leaving"
_LEFT = "lastline.client_left"


def when_client_leaves(scope: MutableMapping[str, Any], callback: Callable[[], object]) -> Callable[[], None]:
    """Run ``callback`` on the event loop if the request's client closes its connection before the
    response is complete (at once if it already has); returns what un-registers it.

    Only :class:`NoDelayHttpToolsProtocol` runs the callbacks (``lastline serve``); under another
    server they are never called, and the work runs to its end as it would without them.
    """
    if client_left(scope):
        callback()
        return lambda: None
    callbacks: list[Callable[[], object]] = scope.setdefault(_ON_LEAVING, [])
    callbacks.append(callback)

    def forget() -> None:
        with contextlib.suppress(ValueError):
            callbacks.remove(callback)

    return forget


def client_left(scope: Mapping[str, Any]) -> bool:
    """Whether the request's client closed its connection before its response was complete."""
    return bool(scope.get(_LEFT))


def _no_nagle(transport: asyncio.BaseTransport) -> None:
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class NoDelayHttpToolsProtocol(HttpToolsProtocol):
    """:class:`HttpToolsProtocol` that sets ``TCP_NODELAY`` on its connection first…"""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        _no_nagle(transport)
        super().connection_made(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        """…and runs the callbacks of :func:`when_client_leaves` of a request left unanswered."""
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete:
            cycle.scope[_LEFT] = True  # type: ignore[literal-required]
            for callback in cycle.scope.pop(_ON_LEAVING, ()):  # type: ignore[misc]
                callback()
        super().connection_lost(exc)


def uvicorn_options(*, access_log: bool) -> dict[str, Any]:
    """Keyword arguments for ``uvicorn.run`` shared by every way the service is served."""
    loop = "uvloop" if importlib.util.find_spec("uvloop") is not None else "asyncio"  # none on Windows
    return {"loop": loop, "http": NoDelayHttpToolsProtocol, "access_log": access_log, "log_level": "info",
            "timeout_worker_healthcheck": WORKER_HEALTHCHECK_S}
