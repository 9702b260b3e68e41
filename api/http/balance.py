"""Spread kept-alive connections evenly over the workers of ``lastline serve --workers N``.

The workers share one listening socket and race to accept from it, and the race is lopsided:
measured with two workers, 16 connections opened one after another split 16/0, 3/13 or 5/11, and 64
split 14/50. Agents keep their connections open, so a lopsided split lasts: one worker holds more
connections than its cache bulkhead has slots and sheds (``503 overloaded``) while the other idles.
``bench/load.py`` on one PostgreSQL database, two runs each: two workers served exact hits at 16
clients at 1,019–1,157 req/s and shed 302–539 requests at 64; two single-worker replicas given
8 connections each served 1,391–1,560 and shed none (semantic lookups at 64 clients: 2,300–4,484 shed
against none). ``SO_REUSEPORT`` does not help: the kernel hashes connections over the sockets, and
16 connections still split 4/12.

So a worker accepts only while it holds at most one connection more than the least loaded of its
siblings. Each worker publishes its count of open connections in shared memory
(:class:`ConnectionShare`, one slot per worker, with a heartbeat so a dead worker's slot is ignored);
a worker over its share stops watching the socket for a moment and leaves the connection to a
sibling. If no sibling has taken it after :data:`DEFER_S` (a sibling busy in a long request), it
takes the connection itself: a caller never waits long for a balance. A sibling whose heartbeat is
older than :data:`KEEPING_UP_S` is not weighed at all: its event loop is too busy to accept soon. That
is every worker in a flood of new connections, and then each takes its backlog as fast as its loop comes
back to the socket.

A split made at accept time can still go wrong: counts are published every few milliseconds, a
worker whose event loop is busy neither publishes nor accepts, and a burst of connections closing and
opening at once (a client pool replaced) is weighed against counts from before it. Measured: 64
connections opened right after 16 had closed split 38/26 on a loaded machine, and that split lasted
the whole run. So a worker holding three or more connections more than its least loaded sibling
asks one caller to reconnect: ``Connection: close`` on its next response (:class:`HandBackSurplus`),
at most one every :data:`HAND_BACK_EVERY_S`. HTTP/1.1 clients (the SDKs' pools, ``wrk``) open a new
connection, which the accept step gives to the sibling. Past :data:`HAND_BACK_BELOW` connections the
surplus must be an eighth of what the worker holds (:data:`LARGE_SURPLUS`): a wave of 256 connections
once split 192/64 (``wrk``, a server just started), and the fuller worker shed for the whole run.

A wave of connections (a fleet turning to lastline at once, a 5× burst) is the other way a split goes
wrong, slowly: every worker is busy answering the connections it already took, and each took one
or two per turn of its event loop before it was one ahead of its sibling and left the rest queued.
Measured (``bench/load.py``, two workers): exact hits at 256 clients had a p99 of 204 ms and their
slowest answers at 0.5–0.7 s, 1,280 clients connecting at once a p99 of 1.4–1.5 s; with a first
version of the rule below, 124–127 ms, 0.23 s and 0.50–0.53 s (docs/reliability.md, "Several
workers, one file", which also has how connections opened at once split, bench/worker_balance.py).
So a worker that is ahead of its least loaded sibling
still accepts while it holds less than its part of every connection, the queued ones counted
(:func:`accept_queue_length`, read from the kernel), short of a margin: in a wave each worker takes
most of its part at once, and the rule above shares the last few; with at most one connection queued
this adds nothing to it.

uvicorn builds each worker's server inside its ``Process`` class (``uvicorn.supervisors.multiprocess``,
as of uvicorn 0.55); :func:`balanced_workers` puts :class:`BalancedProcess` in its place for the
lifetime of the supervisor. ``tests/test_serve_balance.py`` fails if a uvicorn release moves that and
the workers stop being balanced.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import select
import socket
import struct
import time
from collections.abc import Iterator
from typing import Any

import uvicorn
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.supervisors import multiprocess

__all__ = ["DEFER_S", "HAND_BACK_BELOW", "LARGE_SURPLUS", "BalancedProcess", "BalancedServer", "ConnectionShare",
           "HandBackSurplus", "accept_queue_length", "balanced_workers"]

log = logging.getLogger(__name__)

#: The longest a worker over its share leaves a waiting connection to its siblings: long enough for
#: a sibling on a loaded machine to wake and accept it, short beside a connection's life.
DEFER_S = 0.05
#: Connections a worker may hold above its least loaded sibling before it leaves new ones to it.
SLACK = 1
#: Connections above its least loaded sibling past which a worker hands one back: one more than the
#: accept step leaves, so a connection handed back is not accepted again by the same worker ...
SURPLUS = SLACK + 1
#: Past this many connections a worker hands one back only when it holds a :data:`LARGE_SURPLUS` of them
#: more than its least loaded sibling: in a flood of hundreds of connections per worker a caller sent
#: to reconnect waits for a busy sibling's loop (a 5× burst of 1,280 clients had its slowest requests at
#: 3–5 s with hand-backs at a surplus of three, about 1 s without), but a wave split 192/64 at 256
#: clients, which the fuller worker's bulkheads cannot hold, must not last the whole flood.
HAND_BACK_BELOW = 100
#: The share of its own connections a worker past :data:`HAND_BACK_BELOW` may hold above its least
#: loaded sibling before it hands one back: 256 connections settle no further apart than 136/120,
#: which the default 144 ``semantic`` slots per worker hold.
LARGE_SURPLUS = 1 / 8
#: The least time between two connections one worker hands back: a hand-back shows in the counts only
#: once the caller has closed it.
HAND_BACK_EVERY_S = 0.05
#: A sibling that has not published for this long has a busy event loop (it publishes from a timer): it
#: will not accept soon, so a worker neither leaves connections to it nor hands any back for it. In a
#: 5x burst every loop is busy; weighing the siblings anyway, the last connections still waited ≈5 s to
#: be accepted with ACCEPT_BATCH at 128, against ≈1.7 s leaving lagging siblings out.
KEEPING_UP_S = 0.1
#: How many connections short of its part of a wave a worker stops taking it at once, leaving the
#: last ones to the rule of one ahead at most: a worker that took its whole part weighed a wave still
#: arriving, and the last connections went to whichever worker woke first.
WAVE_MARGIN = 4
#: How often a deferring worker looks at the socket again.
RECHECK_S = 0.001
#: How often a worker publishes its count (and proves it is alive).
PUBLISH_S = 0.02
#: A slot whose heartbeat is older than this belongs to no running worker.
STALE_S = 1.0
#: How long a worker waits to accept again after accepting failed (no file descriptor left).
ACCEPT_RETRY_S = 0.1
#: The most connections one readable event accepts (the share is weighed after each). A busy loop comes
#: back to the socket once per turn, which in a 5x burst takes a few hundred milliseconds: at 16 per
#: turn the last of 1,280 connections waited ≈5 s to be accepted, at 128 ≈1.7 s.
ACCEPT_BATCH = 128
_FIELDS = 2  # per slot: open connections, heartbeat (time.monotonic, the same clock in every process)


#: ``struct tcp_info`` up to ``tcpi_unacked`` (Linux ``<linux/tcp.h>``): eight one-byte fields, then
#: ``rto``, ``ato``, ``snd_mss``, ``rcv_mss``, ``unacked``. On a listening socket the kernel reports its
#: accept queue's length in ``tcpi_unacked``.
_TCP_INFO_TO_UNACKED = struct.Struct("8B5I")


def accept_queue_length(sock: socket.socket) -> int:
    """Connections the kernel has established on a listening socket that no worker has accepted yet.

    0 where the kernel does not say (not Linux, not TCP): the balance then weighs open connections only.
    """
    tcp_info = getattr(socket, "TCP_INFO", None)
    if tcp_info is None:
        return 0
    try:
        info = sock.getsockopt(socket.IPPROTO_TCP, tcp_info, _TCP_INFO_TO_UNACKED.size)
    except OSError:
        return 0
    if len(info) < _TCP_INFO_TO_UNACKED.size:
        return 0
    return int(_TCP_INFO_TO_UNACKED.unpack(info)[-1])


class ConnectionShare:
    """Open connections per worker, in memory shared by the supervisor and its workers.

    Reads and writes are not locked: a count a few milliseconds old only makes a split one
    connection less even. Claiming a slot is locked, so two workers starting together never share one.
    """

    def __init__(self, slots: int = 64) -> None:
        ctx = multiprocessing.get_context("spawn")  # uvicorn spawns its workers
        self._values = ctx.RawArray("d", slots * _FIELDS)
        self._lock = ctx.Lock()
        self.slots = slots

    def claim(self) -> int:
        """A free slot for the calling worker (one whose heartbeat is stale)."""
        with self._lock:
            now = time.monotonic()
            for slot in range(self.slots):
                if now - self._values[slot * _FIELDS + 1] > STALE_S:
                    self.publish(slot, 0)
                    return slot
        raise RuntimeError(f"more than {self.slots} workers share one socket")

    def publish(self, slot: int, connections: int) -> None:
        """The worker's count and its heartbeat: published from a timer, so its age shows how far the
        worker's event loop lags."""
        self._values[slot * _FIELDS] = connections
        self._values[slot * _FIELDS + 1] = time.monotonic()

    def recount(self, slot: int, connections: int) -> None:
        """The worker's count alone, at once (as it accepts): no heartbeat, which only its timer gives."""
        self._values[slot * _FIELDS] = connections

    def release(self, slot: int) -> None:
        self._values[slot * _FIELDS] = 0
        self._values[slot * _FIELDS + 1] = 0

    def held_elsewhere(self, slot: int, published_within_s: float = STALE_S) -> list[float]:
        """The connections each other worker holds, of those that published within ``published_within_s``
        (default: every live one)."""
        now = time.monotonic()
        return [self._values[s * _FIELDS] for s in range(self.slots)
                if s != slot and now - self._values[s * _FIELDS + 1] <= published_within_s]

    def fewest_elsewhere(self, slot: int, published_within_s: float = STALE_S) -> float:
        """The fewest connections another worker holds (as :meth:`held_elsewhere`); infinity when there
        is none."""
        return min(self.held_elsewhere(slot, published_within_s), default=float("inf"))


class BalancedServer(uvicorn.Server):
    """A uvicorn worker that accepts from the shared socket itself, while it is not over its share."""

    def __init__(self, config: uvicorn.Config, share: ConnectionShare) -> None:
        super().__init__(config)
        self._share = share
        self._slot = -1
        self._listeners: list[socket.socket] = []
        self._pending = 0  # accepted, no protocol made for it yet
        self._arriving: set[Any] = set()  # protocols made, until their connection is set up
        self._deferred_since: float | None = None
        self._publisher: asyncio.TimerHandle | None = None
        self._connecting: set[asyncio.Task[None]] = set()
        self._handed_back_at = 0.0

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        if not sockets:
            await super().startup(sockets)
            return
        await super().startup([])  # the lifespan, the state; no listener of uvicorn's own
        if self.should_exit or not self.started:
            return
        self._slot = self._share.claim()
        HandBackSurplus.server = self
        self._listeners = sockets
        loop = asyncio.get_running_loop()
        for sock in sockets:
            sock.listen(self.config.backlog)  # the supervisor bound it; create_server would listen
            sock.setblocking(False)
            loop.add_reader(sock.fileno(), self._readable, sock)
        self._publish()

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        loop = asyncio.get_running_loop()
        for sock in self._listeners:
            loop.remove_reader(sock.fileno())
        self._listeners = []
        if self._publisher is not None:
            self._publisher.cancel()
        if self._slot >= 0:
            self._share.release(self._slot)
        await super().shutdown(sockets)

    # -- accepting --------------------------------------------------------------------------------
    def _open(self) -> int:
        """Connections held, each counted once: uvicorn adds a protocol to its connections (in
        ``connection_made``) a loop turn before :meth:`_connect` learns it is set up, and a wave's batch
        counted twice meanwhile was weighed, and published, as that many connections more."""
        connections = self.server_state.connections
        return len(connections) + self._pending + sum(1 for p in self._arriving if p not in connections)

    def _publish(self) -> None:
        self._share.publish(self._slot, self._open())
        self._publisher = asyncio.get_running_loop().call_later(PUBLISH_S, self._publish)

    def _fewest_elsewhere(self) -> float:
        """The fewest connections a sibling holds, among those whose loop keeps up (:data:`KEEPING_UP_S`)."""
        return self._share.fewest_elsewhere(self._slot, KEEPING_UP_S)

    def _queued(self) -> int:
        return sum(accept_queue_length(sock) for sock in self._listeners)

    def _over_share(self) -> bool:
        """Ahead of the least loaded sibling by more than :data:`SLACK`, unless a wave queued behind it
        leaves room: one more connection may be taken while that keeps this worker :data:`WAVE_MARGIN`
        short of its part of all connections, the queued ones counted, and no further ahead of the least
        loaded sibling than the rest of the queue could make up (with at most one queued, no room)."""
        siblings = self._share.held_elsewhere(self._slot, KEEPING_UP_S)
        held = self._open()
        if not siblings:
            return False
        fewest = min(siblings)
        if held <= fewest + SLACK:
            return False
        queued = self._queued()
        part = (held + sum(siblings) + queued) / (len(siblings) + 1)
        return held + 1 > min(part - WAVE_MARGIN, fewest + SLACK + queued)

    def hands_back_a_connection(self) -> bool:
        """True when the connection of the response being sent should close (see the module docstring)."""
        now = time.monotonic()
        if now - self._handed_back_at < HAND_BACK_EVERY_S:
            return False
        held = self._open()
        surplus = SURPLUS if held <= HAND_BACK_BELOW else max(SURPLUS, int(held * LARGE_SURPLUS))
        if held <= self._fewest_elsewhere() + surplus:
            return False
        if self._queued():  # a wave still being taken: the siblings are about to take their part
            return False
        self._handed_back_at = now
        return True

    def _readable(self, sock: socket.socket) -> None:
        loop = asyncio.get_running_loop()
        if self._over_share():
            now = time.monotonic()
            if self._deferred_since is None:
                self._deferred_since = now
            if now - self._deferred_since < DEFER_S:
                loop.remove_reader(sock.fileno())
                loop.call_later(RECHECK_S, self._recheck, sock)
                return
        self._deferred_since = None
        for _ in range(ACCEPT_BATCH):
            try:
                conn, _ = sock.accept()
            except (BlockingIOError, InterruptedError):
                return  # a sibling took it
            except OSError as exc:  # out of file descriptors, …: the kernel keeps it queued
                log.warning("accept failed (%s); accepting again in %.1f s", exc, ACCEPT_RETRY_S)
                loop.remove_reader(sock.fileno())  # a readable socket would wake the loop at once, forever
                loop.call_later(ACCEPT_RETRY_S, self._recheck, sock)
                return
            conn.setblocking(False)
            self._pending += 1
            self._share.recount(self._slot, self._open())
            task = loop.create_task(self._connect(conn))
            self._connecting.add(task)  # the loop keeps only a weak reference to a task
            task.add_done_callback(self._connecting.discard)
            if self._over_share():
                return

    def _recheck(self, sock: socket.socket) -> None:
        """Watch the socket again; a connection a sibling took ends the deferral."""
        if not self._listeners:
            return  # shutting down
        waiting = select.poll()  # poll, not select: no limit on the descriptor's number
        waiting.register(sock.fileno(), select.POLLIN)
        with contextlib.suppress(OSError):
            if not waiting.poll(0):
                self._deferred_since = None
        asyncio.get_running_loop().add_reader(sock.fileno(), self._readable, sock)

    async def _connect(self, conn: socket.socket) -> None:
        config = self.config
        protocol: Any = None

        def make_protocol() -> Any:
            nonlocal protocol
            protocol = config.http_protocol_class(  # type: ignore[call-arg]
                config=config, server_state=self.server_state, app_state=self.lifespan.state)
            self._pending -= 1
            self._arriving.add(protocol)
            return protocol

        try:
            await asyncio.get_running_loop().connect_accepted_socket(make_protocol, conn)
        except OSError:
            conn.close()
        finally:
            if protocol is None:
                self._pending -= 1
            else:
                self._arriving.discard(protocol)


class HandBackSurplus:
    """ASGI middleware: ``Connection: close`` on a response while this worker holds a surplus of
    connections (a no-op unless the process serves as a balanced worker)."""

    server: BalancedServer | None = None  # this worker process's server, set at its start-up

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        server = HandBackSurplus.server
        if server is None or scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_maybe_closing(message: Message) -> None:
            if message["type"] == "http.response.start" and server.hands_back_a_connection():
                message = {**message, "headers": [*message.get("headers", ()), (b"connection", b"close")]}
            await send(message)

        await self.app(scope, receive, send_maybe_closing)


class BalancedProcess(multiprocess.Process):
    """uvicorn's worker process, serving with a :class:`BalancedServer`."""

    share: ConnectionShare | None = None  # set by balanced_workers before any worker is made

    def __init__(self, config: uvicorn.Config, sockets: list[socket.socket]) -> None:
        self._share = BalancedProcess.share  # pickled with the process into the worker
        super().__init__(config, sockets)

    @property
    def server(self) -> uvicorn.Server:
        if self._server is None:
            assert self._share is not None
            self._server = BalancedServer(self.config, self._share)
        return self._server


@contextlib.contextmanager
def balanced_workers() -> Iterator[None]:
    """uvicorn's multi-worker supervisor, within this block, starts balanced workers."""
    original: Any = multiprocess.Process
    BalancedProcess.share = ConnectionShare()
    multiprocess.Process = BalancedProcess  # type: ignore[misc]
    try:
        yield
    finally:
        multiprocess.Process = original  # type: ignore[misc]
        BalancedProcess.share = None
