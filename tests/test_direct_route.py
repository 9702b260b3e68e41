"""A direct route answers every request exactly as FastAPI's own route for the same endpoint does.

The hot routes skip FastAPI's dependency solving (``api/http/direct_route.py``); what they must not
skip is anything a client sees. So the same endpoint is declared twice in one app, once each way,
with the real request models of the four hot routes (the OpenAI face's with its own route class),
the real runtime (its API keys give the tenant) and the real error handlers, and the two are
compared on generated bodies: valid ones, wrong types and unknown fields, JSON that is not an
object, bytes that are not JSON or not UTF-8, every kind of content type, and good, unknown and
missing keys. Driven in process (httpx's ASGI transport): the route's handler is what is under
test, not the socket.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Annotated, Any

import httpx
import pytest
from fastapi import APIRouter, FastAPI, Header, Request
from fastapi.responses import Response
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from lastline import Embedder, load_settings
from lastline.api import Runtime
from lastline.api.http.deps import RuntimeDep, TenantDep
from lastline.api.http.direct_route import DirectRoute, direct_post
from lastline.api.http.errors import install_error_handlers
from lastline.api.http.routes.cache import LookupIn
from lastline.api.http.routes.kb import SearchIn
from lastline.api.ladder.ladder import FallbackRequest
from lastline.api.openai_compat.errors import OpenAIDirectRoute, OpenAIRoute
from lastline.api.openai_compat.models import ChatCompletionRequest

KEY = "key-of-acme"
MODELS: dict[str, type[BaseModel]] = {
    "lookup": LookupIn, "fallback": FallbackRequest, "search": SearchIn, "chat": ChatCompletionRequest,
}


class Echo(BaseModel):
    tenant: str
    runtime_has_settings: bool
    body: dict[str, Any]
    echo_header: str | None


def _declare(router: APIRouter, name: str, model: type[BaseModel], direct: bool) -> None:
    async def echo(body: BaseModel, request: Request, runtime: RuntimeDep, tenant: TenantDep) -> Echo:
        return Echo(tenant=tenant, runtime_has_settings=runtime.settings is not None, body=body.model_dump(),
                    echo_header=request.headers.get("x-echo"))

    # The body's model is this call's, so it is given as an object (the module's annotations are strings).
    echo.__annotations__ = {"body": model, "request": Request, "runtime": RuntimeDep, "tenant": TenantDep,
                            "return": Echo}
    if name == "chat":  # the OpenAI face: its own route class, errors in OpenAI's shape
        if direct:
            direct_post(router, f"/{name}", route_class=OpenAIDirectRoute, response_model=Echo)(echo)
        else:
            router.add_api_route(f"/{name}", echo, methods=["POST"], route_class_override=OpenAIRoute,
                                 response_model=Echo)
    elif direct:
        direct_post(router, f"/{name}", response_model=Echo)(echo)
    else:
        router.post(f"/{name}", response_model=Echo)(echo)


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> Iterator[FastAPI]:
    db = tmp_path_factory.mktemp("direct") / "lastline.db"
    runtime = Runtime.open(load_settings(db=db, kb_english_embedder="none", api_keys={KEY: "acme"}))
    app = FastAPI()
    app.state.runtime = runtime
    install_error_handlers(app)
    for way, direct in (("direct", True), ("standard", False)):
        router = APIRouter(prefix=f"/{way}")
        for name, model in MODELS.items():
            _declare(router, name, model, direct)
        app.include_router(router)
    yield app
    runtime.close()


def _both(app: FastAPI, name: str, body: bytes, headers: dict[str, str]) -> tuple[httpx.Response, httpx.Response]:
    async def go() -> tuple[httpx.Response, httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            direct = await client.post(f"/direct/{name}", content=body, headers=headers)
            standard = await client.post(f"/standard/{name}", content=body, headers=headers)
            return direct, standard
    return asyncio.run(go())


def _same(app: FastAPI, name: str, body: bytes, headers: dict[str, str]) -> httpx.Response:
    direct, standard = _both(app, name, body, headers)
    assert direct.status_code == standard.status_code, (body, headers, direct.text, standard.text)
    assert direct.content == standard.content, (body, headers)
    assert direct.headers.get("content-type") == standard.headers.get("content-type")
    return direct


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
_FIELDS = sorted({field for model in MODELS.values() for field in model.model_fields} | {"extra"})
_OBJECTS = st.dictionaries(st.sampled_from(_FIELDS), _JSON_VALUES | st.text(min_size=1, max_size=30), max_size=5)
_BODIES = (
    _OBJECTS.map(lambda obj: json.dumps(obj).encode())
    | _JSON_VALUES.map(lambda value: json.dumps(value).encode())
    | st.binary(max_size=40)
    | st.text(max_size=40).map(str.encode)
    | st.just(b"")
)
_CONTENT_TYPES = st.sampled_from([
    "application/json", "application/json; charset=utf-8", "APPLICATION/JSON", "application/vnd.api+json",
    "text/plain", "application/x-www-form-urlencoded", "", None,
])
_AUTH = st.sampled_from([f"Bearer {KEY}", "Bearer nobody", "Basic abc", None])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(sorted(MODELS)), body=_BODIES, content_type=_CONTENT_TYPES, auth=_AUTH)
def test_every_request_gets_the_answer_fastapis_own_route_gives(app: FastAPI, name: str, body: bytes,
                                                                content_type: str | None, auth: str | None) -> None:
    headers = {}
    if content_type is not None:
        headers["content-type"] = content_type
    if auth is not None:
        headers["authorization"] = auth
    _same(app, name, body, headers)


@pytest.mark.parametrize("body", [
    {"prompt": "How do I reset my password?"},
    {"prompt": "退款多久到账？", "mode": "fallback", "context": {"model": "x"}, "threshold": 0.9},
    {"query": "password", "k": 3, "filters": {"collection": "faq"}, "mode": "keyword"},
    {"prompt": "Pay invoice 42", "operation": "write", "idempotency_key": "abc-1"},
    {"model": "lastline", "messages": [{"role": "user", "content": "你好"}], "stream": True},
])
def test_valid_bodies_reach_the_endpoint_with_the_callers_tenant(app: FastAPI, body: dict[str, Any]) -> None:
    """The generated bodies are mostly refused; these are answered, for each model that takes them."""
    headers = {"content-type": "application/json", "authorization": f"Bearer {KEY}", "x-echo": "seen"}
    answered = 0
    for name, model in MODELS.items():
        response = _same(app, name, json.dumps(body).encode(), headers)
        if set(body) <= set(model.model_fields):
            assert response.status_code == 200, response.text
            echoed = response.json()
            assert echoed["tenant"] == "acme" and echoed["runtime_has_settings"] and echoed["echo_header"] == "seen"
            answered += 1
    assert answered >= 1


def test_a_deep_body_and_a_body_refused_by_its_checks_match_too(app: FastAPI) -> None:
    headers = {"content-type": "application/json", "authorization": f"Bearer {KEY}"}
    deep = b"[" * 100_000 + b"]" * 100_000  # past json's recursion limit: FastAPI's 400
    assert _same(app, "lookup", deep, headers).status_code == 400
    assert _same(app, "search", json.dumps({"query": "x", "k": 0}).encode(), headers).status_code == 422
    assert _same(app, "lookup", b'{"prompt": "x",', headers).status_code == 400  # not JSON: invalid_json
    assert _same(app, "chat", b'{"model": "x",', headers).json()["error"]["type"] == "invalid_request_error"


def test_a_route_of_another_shape_is_refused_when_declared() -> None:
    router = APIRouter()

    async def with_query(body: LookupIn, limit: int = 3) -> Response:
        return Response()

    async def with_header(body: LookupIn, x_echo: Annotated[str, Header()]) -> Response:
        return Response()

    async def without_body(tenant: TenantDep) -> Response:
        return Response()

    def not_async(body: LookupIn, tenant: TenantDep) -> Response:
        return Response()

    for endpoint in (with_query, with_header, without_body, not_async):
        with pytest.raises(TypeError, match="a direct route takes one JSON body"):
            router.add_api_route("/x", endpoint, methods=["POST"], route_class_override=DirectRoute)


def test_the_hot_routes_are_direct_routes() -> None:
    from lastline.api.http.routes import cache, fallback, kb
    from lastline.api.openai_compat import routes as openai

    kinds = {route.path: type(route) for module in (cache, fallback, kb, openai) for route in module.router.routes}
    for path in ("/v1/cache/lookup", "/v1/fallback", "/v1/kb/search"):
        assert kinds[path] is DirectRoute, path
    assert kinds["/v1/chat/completions"] is OpenAIDirectRoute
