"""The request body limit (``max_body_bytes``), as ASGI middleware that refuses before reading.

A ``Content-Length`` above the limit gets 413 at once; a chunked body is counted as it streams and
stopped at the first chunk past the limit. Each text field's own limit (``max_prompt_chars``) is
checked by :func:`lastline.api.ladder.text_limits.check_text_lengths`.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["BodySizeLimit"]


def _send_json(status: int, body: dict[str, Any]) -> list[Message]:
    data = json.dumps(body).encode()
    return [
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())],
        },
        {"type": "http.response.body", "body": data},
    ]


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
                for message in _send_json(400, {"error": "bad_request", "detail": "invalid Content-Length"}):
                    await send(message)
                return
            if size > self.max_bytes:
                detail = f"request body of {size} bytes exceeds the limit of {self.max_bytes} bytes"
                for message in _send_json(413, {"error": "payload_too_large", "detail": detail}):
                    await send(message)
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
