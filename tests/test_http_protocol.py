"""Every connection of ``lastline serve`` has Nagle's algorithm off, with one worker or several.

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

from lastline.api.http.protocol import NoDelayHttpToolsProtocol


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

