"""The FastAPI application: every face of the HTTP service wired into one app.

The composition root sits above the faces it mounts (``http/`` routes, the OpenAI-compatible face
in ``openai_compat/``), so neither face imports the other's package and no cycle can form.

``create_app(settings)`` opens the runtime (storage, embedder, tiers), installs the error shape
(``{error, detail}`` everywhere), the body-size limit, admission control (bounded work in flight per
bulkhead, ``503 overloaded`` past it) and request counting, and mounts one router per concern.
The model loads and each wired tier is built (the cache's index rebuilt from SQLite) during
start-up, before ``/readyz`` says yes.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio.to_thread
from fastapi import FastAPI
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from lastline import Overloaded, Settings, __version__

from .http.admission import AdmissionControl, drain_on_sigterm
from .http.balance import HandBackSurplus
from .http.errors import install_error_handlers, lastline_error_response
from .http.limits import BodySizeLimit
from .http.routes import cache as routes_cache
from .http.routes import fallback as routes_fallback
from .http.routes import kb as routes_kb
from .http.routes import ops as routes_ops
from .http.routes import rules as routes_rules
from .http.threads import install_executor
from .ladder.metrics import Metrics
from .ladder.runtime import Runtime
from .openai_compat import routes as routes_openai
from .openai_compat.errors import OPENAI_PATHS, openai_error_response

__all__ = ["create_app"]


def _refusal(path: str, refused: Overloaded) -> Response:
    """A request shed at the door, in the error shape the client of its path reads."""
    return openai_error_response(refused) if path.startswith(OPENAI_PATHS) else lastline_error_response(refused)


class RequestCounter:
    """Counts every request by method, matched route template (not raw path) and status."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = 500

        async def send_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, send_status)
        finally:
            route = scope.get("route")
            template = getattr(route, "path", None) or "unmatched"
            self.metrics.count_request(scope.get("method", ""), template, status)


#: Net allocations of tracked objects between two youngest-generation collections (CPython's default
#: is 700). At 700 an exact-hit load at 16 clients spent ≈27 ms per second in collections after the
#: freeze below (≈107 before it); at 10,000, 0.25 ms (``bench/load.py``, "GC ms/s"). Request garbage
#: is acyclic almost all of it and freed by reference counting; what cycles there are wait a little longer.
GC_YOUNG_THRESHOLD = 10_000


def freeze_startup_heap() -> None:
    """Take what start-up built out of the garbage collector's sight, and collect less often.

    Why: models' vocabularies, the lexicons, jieba's dictionary and the rule packs leave ≈160k
    long-lived container objects; a full collection walks them all (≈80–150 ms here), a pause on
    every request in flight. They live as long as the process, so no collection needs to see them
    (``gc.freeze``). Collections then walk only what requests create, and rarely
    (``GC_YOUNG_THRESHOLD``); ``lastline_gc_pause_seconds`` shows what is left.
    """
    gc.collect()
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, older, oldest)


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the app; storage opens and the model loads at start-up, before /readyz says yes."""
    runtime = Runtime.open(settings, background=True)  # telemetry off the read path
    # Built now, on one thread: request threads then share one registry, one event store.
    metrics, _, _ = runtime.metrics, runtime.events, runtime.defaults

    bulkheads = runtime.bulkheads

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # Every admitted request gets a thread at once: the pool is as large as all bulkheads together
        # (plus room for the probes), so nothing queues between the door and the work.
        # (``semantic`` slots are taken inside ``cache`` ones, on the same threads.)
        threads = sum(b.limit for name, b in bulkheads.items() if name != "semantic") + 8
        limiter = anyio.to_thread.current_default_thread_limiter()
        limiter.total_tokens = max(limiter.total_tokens, threads)
        executor = install_executor(asyncio.get_running_loop(), threads)  # the lookup's hop (http/threads.py)
        await run_in_threadpool(runtime.build)
        runtime.kb.start_background()  # fills the KB's slower vector spaces; resumes after a restart
        runtime.start_kb_process()  # warms in the background; searches run here until it is ready
        drain_on_sigterm(app.state, bulkheads)
        stop_watching_gc = metrics.watch_gc()
        freeze_startup_heap()
        app.state.ready = True
        yield
        stop_watching_gc()
        executor.shutdown(wait=True)
        runtime.close()

    app = FastAPI(
        title="lastline",
        version=__version__,
        lifespan=lifespan,
        description="The tier an LLM agent calls when every model provider is down.",
    )
    app.state.runtime = runtime
    app.state.ready = False
    install_error_handlers(app)
    app.state.draining = False  # set on SIGTERM (lastline serve): new requests get 503 while in-flight finish
    app.add_middleware(BodySizeLimit, max_bytes=runtime.settings.max_body_bytes)
    app.add_middleware(AdmissionControl, bulkheads=bulkheads, api_keys=runtime.settings.api_keys, metrics=metrics,
                       draining=lambda: bool(app.state.draining), refusal=_refusal)
    app.add_middleware(RequestCounter, metrics=metrics)
    app.add_middleware(HandBackSurplus)  # several workers: a worker over its share of connections hands one back

    # Matched in this order (http/prefixed_router.py): the routers with a prefix of their own first, since
    # a path outside it passes them at once, the hot route first in each; then the OpenAI face (what
    # fallback chains call) and /v1/fallback, whose routers every path under /v1/ asks route by route;
    # the probes and pages last.
    app.include_router(routes_cache.router)
    app.include_router(routes_kb.router)
    app.include_router(routes_rules.router)
    app.include_router(routes_openai.router)
    app.include_router(routes_fallback.router)
    app.include_router(routes_ops.router)
    return app
