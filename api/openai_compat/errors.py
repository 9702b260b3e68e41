"""Errors on the OpenAI-compatible face, in OpenAI's shape: ``{"error": {message, type, code, param}}``.

The rest of the API answers ``{error, detail}``; OpenAI clients (the openai SDK, LiteLLM,
LangChain) read ``error.message`` / ``error.code`` instead, so routes of this face use
:class:`OpenAIRoute`, which turns lastline errors and request validation errors into that shape.

What the clients do with each status (checked against openai 3.x, LiteLLM 1.110, LangChain 1.x):

- Nothing answers: **422** ``no_fallback_answer`` (``/v1/fallback`` says 404). A 404 would be
  surfaced fine by the openai SDK and LangChain, but LiteLLM's Router puts a deployment that
  answered 404 (or 401/408/429/5xx) into cooldown (5 s by default): the next questions, even ones
  lastline could answer, would fail with "No deployments available". 4xx other than those are not
  cooled down and not retried: ``openai.UnprocessableEntityError``, ``litellm.BadRequestError``.
- 409 ``no_degraded_writes`` → ``openai.ConflictError`` / ``litellm.APIError(409)``. The openai SDK
  retries 409 by default (it reads it as a lock timeout), so every 4xx here carries
  ``x-should-retry: false``, which the SDK honours: one request, one refusal, no loop. LiteLLM's
  Router retries 409 itself ``num_retries`` times (default 2): bounded, each refused, nothing done.
- 400 ``invalid_input`` (validation), 401 ``unauthorized``, 413 ``payload_too_large``: errors,
  not retried. 503s keep the SDK's default retry (storage or model briefly unavailable).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute

from lastline import InvalidInput, LastlineError, NoFallbackAnswer, PayloadTooLarge

from ..http.direct_route import DirectRoute

__all__ = [
    "NO_ANSWER_STATUS", "OPENAI_PATHS", "OpenAIDirectRoute", "OpenAIRoute", "openai_error", "openai_error_response",
]

#: The paths of this face: a request refused before it reaches a route (shed at the door) still gets
#: the error shape its client reads.
OPENAI_PATHS = ("/v1/chat/completions", "/v1/models")

#: Status of "no tier could answer" on this face (see the module docstring for why not 404).
NO_ANSWER_STATUS = 422

_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    404: "not_found_error",
    409: "conflict_error",
    413: "invalid_request_error",
}


def openai_error(
    status: int, message: str, code: str, *, param: str | None = None, kind: str | None = None, **extra: Any
) -> JSONResponse:
    """An OpenAI-shaped error response; 4xx responses tell the openai SDK not to retry.

    A ``retry_after_s`` extra (overloaded) is also sent as ``Retry-After``, which the SDKs wait for
    before their retry of a 503.
    """
    kind = kind or _TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
    body = {"error": {"message": message, "type": kind, "code": code, "param": param, **extra}}
    headers = {"x-should-retry": "false"} if status < 500 else {}
    if extra.get("retry_after_s") is not None:
        headers["retry-after"] = str(extra["retry_after_s"])
    return JSONResponse(body, status_code=status, headers=headers)


def openai_error_response(exc: LastlineError) -> JSONResponse:
    status = exc.status
    if isinstance(exc, InvalidInput) and not isinstance(exc, PayloadTooLarge):
        status = 400  # what OpenAI-compatible servers answer for a bad request
    if isinstance(exc, NoFallbackAnswer):
        status = NO_ANSWER_STATUS
        return openai_error(status, exc.detail, exc.code, kind="not_found_error", **exc.extra)
    return openai_error(status, exc.detail, exc.code, **exc.extra)


def _from_validation(exc: RequestValidationError) -> JSONResponse:
    errors = list(exc.errors())
    first = errors[0] if errors else {"loc": ("body",), "msg": "invalid request"}
    loc = [str(p) for p in first.get("loc", ()) if p != "body"]
    param = ".".join(loc) or None
    message = f"{param}: {first.get('msg')}" if param else str(first.get("msg"))
    return openai_error(400, message, "invalid_input", param=param)


class OpenAIRoute(APIRoute):
    """An APIRoute whose lastline and validation errors come out in OpenAI's error shape."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def route_handler(request: Request) -> Response:
            try:
                return await handler(request)
            except RequestValidationError as exc:
                return _from_validation(exc)
            except LastlineError as exc:
                return openai_error_response(exc)

        return route_handler


class OpenAIDirectRoute(OpenAIRoute, DirectRoute):
    """The chat completion's route: a :class:`DirectRoute` (the hot path) whose errors come out in
    OpenAI's shape."""
