"""Admission at the door: bounded in-flight requests per kind of work, ``503 overloaded`` at once past it.

Each request that does work is classified by method and path into one bulkhead of
:mod:`lastline.admission` — ``cache`` (lookups), ``kb`` (search and answers), ``rules``, ``ladder``
(``/v1/fallback``, ``/v1/chat/completions``, other reads), ``writes`` (everything else) — and
takes one of its slots for as long as it runs. A request that finds its bulkhead full (or its tenant
holding its share) gets ``503 {"error": "overloaded"}`` with ``Retry-After`` before its body is read
(a bulkhead with a line, the KB's and the writes', lets a few wait for a slot first, briefly:
:meth:`Bulkhead.enter`);
the OpenAI face answers with the OpenAI error shape, which the SDKs retry on 503. Health, readiness,
metrics and the dashboard are never refused. While the server drains (SIGTERM), new requests are
refused the same way and the ones in flight finish.

The bounds add up to the thread pool's size, set at start-up, so an admitted request never waits
for a thread either: no queue between the socket and the work but the bulkheads' bounded lines.
"""

from __future__ import annotations

import asyncio
import signal
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import Any

from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from lastline import Overloaded
from lastline.admission import Bulkhead
from lastline.settings import DEFAULT_TENANT

from ..ladder.metrics import Metrics
from .deps import bearer_token, tenant_of_key
from .protocol import CLIENT_CLOSED_REQUEST, client_left, when_client_leaves

__all__ = ["DRAIN_GRACE_S", "AdmissionControl", "Refusal", "bulkhead_for", "drain_on_sigterm"]

#: The longest SIGTERM waits for in-flight requests before the server shuts down anyway.
DRAIN_GRACE_S = 10.0

_UNLIMITED = ("/healthz", "/readyz", "/metrics", "/dashboard", "/docs", "/openapi.json", "/redoc", "/static")


def bulkhead_for(method: str, path: str) -> str | None:
    """Which bulkhead a request takes a slot of; ``None`` for the probes and pages never refused."""
    if path.startswith(_UNLIMITED) or not path.startswith("/v1/"):
        return None
    if path in ("/v1/fallback", "/v1/chat/completions"):
        return "ladder"
    if path == "/v1/cache/lookup":
        return "cache"
    if path == "/v1/kb/search" or (path.startswith("/v1/kb/") and method == "GET"):
        return "kb"
    if path.startswith("/v1/rules/") and method == "POST" and not path.startswith("/v1/rules/packs"):
        return "rules"
    if method == "GET":
        return "cache" if path.startswith("/v1/cache/") else "ladder"
    return "writes"


def _tenant_of(keys: dict[str, str], scope: Scope) -> str:
    """The tenant whose share a request takes (``default`` without keys); unknown keys share one bucket."""
    if not keys:
        return DEFAULT_TENANT
    for name, value in scope.get("headers") or ():
        if name == b"authorization":
            token = bearer_token(value.decode("latin-1"))
            tenant = tenant_of_key(keys, token) if token is not None else None
            return tenant if tenant is not None else "?unknown"
    return "?anonymous"


#: Renders a refusal in the shape the client of that path reads (the app passes the OpenAI shape for
#: the OpenAI face, lastline's ``{error, detail}`` for the rest).
Refusal = Callable[[str, Overloaded], Response]


class AdmissionControl:
    """ASGI middleware: one bulkhead slot per request, or 503 overloaded at once."""

    def __init__(self, app: ASGIApp, bulkheads: dict[str, Bulkhead], api_keys: dict[str, str], metrics: Metrics,
                 draining: Callable[[], bool], refusal: Refusal) -> None:
        self.app = app
        self.refusal = refusal
        self.bulkheads = bulkheads
        self.api_keys = api_keys
        self.metrics = metrics
        self.draining = draining

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        name = bulkhead_for(scope.get("method", ""), scope.get("path", ""))
        if name is None:
            await self.app(scope, receive, send)
            return
        bulkhead = self.bulkheads[name]
        tenant = _tenant_of(self.api_keys, scope)
        if self.draining():
            why: str | None = "draining"
        elif bulkhead.queue:
            why = await _enter_while_connected(bulkhead, tenant, scope)
            if client_left(scope):  # out of the line, holding nothing: nobody waits for the answer
                self.metrics.abandoned.labels(bulkhead=name).inc()
                await Response(status_code=CLIENT_CLOSED_REQUEST)(scope, receive, send)
                return
        else:
            why = bulkhead.try_acquire(tenant)
        if why is not None:
            self.metrics.shed.labels(bulkhead=name, reason=why).inc()
            await self.refusal(scope.get("path", ""), bulkhead.overloaded(why))(scope, receive, send)
            return
        try:
            await self.app(scope, receive, send)
        finally:
            bulkhead.release(tenant)


async def _enter_while_connected(bulkhead: Bulkhead, tenant: str, scope: Scope) -> str | None:
    """:meth:`Bulkhead.enter`, left as soon as the client leaves (:func:`client_left` then says so, and
    no slot is held).

    Why: a caller in line waits up to the line's ``max_wait_s`` for a slot; one whose client timed
    out and asked again would otherwise take a slot and run for nobody, ahead of the callers behind it.
    """
    task = asyncio.current_task()
    assert task is not None
    forget = when_client_leaves(scope, task.cancel)
    try:
        why = await bulkhead.enter(tenant)
    except asyncio.CancelledError:
        if not client_left(scope):
            raise
        task.uncancel()
        return None
    finally:
        forget()
    if client_left(scope):  # it left as a slot came: the slot arrived first, the cancellation was lost
        if task.cancelling():
            task.uncancel()
        if why is None:
            bulkhead.release(tenant)
    return why


def drain_on_sigterm(state: Any, bulkheads: dict[str, Bulkhead], grace_s: float = DRAIN_GRACE_S) -> bool:
    """Put a drain in front of the server's own SIGTERM handler; True when installed.

    On SIGTERM ``state.draining`` turns on (new requests get 503 overloaded at once), and once no
    bulkhead has work in flight — or ``grace_s`` passed — the server's handler runs: it stops
    accepting, closes the connections and runs the app's shutdown (writer flush, WAL checkpoint).
    A second SIGTERM skips the wait. Called at start-up, from the thread that runs the server.
    """
    if threading.current_thread() is not threading.main_thread():
        return False
    server_handler = signal.getsignal(signal.SIGTERM)
    if not callable(server_handler):
        return False

    def drained() -> bool:
        return all(b.stats().in_flight == 0 for b in bulkheads.values())

    def on_sigterm(sig: int, frame: FrameType | None) -> None:
        if state.draining:
            server_handler(sig, frame)
            return
        state.draining = True

        def wait_then_stop() -> None:
            deadline = time.monotonic() + grace_s
            while not drained() and time.monotonic() < deadline:
                time.sleep(0.01)
            server_handler(sig, frame)

        threading.Thread(target=wait_then_stop, name="lastline-drain", daemon=True).start()

    signal.signal(signal.SIGTERM, on_sigterm)
    return True
