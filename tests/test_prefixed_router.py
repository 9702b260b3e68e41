"""PrefixedRouter answers "no match" from its prefix alone, and routes exactly as an APIRouter otherwise.

Driven in process through FastAPI's own routing (httpx's ASGI transport): what is under test is
which endpoint a path reaches, including under a root path (an app mounted inside another), where
the path the routes see is not the request's whole path.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from starlette.applications import Starlette
from starlette.routing import BaseRoute, Match, Mount
from starlette.types import Scope

from lastline.api.app import create_app
from lastline.api.http.prefixed_router import PrefixedRouter


def _app() -> FastAPI:
    cache = PrefixedRouter(prefix="/v1/cache")
    for name in ("entries", "lookup", "stats"):
        cache.add_api_route(f"/{name}", lambda name=name: {"route": f"cache {name}"}, methods=["POST"])
    cache.add_api_route("", lambda: {"route": "cache root"}, methods=["GET"])
    wide = PrefixedRouter(prefix="/v1")
    wide.add_api_route("/fallback", lambda: {"route": "fallback"}, methods=["POST"])
    wide.add_api_route("/cache-like", lambda: {"route": "not the cache"}, methods=["POST"])
    bare = PrefixedRouter()
    bare.add_api_route("/healthz", lambda: {"route": "healthz"}, methods=["GET"])
    app = FastAPI()
    for router in (cache, wide, bare):
        app.include_router(router)
    return app


def _call(app: object, method: str, path: str) -> httpx.Response:
    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            return await client.request(method, path)
    return asyncio.run(go())


def test_each_path_reaches_its_route_and_only_its_route() -> None:
    app = _app()
    for method, path, route in [
        ("POST", "/v1/cache/lookup", "cache lookup"), ("POST", "/v1/cache/stats", "cache stats"),
        ("GET", "/v1/cache", "cache root"), ("POST", "/v1/fallback", "fallback"),
        ("POST", "/v1/cache-like", "not the cache"), ("GET", "/healthz", "healthz"),
    ]:
        response = _call(app, method, path)
        assert response.status_code == 200 and response.json() == {"route": route}, path
    assert _call(app, "GET", "/v1/cache/lookup").status_code == 405  # the path is there, the method not
    assert _call(app, "POST", "/v1/cache/nothing").status_code == 404
    assert _call(app, "POST", "/v2/cache/lookup").status_code == 404


def test_under_a_root_path_the_prefix_is_read_below_it() -> None:
    parent = Starlette(routes=[Mount("/under", app=_app())])
    assert _call(parent, "POST", "/under/v1/cache/lookup").json() == {"route": "cache lookup"}
    assert _call(parent, "POST", "/under/v1/fallback").json() == {"route": "fallback"}
    assert _call(parent, "GET", "/under/healthz").json() == {"route": "healthz"}


def test_a_path_outside_the_prefix_passes_the_router_without_asking_its_routes() -> None:
    app = _app()
    cache = next(route.original_router for route in app.router.routes
                 if getattr(route, "original_router", None) is not None and route.original_router.prefix == "/v1/cache")
    asked: list[str] = []
    for route in cache.routes:
        def counted(scope: Scope, route: BaseRoute = route) -> tuple[Match, Scope]:
            asked.append(scope["path"])
            return type(route).matches(route, scope)
        route.matches = counted  # type: ignore[method-assign]
    assert _call(app, "POST", "/v1/fallback").json() == {"route": "fallback"}
    assert asked == []  # an APIRouter would have asked each of its four routes
    assert _call(app, "POST", "/v1/cache/stats").json() == {"route": "cache stats"}
    assert asked  # and inside its prefix it asks them as before


def test_every_router_of_the_service_is_prefixed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """So every router the service includes is passed from its prefix (api/app.py orders them)."""
    monkeypatch.setenv("LASTLINE_DB", str(tmp_path / "routes.db"))
    app = create_app()
    try:
        included = [route for route in app.router.routes if hasattr(route, "original_router")]
        assert included, "FastAPI no longer keeps included routers: the prefix check is never asked"
        assert all(isinstance(route.original_router, PrefixedRouter) for route in included)
        assert [route.original_router.prefix for route in included][:3] == ["/v1/cache", "/v1/kb", "/v1/rules"]
    finally:
        app.state.runtime.close()
