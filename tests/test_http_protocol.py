"""Every connection of ``lastline serve`` has Nagle's algorithm off, with one worker or several,
and a request whose client leaves before its answer runs what it registered for that.

The listening socket uvicorn binds to share between workers reports protocol 0, and asyncio then
leaves ``TCP_NODELAY`` off on the connections it accepts: responses waited ≈40 ms for the client's
delayed ACK. The control case shows the condition is real here, so the check can fail.
"""

from __future__ import annotations

import asyncio
import socket

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState

from lastline.api.http.protocol import NoDelayHttpToolsProtocol, client_left, when_client_leaves


async def _asgi(scope: dict[str, object], receive: object, send: object) -> None:  # never called
    raise AssertionError("no request is sent")


async def _nodelay_of_accepted(protocol: type[HttpToolsProtocol]) -> int:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)  # as uvicorn binds for several workers
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    assert listener.proto == 0
    config = uvicorn.Config(app=_asgi, log_level="warning")
    config.load()
    state = ServerState()
    seen: asyncio.Queue[int] = asyncio.Queue()

    class Probe(protocol):  # type: ignore[misc, valid-type]
        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            seen.put_nowait(transport.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))

    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: Probe(config=config, server_state=state, app_state={}), sock=listener)
    _, writer = await asyncio.open_connection(*listener.getsockname())
    try:
        return await asyncio.wait_for(seen.get(), 10)
    finally:
        writer.close()
        await writer.wait_closed()
        for connection in list(state.connections):
            connection.transport.close()
        server.close()
        await server.wait_closed()


def test_plain_uvicorn_protocol_leaves_nagle_on_for_a_shared_worker_socket() -> None:
    assert asyncio.run(_nodelay_of_accepted(HttpToolsProtocol)) == 0


def test_our_protocol_turns_nagle_off_on_every_connection() -> None:
    assert asyncio.run(_nodelay_of_accepted(NoDelayHttpToolsProtocol)) != 0



async def _serve_once(app: object, answer_first: bool) -> tuple[list[str], dict[str, object]]:
    """One GET to ``app`` served by our protocol, the client closing its connection after the reply
    (``answer_first``) or without waiting for one; what the callbacks recorded and the request's scope."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    config = uvicorn.Config(app=app, log_level="warning")
    config.load()
    state = ServerState()
    loop = asyncio.get_running_loop()
    server = await loop.create_server(
        lambda: NoDelayHttpToolsProtocol(config=config, server_state=state, app_state={}), sock=listener)
    reader, writer = await asyncio.open_connection(*listener.getsockname())
    try:
        writer.write(b"GET /work HTTP/1.1\r\nHost: test\r\n\r\n")
        if answer_first:
            assert (await asyncio.wait_for(reader.readline(), 10)).startswith(b"HTTP/1.1 200")
        else:
            await asyncio.wait_for(app.started.wait(), 10)  # type: ignore[attr-defined]
        writer.close()
        await writer.wait_closed()
        for _ in range(100):  # the server sees the connection go within a few loop turns
            if not state.connections:
                break
            await asyncio.sleep(0.01)
        return app.calls, app.scope  # type: ignore[attr-defined]
    finally:
        app.release.set()  # type: ignore[attr-defined]
        server.close()
        await server.wait_closed()


class _Recorder:
    """An ASGI app that registers two callbacks for its client leaving, un-registers one, then answers
    at once or waits to be released."""

    def __init__(self, answer: bool) -> None:
        self.answer = answer
        self.calls: list[str] = []
        self.scope: dict[str, object] = {}
        self.started = asyncio.Event()
        self.release = asyncio.Event()

    async def __call__(self, scope: dict[str, object], receive: object, send: object) -> None:
        if scope["type"] != "http":
            return
        self.scope = scope
        when_client_leaves(scope, lambda: self.calls.append("kept"))
        when_client_leaves(scope, lambda: self.calls.append("forgotten"))()
        self.started.set()
        if self.answer:
            await send({"type": "http.response.start", "status": 200, "headers": []})  # type: ignore[operator]
            await send({"type": "http.response.body", "body": b"done"})  # type: ignore[operator]
            return
        await self.release.wait()


def test_a_request_whose_client_leaves_before_its_answer_runs_what_it_registered() -> None:
    async def main() -> None:
        calls, scope = await _serve_once(_Recorder(answer=False), answer_first=False)
        assert calls == ["kept"]  # the un-registered one never runs
        assert client_left(scope)
        when_client_leaves(scope, lambda: calls.append("late"))  # registered after it left: run at once
        assert calls == ["kept", "late"]

    asyncio.run(main())


def test_a_request_answered_before_its_client_leaves_runs_nothing() -> None:
    async def main() -> None:
        calls, scope = await _serve_once(_Recorder(answer=True), answer_first=True)
        assert calls == []
        assert not client_left(scope)

    asyncio.run(main())
