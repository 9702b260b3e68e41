"""A stand-in for a third-party model provider: an OpenAI-shaped server that echoes the question.

Used where a test needs a *working* upstream (write-back of fresh answers); lastline itself is
never stood in for.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route


async def _chat(request: Request) -> JSONResponse:
    body = await request.json()
    question = body["messages"][-1]["content"]
    return JSONResponse({
        "id": "chatcmpl-upstream", "object": "chat.completion", "created": 0, "model": body["model"],
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": f"Upstream says: {question}"}}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10},
    })


@contextmanager
def running_upstream() -> Iterator[str]:
    """Serve the stand-in on a free loopback port (in a thread) and yield its ``/v1`` base URL."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    app = Starlette(routes=[Route("/v1/chat/completions", _chat, methods=["POST"])])
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
