"""Every error the HTTP face returns has one shape: ``{"error": code, "detail": text, ...}``.

- :class:`lastline.LastlineError` → its own status and code (409 writes keep ``idempotency_key``).
- Request validation (pydantic) → 422 ``invalid_input`` with ``detail`` naming the first bad
  field (``body.prompt: String should have at most 32000 characters``) and ``fields`` listing all.
- Malformed JSON → 400 ``invalid_json``; unknown route → 404 ``not_found``; wrong method → 405
  ``method_not_allowed``; any other HTTP exception keeps its status with a snake_case code.
- Anything unexpected → 500 ``internal_error`` with no internals in the body (logged server-side).
"""

from __future__ import annotations

import json
import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from lastline import LastlineError, Overloaded

__all__ = ["error_body", "install_error_handlers", "lastline_error_response"]

log = logging.getLogger("lastline.api")

_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    409: "conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "invalid_input",
    429: "too_many_requests",
}


def error_body(code: str, detail: str, **extra: Any) -> dict[str, Any]:
    return {"error": code, "detail": detail, **extra}


def _loc(loc: tuple[Any, ...] | list[Any]) -> str:
    return ".".join(str(part) for part in loc) or "body"


def _jsonable(value: Any) -> Any:
    """Error extras as JSON: kept when they serialize, else their text (an error must never 500)."""
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return str(value)[:500]
    return value


def lastline_error_response(exc: LastlineError) -> JSONResponse:
    """A lastline error as its response; ``retry_after_s`` (overloaded, shed) becomes ``Retry-After``."""
    body = {k: _jsonable(v) for k, v in exc.to_dict().items()}
    retry = exc.extra.get("retry_after_s")
    headers = {"retry-after": str(retry)} if retry is not None else None
    return JSONResponse(body, status_code=exc.status, headers=headers)


def validation_response(exc: RequestValidationError) -> JSONResponse:
    errors = list(exc.errors())
    if any(err.get("type") == "json_invalid" for err in errors):
        first = next(err for err in errors if err.get("type") == "json_invalid")
        ctx = first.get("ctx") or {}
        detail = f"request body is not valid JSON: {ctx.get('error', 'parse error')}"
        return JSONResponse(error_body("invalid_json", detail), status_code=400)
    fields = [
        {"loc": _loc(err.get("loc", ())), "msg": str(err.get("msg", "")), "type": str(err.get("type", ""))}
        for err in errors
    ]
    first = fields[0] if fields else {"loc": "body", "msg": "invalid request"}
    detail = f"{first['loc']}: {first['msg']}"
    if len(fields) > 1:
        detail += f" (and {len(fields) - 1} more)"
    return JSONResponse(error_body("invalid_input", detail, fields=fields), status_code=422)


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers that give every error response the ``{error, detail}`` shape."""

    @app.exception_handler(LastlineError)
    async def _lastline_error(request: Request, exc: LastlineError) -> JSONResponse:
        if exc.status >= 500 and not isinstance(exc, Overloaded):  # a shed request is counted, not logged
            log.error("%s on %s %s: %s", exc.code, request.method, request.url.path, exc.detail)
        return lastline_error_response(exc)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        return validation_response(exc)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = _CODES.get(exc.status_code, "http_error" if exc.status_code < 500 else "internal_error")
        detail = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
        if exc.status_code == 404 and detail == "Not Found":
            detail = f"no route {request.method} {request.url.path}"
        return JSONResponse(error_body(code, detail), status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return JSONResponse(error_body("internal_error", "internal error; see the server log"), status_code=500)
