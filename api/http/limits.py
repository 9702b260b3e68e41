"""The request body limit (``max_body_bytes``), as ASGI middleware that refuses before reading.

A ``Content-Length`` above the limit gets 413 at once; a chunked body is counted as it streams and
stopped at the first chunk past the limit. Each text field's own limit (``max_prompt_chars``) is
checked by :func:`lastline.api.ladder.text_limits.check_text_lengths`.
"""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .errors import error_body

__all__ = ["BodySizeLimit"]


class BodySizeLimit:
    """Refuse request bodies over ``max_bytes`` with 413 ``payload_too_large``."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None:
            try:
                size = int(declared)
            except ValueError:
                size = -1
            if size < 0:
                await JSONResponse(error_body("bad_request", "invalid Content-Length"), 400)(scope, receive, send)
                return
            if size > self.max_bytes:
                detail = f"request body of {size} bytes exceeds the limit of {self.max_bytes} bytes"
                await JSONResponse(error_body("payload_too_large", detail), 413)(scope, receive, send)
                return
        received = 0
        limit = self.max_bytes

        async def counted_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise HTTPException(413, f"request body exceeds the limit of {limit} bytes")
            return message

        await self.app(scope, counted_receive, send)
