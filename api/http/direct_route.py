"""A route that hands its endpoint the JSON body, the runtime and the tenant itself.

Why: FastAPI solves a route's dependencies anew for every request: it resolves each ``Depends``
(cache keys, security scopes, whether the callable is a coroutine), builds the query parameters and
cookies whether or not the route takes any, and parses the ``content-type`` header with
:mod:`email`. A py-spy profile of exact hits at 64 clients found ``solve_dependencies`` in 12.5 % of
the server's samples, against 0.7 % for validating the body itself, on a route whose only
dependencies are the runtime and the caller's tenant (docs/reliability.md, with the figures after).

The hot routes (the cache lookup, ``/v1/fallback``, the KB search, the OpenAI face's chat
completion) are declared as usual, so the OpenAPI schema, the 422s and the response bytes stay
FastAPI's; only the handler differs. It reads the body as FastAPI does (same ``content-type``
rules, same ``json_invalid`` error), validates it with FastAPI's own :func:`request_body_to_args`,
serializes a returned model with FastAPI's own :func:`serialize_response`, and resolves the tenant
with :func:`get_tenant`. A route of another shape is refused when the app is built, not served
differently.
"""

from __future__ import annotations

import email.message
import inspect
import json
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

from fastapi import Request, Response, params
from fastapi.datastructures import DefaultPlaceholder
from fastapi.dependencies.utils import request_body_to_args
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute, APIRouter, serialize_response
from pydantic_core import PydanticUndefined
from starlette.exceptions import HTTPException

from .deps import get_runtime, get_tenant

__all__ = ["DirectRoute", "direct_post"]

Endpoint = TypeVar("Endpoint", bound=Callable[..., Awaitable[Any]])

#: The dependencies a direct route resolves itself (each takes the request alone): nothing else.
_RESOLVED: tuple[Callable[[Request], Awaitable[Any]], ...] = (get_runtime, get_tenant)


def _json_media(content_type: str) -> bool:
    """FastAPI's test of a JSON ``content-type`` (``application/json`` or ``application/*+json``)."""
    if content_type == "application/json":  # what nearly every client sends: no header parsing
        return True
    message = email.message.Message()
    message["content-type"] = content_type
    subtype = message.get_content_subtype()
    return message.get_content_maintype() == "application" and (subtype == "json" or subtype.endswith("+json"))


async def _read_body(request: Request) -> Any:
    """The request body as FastAPI's handler reads it for a JSON body parameter, with its errors.

    Nothing (``PydanticUndefined``) for an empty body (the "Field required" 422), the parsed JSON
    for a JSON content type, else the raw bytes, which fail validation as FastAPI's do (with no
    content type too: FastAPI's default is a strict content type). A body that is not JSON is
    FastAPI's ``json_invalid``; one that cannot be read or parsed otherwise (too deep, not UTF-8)
    its 400.
    """
    try:
        raw = await request.body()
        if not raw:
            return PydanticUndefined
        content_type = request.headers.get("content-type")
        if not content_type or not _json_media(content_type):
            return raw
        return json.loads(raw)
    except json.JSONDecodeError as error:
        raise RequestValidationError(
            [{"type": "json_invalid", "loc": ("body", error.pos), "msg": "JSON decode error", "input": {},
              "ctx": {"error": error.msg}}], body=error.doc) from error
    except HTTPException:  # the body's size limit (``http/limits.py``)
        raise
    except Exception as error:
        raise HTTPException(400, "There was an error parsing the body") from error


class DirectRoute(APIRoute):
    """An ``APIRoute`` for an ``async`` endpoint that takes one JSON body model and any of the
    request, the runtime and the tenant, and nothing else."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        dependant = self.dependant
        others = (dependant.path_params or dependant.query_params or dependant.header_params
                  or dependant.cookie_params or dependant.response_param_name
                  or dependant.background_tasks_param_name or dependant.http_connection_param_name)
        resolvers: dict[str, Callable[[Request], Awaitable[Any]]] = {
            dep.name: dep.call for dep in dependant.dependencies if dep.name and dep.call in _RESOLVED}
        if (others or len(resolvers) != len(dependant.dependencies) or len(dependant.body_params) != 1
                or self.body_field is None or isinstance(self.body_field.field_info, params.Form)
                or not isinstance(self.response_class, DefaultPlaceholder)
                or not inspect.iscoroutinefunction(self.endpoint)):
            raise TypeError(f"{self.path}: a direct route takes one JSON body and the request, the runtime "
                            "and/or the tenant only, in an async endpoint that answers JSON")
        body_params = dependant.body_params
        body_name = body_params[0].name
        request_name = dependant.request_param_name
        endpoint = self.endpoint
        response_field = self.response_field
        by_alias = self.response_model_by_alias
        status_code = self.status_code or 200

        async def handler(request: Request) -> Response:
            body = await _read_body(request)  # FastAPI's order: the body read, the dependencies, then its checks
            kwargs = {name: await resolve(request) for name, resolve in resolvers.items()}
            values, errors = await request_body_to_args(body_params, body, embed_body_fields=False)
            if errors:
                raise RequestValidationError(errors, body=None if body is PydanticUndefined else body)
            kwargs[body_name] = values[body_name]
            if request_name:
                kwargs[request_name] = request
            returned = await endpoint(**kwargs)
            if isinstance(returned, Response):
                return returned
            content = await serialize_response(field=response_field, response_content=returned,
                                               by_alias=by_alias, dump_json=response_field is not None)
            if response_field is None:
                return JSONResponse(content, status_code=status_code)
            return Response(content, status_code=status_code, media_type="application/json")

        return handler


def direct_post(router: APIRouter, path: str, *, route_class: type[DirectRoute] = DirectRoute,
                **route: Any) -> Callable[[Endpoint], Endpoint]:
    """``@direct_post(router, path, ...)``: ``@router.post(path, ...)`` served by a :class:`DirectRoute`
    (or a subclass that also shapes its errors, as the OpenAI face's does)."""

    def declare(endpoint: Endpoint) -> Endpoint:
        router.add_api_route(path, endpoint, methods=["POST"], route_class_override=route_class, **route)
        return endpoint

    return declare
