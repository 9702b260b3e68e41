"""The benches' HTTP/1.1 client: raw asyncio sockets, kept-alive connections, pre-encoded requests.

httpx's async client costs more CPU per request than lastline does: on 2 shared cores it capped
64 clients near 40 req/s even on ``/healthz``, so a bench driven by it measured httpx, not the
server. This client does only what the benches need — one request at a time per connection,
replies with ``Content-Length`` or ``Transfer-Encoding: chunked`` (uvicorn's streamed answers, SSE)
— and every HTTP bench uses it (``http_bench.py``, ``openai_bench.py``, ``load.py``).
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, TypeVar

try:
    import uvloop
except ImportError:  # no Windows build; asyncio's loop there
    uvloop = None

T = TypeVar("T")

__all__ = ["Judge", "drive", "exchange", "get_request", "post_request", "run_client"]

#: Whether one reply counts (``hit`` column): gets the status and the whole body.
Judge = Callable[[int, bytes], bool]


def run_client(main: Coroutine[Any, Any, T]) -> T:
    """Run a bench's clients on uvloop, the loop ``lastline serve`` runs on (asyncio's where absent).

    Why: the client shares the two cores it measures; what it spends on itself the servers lose,
    and its own delays are added to the latencies it reports. Against the bare app a request cost
    ``bench/load.py``'s client 61–106 µs of CPU on asyncio's loop (with ``asyncio.wait_for``, a task
    per request), 44–63 µs on uvloop (docs/reliability.md, "The benches' client").
    """
    if uvloop is None:
        return asyncio.run(main)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(main)


def post_request(host: str, path: str, body: object, headers: dict[str, str] | None = None) -> bytes:
    """A ``POST`` with a JSON body (and ``headers``), encoded once so the timed loop only writes bytes."""
    data = json.dumps(body).encode()
    extra = "".join(f"{name}: {value}\r\n" for name, value in (headers or {}).items())
    head = (f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n{extra}"
            f"Content-Length: {len(data)}\r\n\r\n")
    return head.encode() + data


def get_request(host: str, path: str) -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode()


async def exchange(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, request: bytes,
                   first: Callable[[bytes], bool] | None = None,
                   headers: dict[bytes, bytes] | None = None) -> tuple[int, bytes, float]:
    """One request on a kept-alive connection → (status, body, seconds to the first wanted bytes).

    ``first`` picks the piece of a chunked reply that counts as "first content" (an SSE chunk
    carrying text, say); without it, or for a ``Content-Length`` reply, that time is the whole
    exchange's. A reply that says ``Connection: close`` (a server worker handing the connection back
    to be opened again, where another worker takes it) closes the writer once read: callers reconnect
    when ``writer.is_closing()``, as HTTP/1.1 clients do. ``headers``, when given, gets the reply's
    header fields (lower-case names).
    """
    t0 = time.perf_counter()
    writer.write(request)
    await writer.drain()
    status = int((await reader.readline()).split()[1])
    length = 0
    chunked = closing = False
    while (line := await reader.readline()) not in (b"\r\n", b""):
        name, _, value = line.partition(b":")
        name = name.strip().lower()
        if headers is not None:
            headers[name] = value.strip()
        if name == b"content-length":
            length = int(value)
        elif name == b"transfer-encoding" and b"chunked" in value.lower():
            chunked = True
        elif name == b"connection" and b"close" in value.lower():
            closing = True
    if not chunked:
        body = await reader.readexactly(length)
        if closing:
            writer.close()
        return status, body, time.perf_counter() - t0
    parts: list[bytes] = []
    first_s: float | None = None
    while size := int((await reader.readline()).split(b";")[0], 16):
        part = await reader.readexactly(size)
        await reader.readexactly(2)  # the CRLF after each chunk
        if first_s is None and first is not None and first(part):
            first_s = time.perf_counter() - t0
        parts.append(part)
    while await reader.readline() not in (b"\r\n", b""):  # trailers, then the blank line
        pass
    total = time.perf_counter() - t0
    if closing:
        writer.close()
    return status, b"".join(parts), total if first_s is None else first_s


async def drive(base: str, requests: Sequence[bytes], concurrency: int, seconds: float, *,
                judge: Judge | None = None, first: Callable[[bytes], bool] | None = None) -> dict[str, float]:
    """``concurrency`` connections send ``requests`` back to back for ``seconds``; latency percentiles.

    Each connection walks the requests from its own offset. ``hit_rate`` is the share of replies
    ``judge`` accepts (default: status 200); ``errors`` counts statuses other than 200 and 404 (a
    404 is lastline's "no answer", an outcome, not a failure). ``first_ms`` is the median time to
    the first content ``first`` picks out of a streamed reply (the whole reply otherwise).
    """
    host, port = base.removeprefix("http://").split(":")
    accept = judge or (lambda status, _body: status == 200)
    totals: list[float] = []
    firsts: list[float] = []
    outcomes = {"hit": 0, "errors": 0}
    stop = time.perf_counter() + seconds

    async def worker(offset: int) -> None:
        reader, writer = await asyncio.open_connection(host, int(port))
        i = offset
        try:
            while time.perf_counter() < stop:
                t0 = time.perf_counter()
                status, body, first_s = await exchange(reader, writer, requests[i % len(requests)], first)
                totals.append(time.perf_counter() - t0)
                firsts.append(first_s)
                i += concurrency
                outcomes["hit"] += accept(status, body)
                outcomes["errors"] += status not in (200, 404)
                if writer.is_closing():  # the server asked for a new connection
                    reader, writer = await asyncio.open_connection(host, int(port))
        finally:
            writer.close()

    started = time.perf_counter()
    await asyncio.gather(*(worker(k) for k in range(concurrency)))
    elapsed = time.perf_counter() - started
    totals.sort()
    n = len(totals)
    return {
        "n": n, "rps": n / elapsed,
        "p50_ms": 1000 * statistics.median(totals) if n else 0.0,
        "p99_ms": 1000 * totals[min(n - 1, int(0.99 * n))] if n else 0.0,
        "first_ms": 1000 * statistics.median(firsts) if n else 0.0,
        "hit_rate": outcomes["hit"] / n if n else 0.0, "errors": outcomes["errors"],
    }
