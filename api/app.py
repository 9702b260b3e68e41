"""The FastAPI application: HTTP face of lastline."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from lastline import LastlineError, Settings, __version__

from .runtime import Runtime

__all__ = ["create_app"]


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the app; storage opens and the model loads at start-up, before /readyz says yes."""
    runtime = Runtime.open(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await run_in_threadpool(runtime.embedder.load)
        app.state.ready = True
        yield
        runtime.close()

    app = FastAPI(title="lastline", version=__version__, lifespan=lifespan)
    app.state.runtime = runtime
    app.state.ready = False

    @app.exception_handler(LastlineError)
    async def _lastline_error(request: Request, exc: LastlineError) -> JSONResponse:
        return JSONResponse(exc.to_dict(), status_code=exc.status)

    @app.get("/healthz", tags=["ops"])
    def healthz() -> dict[str, str]:
        """Liveness: the process answers."""
        return {"status": "ok"}

    @app.get("/readyz", tags=["ops"])
    def readyz() -> JSONResponse:
        """Readiness: storage open and the model loaded."""
        ready = bool(app.state.ready) and runtime.embedder.loaded
        body = {"status": "ready" if ready else "starting", "model": runtime.embedder.name}
        return JSONResponse(body, status_code=200 if ready else 503)

    return app
