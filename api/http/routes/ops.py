"""Operations: liveness, readiness, Prometheus ``/metrics``, the dashboard and its JSON report."""

from __future__ import annotations

import os
from importlib import resources
from typing import Annotated

from fastapi import Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response

from lastline import __version__

from ...ladder.metrics import CONTENT_TYPE
from ...ladder.reports import hit_rate_report
from ...ladder.runtime import Runtime
from ..deps import RuntimeDep, TenantDep
from ..prefixed_router import PrefixedRouter

__all__ = ["is_ready", "router"]

router = PrefixedRouter(tags=["ops"])



def is_ready(request: Request) -> tuple[bool, dict[str, bool]]:
    """Model loaded, every wired tier built (the cache's index rebuilt from SQLite), the lookup path and the
    KB's search structures warm."""
    runtime: Runtime = request.app.state.runtime
    checks = {"started": bool(request.app.state.ready), "model_loaded": runtime.embedder.loaded}
    for tier in ("cache", "kb", "rules"):
        checks[f"{tier}_built"] = tier in vars(runtime)
    checks["cache_warm"] = runtime.warm_tokens is not None
    checks["kb_warm"] = runtime.kb_warmed is not None
    return all(checks.values()), checks


_LANDING = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>lastline {version}</title></head>
<body><h1>lastline {version}</h1>
<p>The tier an LLM agent calls when every model provider is down.</p>
<ul>
<li><a href="/dashboard">/dashboard</a>: hit rate, answers by source, recent degradation</li>
<li><a href="/docs">/docs</a>: the HTTP API (OpenAPI)</li>
<li><a href="/metrics">/metrics</a>: Prometheus metrics</li>
<li><a href="/healthz">/healthz</a>, <a href="/readyz">/readyz</a>: liveness and readiness</li>
</ul></body></html>
"""


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
def landing() -> HTMLResponse:
    """Where a browser lands: the version and links to the dashboard, the API docs and the metrics."""
    return HTMLResponse(_LANDING.format(version=__version__))


@router.get("/healthz")
def healthz() -> dict[str, str]:
    """Liveness: the process answers."""
    return {"status": "ok"}


@router.get("/readyz", responses={503: {"description": "Still starting."}})
def readyz(request: Request) -> JSONResponse:
    """Readiness: storage open, the model loaded, the cache index built, its lookup path and the KB warm."""
    ready, checks = is_ready(request)
    runtime: Runtime = request.app.state.runtime
    body = {"status": "ready" if ready else "starting", "model": runtime.embedder.name, "checks": checks,
            "warm_tokens": runtime.warm_tokens, "kb_warmed": runtime.kb_warmed,
            "pid": os.getpid()}  # which worker answered (lastline serve --workers N)
    return JSONResponse(body, status_code=200 if ready else 503)


@router.get("/metrics", response_class=Response)
def metrics(runtime: RuntimeDep) -> Response:
    """Prometheus text exposition of this app's registry."""
    return Response(runtime.metrics.render(), media_type=CONTENT_TYPE)


@router.get("/dashboard", response_class=HTMLResponse)
def dashboard() -> HTMLResponse:
    """Hit rate over time, hits by layer, answers by source/confidence, recent events.

    Multi-tenant servers: open ``/dashboard#key=<API key>``; the key stays in the browser.
    """
    html = resources.files("lastline.api.http").joinpath("static/dashboard.html").read_text(encoding="utf-8")
    return HTMLResponse(html)


@router.get("/dashboard/{name}", include_in_schema=False)
def dashboard_asset(name: str) -> Response:
    types = {"dashboard.js": "text/javascript", "dashboard.css": "text/css"}
    if name not in types:
        return JSONResponse({"error": "not_found", "detail": f"no asset {name}"}, status_code=404)
    data = resources.files("lastline.api.http").joinpath(f"static/{name}").read_bytes()
    return Response(data, media_type=types[name])


@router.get("/v1/reports/hit-rate", tags=["reports"])
def hit_rate(
    runtime: RuntimeDep,
    tenant: TenantDep,
    window: Annotated[int, Query(ge=60, le=90 * 86400, description="Seconds back from now.")] = 3600,
    buckets: Annotated[int, Query(ge=1, le=48, description="Points in the series.")] = 12,
) -> dict[str, object]:
    """The dashboard's data: cache hit rate (as /v1/cache/stats), its series, layers, answers."""
    return hit_rate_report(runtime, tenant, window_s=window, buckets=buckets)
