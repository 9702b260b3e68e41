"""Load on a real ``lastline serve``: throughput against a bare FastAPI app, overload, isolation, soak.

One run starts two servers on 127.0.0.1 — ``lastline serve`` on a scratch SQLite file, and a bare
FastAPI app (this file, ``--bare``) with one POST endpoint that takes the same JSON body through
pydantic — and drives both with the raw-socket client of ``bench/_http_client.py`` on uvloop (kept-alive
connections, pre-encoded requests; httpx caps near 40 req/s here). Throughput is reported as a ratio
to the bare app measured in the same run, so a machine shared with other work does not move the goal.

Data: the cache holds ``--entries`` questions (``question1`` of the QQP validation pairs); the KB
holds ``--kb-docs`` short Chinese FAQ questions of BQ (``kb/bq_faq_dev``) plus the demo folder.
Fixed mixes, each at rising concurrency:

- ``bare``        the bare app (the ceiling);
- ``floor``       a server that refuses every request with a constant ``503 overloaded``, no framework
                  (this file, ``--floor``; one process per core, like ``lastline serve``'s workers):
                  what the client sees of the cheapest refusal a Python server can write, the floor
                  under the burst's refusal target;
- ``exact``       ``POST /v1/cache/lookup`` with a stored question (hash lookup, no embedding);
- ``semantic``    ``POST /v1/cache/lookup`` (fallback mode) with its pair's other question: embedded,
                  searched, guarded; hit or miss as the threshold decides. After the pairs come fresh
                  questions of the training split, and each row starts where the one before stopped,
                  so no text repeats until all 62,000 have been sent (the embedder's memo of recent
                  texts never answers: every lookup pays its encode);
- ``retry``       the same, over 200 of those questions again and again: agents retrying the same
                  chains in an outage (the embedder's memo answers after the first round);
- ``mixed``       the failover flood as it comes: agents replaying questions the cache holds beside
                  agents asking new ones (``exact`` and ``semantic`` bodies in turn, so with an even
                  number of clients half send only the one kind and half only the other); the report
                  gives the p99 of its hits (the replayed questions) and of its other answers;
- ``chat``        ``POST /v1/chat/completions`` (model ``lastline``) with a stored question as the one user
                  message: the OpenAI face of a fallback chain, answered by the ladder's exact cache hit;
- ``fallback_kb`` ``POST /v1/fallback`` with a BQ query: cache miss, no rule, answered by the KB (or 404);
- ``insert``      ``POST /v1/cache/entries`` with fresh questions (QQP training split);
- ``kb_search``   ``POST /v1/kb/search`` with a BQ query;

then a burst (5 × the top level at once), a KB flood beside cache traffic, and with ``--soak S`` a
paced run at 80 % of the semantic capacity measured just before it, with RSS sampled. Every request is bounded by a
client timeout; anything that is not a 2xx/404 is counted by status.

    python bench/load.py                       # print the tables (≈4 minutes)
    python bench/load.py --write               # also replace "## Under load" in docs/benchmarks.md
    python bench/load.py --soak 600 --write    # add the 10-minute soak
    python bench/load.py --mixes exact,semantic --levels 16 --seconds 3   # a quick look
    python bench/load.py --postgres --replicas 2 --write   # two replicas on one PostgreSQL
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import csv
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prometheus_client.parser import text_string_to_metric_families
from pydantic import BaseModel, ConfigDict, Field

from lastline import normalize_text
from lastline.api.http.protocol import uvicorn_options

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import DATA, ROOT, bq_lines, machine, write_section
from _http_client import exchange, post_request, run_client
from backends import pg_cluster, postgres
from http_bench import cpu_seconds, process_tree, start_server

SECTION = "## Under load"
REPLICAS_SECTION = "## Under load: replicas on one PostgreSQL"
LEVELS = (1, 16, 64, 256)
BURST_FACTOR = 5
CLIENT_TIMEOUT_S = 30.0
MIXES = ("bare", "floor", "exact", "semantic", "mixed", "retry", "chat", "fallback_kb", "insert", "kb_search")
#: Training questions the insert mix may store (the semantic mix looks up the ones after them).
INSERTED = 40_000
#: Distinct questions the ``retry`` mix cycles through.
RETRY_QUESTIONS = 200
#: Mixes whose cost is the writes or the KB: fewer levels keep the run bounded.
SHORT_MIXES = {"fallback_kb": (1, 16, 64), "insert": (1, 16, 64), "kb_search": (1, 16, 64)}
BURST_MIXES = ("bare", "floor", "exact", "semantic", "mixed", "chat")
#: Mixes whose answers say hit or miss (the hits column), and what a hit's body holds (spaces removed).
HIT_MARKERS = {"exact": b'"hit":true', "semantic": b'"hit":true', "mixed": b'"hit":true', "retry": b'"hit":true',
               "chat": b'"source":"cache"'}


# -- the bare app: the same body through pydantic, nothing else ----------------------------------
class BareLookupIn(BaseModel):
    """The body of ``POST /v1/cache/lookup``, as the bare app parses it."""

    model_config = ConfigDict(extra="forbid")
    prompt: str = Field(max_length=1_000_000)
    context: str | dict[str, Any] | list[Any] | None = None
    mode: str = "intercept"
    threshold: float | None = Field(None, ge=0.0, le=1.0)
    exact_only: bool = False


class BareLookupOut(BaseModel):
    hit: bool
    answer: str | None
    mode: str


def bare_app() -> Any:
    from fastapi import FastAPI

    app = FastAPI()

    @app.post("/v1/cache/lookup", response_model=BareLookupOut)
    def lookup(body: BareLookupIn) -> BareLookupOut:
        return BareLookupOut(hit=False, answer=None, mode=body.mode)

    @app.get("/readyz")
    def readyz() -> dict[str, bool]:
        return {"ready": True}

    return app


def serve_bare(argv: Sequence[str]) -> None:
    """``load.py --bare --host H --port P``: the ceiling app, served the way ``lastline serve`` is."""
    import uvicorn

    parser = argparse.ArgumentParser()
    parser.add_argument("--bare", action="store_true")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args(argv)
    uvicorn.run(bare_app(), host=args.host, port=args.port, **uvicorn_options(access_log=False))


def start_bare(tmp: Path) -> tuple[subprocess.Popen[bytes], str]:
    """The bare app (:func:`serve_bare`) on a free loopback port, its log in ``tmp``."""
    return start_server(tmp, command=[sys.executable, str(Path(__file__).resolve()), "--bare"])


# -- the floor: the cheapest refusal a Python server writes ---------------------------------------
#: What the floor server answers every request but ``GET /readyz``: lastline's refusal, byte for byte
#: in shape (status, headers, body), written as one constant.
FLOOR_REFUSAL_BODY = (b'{"error":"overloaded","detail":"cache: full (160 in flight at most); retry after 1 s",'
                      b'"limit":"cache","retry_after_s":1}')
FLOOR_REFUSAL = (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\n"
                 b"content-length: %d\r\n\r\n" % len(FLOOR_REFUSAL_BODY)) + FLOOR_REFUSAL_BODY
FLOOR_READY = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 14\r\n\r\n{\"ready\":true}"


class FloorProtocol(asyncio.Protocol):
    """Refuses every request with :data:`FLOOR_REFUSAL` as soon as its last byte is read.

    No framework, no parser but the header end and ``Content-Length``: what is left of a refusal's
    cost is the event loop's read and write and this loop over the buffer. Why it exists: the burst
    target asks for refusals within 10 ms (p99); this server measures what the same client on the
    same cores sees when the server does nothing else.
    """

    def __init__(self) -> None:
        self.buffer = b""
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's is a Transport, not a subclass

    def data_received(self, data: bytes) -> None:
        assert self.transport is not None
        self.buffer += data
        replies = []
        while (end := self.buffer.find(b"\r\n\r\n")) >= 0:
            head = self.buffer[:end].lower()
            length = next((int(value) for name, _, value in (line.partition(b":") for line in head.split(b"\r\n"))
                           if name == b"content-length"), 0)
            if len(self.buffer) < end + 4 + length:
                break
            self.buffer = self.buffer[end + 4 + length:]
            replies.append(FLOOR_READY if head.startswith(b"get /readyz") else FLOOR_REFUSAL)
        if replies:
            self.transport.write(b"".join(replies))


def serve_floor(argv: Sequence[str]) -> None:
    """``load.py --floor --host H --port P [--processes N]``: the refusal floor, N processes on one port.

    As many processes as ``lastline serve`` has workers (the core count), each its own uvloop loop
    on a ``SO_REUSEPORT`` socket, so the floor gets the cores lastline's workers get.
    """
    import uvloop

    parser = argparse.ArgumentParser()
    parser.add_argument("--floor", action="store_true")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)

    async def serve() -> None:
        server = await asyncio.get_running_loop().create_server(FloorProtocol, args.host, args.port,
                                                               reuse_port=True, backlog=2048)
        await server.serve_forever()

    children: list[int] = []
    for _ in range(args.processes - 1):
        if (pid := os.fork()) == 0:
            children = []
            break
        children.append(pid)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        uvloop.run(serve())
    finally:
        for pid in children:
            os.kill(pid, signal.SIGTERM)


def start_floor(tmp: Path) -> tuple[subprocess.Popen[bytes], str]:
    """The refusal floor (:func:`serve_floor`) on a free loopback port, its log in ``tmp``."""
    return start_server(tmp, command=[sys.executable, str(Path(__file__).resolve()), "--floor"])


# -- data ----------------------------------------------------------------------------------------
def qqp_pairs(limit: int) -> list[tuple[str, str, int]]:
    """(question1, question2, is_duplicate) with distinct, non-empty question1."""
    out: list[tuple[str, str, int]] = []
    seen: set[str] = set()
    with open(DATA / "cache" / "qqp_val.csv", newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            q1, q2 = row["question1"].strip(), row["question2"].strip()
            key = normalize_text(q1)
            if key and normalize_text(q2) and key not in seen:
                seen.add(key)
                out.append((q1, q2, int(float(row["is_duplicate"]))))
                if len(out) >= limit:
                    break
    return out


def fresh_questions(limit: int) -> list[str]:
    """Questions for inserts, from the training split (never in the validation pairs)."""
    out: list[str] = []
    with open(DATA / "cache" / "qqp_train.csv", newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            out.extend(q for q in (row["question1"].strip(), row["question2"].strip()) if normalize_text(q))
            if len(out) >= limit:
                break
    return out[:limit]


def seed(tmp: Path, env: dict[str, str], entries: int, kb_docs: int) -> None:
    """Fill the scratch database through the CLI: cache entries, then the KB."""
    pairs = qqp_pairs(entries)
    with open(tmp / "entries.jsonl", "w", encoding="utf-8") as out:
        for q1, _, _ in pairs:
            out.write(json.dumps({"prompt": q1, "response": f"answer to: {q1}"}, ensure_ascii=False) + "\n")
    kb_dir = tmp / "kb"
    kb_dir.mkdir()
    with open(kb_dir / "corpus.jsonl", "w", encoding="utf-8") as out:
        for doc in bq_lines("corpus.jsonl", kb_docs):
            out.write(json.dumps(doc, ensure_ascii=False) + "\n")
    cli = [sys.executable, "-m", "lastline.api"]
    full_env = {**os.environ, **env}
    for cmd in ([*cli, "cache", "import", str(tmp / "entries.jsonl")],
                [*cli, "kb", "ingest", str(kb_dir)],
                [*cli, "kb", "ingest", str(ROOT / "data" / "demo")]):
        subprocess.run(cmd, env=full_env, cwd=tmp, check=True, stdout=subprocess.DEVNULL)


def bodies_for(mix: str, entries: int) -> tuple[str, list[dict[str, object]]]:
    pairs = qqp_pairs(entries)
    queries = [q["text"] for q in bq_lines("queries.jsonl", 2000)]
    if mix in ("bare", "floor"):
        return "/v1/cache/lookup", [{"prompt": q2, "mode": "fallback"} for _, q2, _ in pairs]
    if mix == "exact":
        return "/v1/cache/lookup", [{"prompt": q1} for q1, _, _ in pairs]
    if mix == "semantic":  # training questions past the ones the insert mix stores
        fresh = [{"prompt": q, "mode": "fallback"} for q in fresh_questions(INSERTED + 60_000)[INSERTED:]]
        return "/v1/cache/lookup", [{"prompt": q2, "mode": "fallback"} for _, q2, _ in pairs] + fresh
    if mix == "mixed":
        _, replayed = bodies_for("exact", entries)
        _, new = bodies_for("semantic", entries)
        turns = ((replayed[i % len(replayed)], fresh) for i, fresh in enumerate(new))
        return "/v1/cache/lookup", [body for turn in turns for body in turn]
    if mix == "retry":
        return "/v1/cache/lookup", [{"prompt": q2, "mode": "fallback"} for _, q2, _ in pairs[:RETRY_QUESTIONS]]
    if mix == "chat":
        return "/v1/chat/completions", [{"model": "lastline", "messages": [{"role": "user", "content": q1}]}
                                        for q1, _, _ in pairs]
    if mix == "fallback_kb":
        return "/v1/fallback", [{"prompt": q} for q in queries]
    if mix == "insert":
        return "/v1/cache/entries", [{"prompt": q, "response": f"answer to: {q}"} for q in fresh_questions(INSERTED)]
    if mix == "kb_search":
        return "/v1/kb/search", [{"query": q, "k": 5} for q in queries]
    raise ValueError(mix)


class Stream:
    """A mix's bodies handed out in order across rows: each drive starts where the one before stopped.

    Why: the embedder keeps the vectors of recent texts, so a row that replayed the texts of the
    warm-up or of the row before would be answered partly from that memo and report less than a
    lookup costs (it did: the 1-client semantic row began with the warm-up's 400 texts). ``retry`` is
    the mix meant to repeat, and starts from its first body every time.
    """

    def __init__(self, mix: str, entries: int) -> None:
        self.path, self._bodies = bodies_for(mix, entries)
        self._repeats = mix == "retry"
        self._at = 0

    def bodies(self) -> list[dict[str, object]]:
        return self._bodies[self._at :] + self._bodies[: self._at]

    def advance(self, row: Row) -> None:
        """Past every body ``row`` may have sent (each client walks its own stride, so a few more)."""
        if not self._repeats:
            self._at = (self._at + row.n + row.clients) % len(self._bodies)


# -- the client ----------------------------------------------------------------------------------
def percentile(latencies: Sequence[float], q: float) -> float:
    """The ``q`` quantile of ``latencies`` (seconds) in milliseconds; nan when there are none."""
    values = sorted(latencies)
    return 1000 * values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


@dataclass
class Row:
    """One measured level: every request's latency, by status (``timeout``/``conn`` for failures)."""

    mix: str
    clients: int
    seconds: float
    latencies: dict[str, list[float]] = field(default_factory=dict)
    hits: int = 0
    #: Answers' latencies split by hit (``mixed``: the replayed questions, nearly all) and the others.
    hit_latencies: list[float] = field(default_factory=list)
    other_latencies: list[float] = field(default_factory=list)
    rss_mb: float = 0.0
    #: Server CPU (user + system, the server process and its workers, from /proc) per answered
    #: request over the row: robust to a loaded machine, where wall-clock figures are not.
    cpu_ms: float = 0.0
    #: Milliseconds per second of the row the server spent in garbage collection (all workers
    #: summed; from ``lastline_gc_pause_seconds``), None for a server without it (the bare app).
    gc_ms_per_s: float | None = None
    load: tuple[float, float] = (0.0, 0.0)

    def add(self, status: str, latency: float) -> None:
        self.latencies.setdefault(status, []).append(latency)

    @property
    def n(self) -> int:
        return sum(len(v) for v in self.latencies.values())

    @property
    def rps(self) -> float:
        return self.n / self.seconds if self.seconds else 0.0

    @property
    def answers(self) -> int:
        """Requests the service answered (2xx and 404), shed ones and failures left out."""
        return sum(len(self.latencies[s]) for s in self.answered())

    @property
    def answered_rps(self) -> float:
        """Answers per second, shed requests (503) and failures left out: the capacity a level shows."""
        return self.answers / self.seconds if self.seconds else 0.0

    def pct(self, q: float, statuses: Sequence[str] | None = None) -> float:
        return percentile([x for s, v in self.latencies.items() if statuses is None or s in statuses for x in v], q)

    def answered(self) -> list[str]:
        """Statuses that are an answer of the service (2xx and 404 no_fallback_answer)."""
        return [s for s in self.latencies if s.isdigit() and (s.startswith("2") or s == "404")]

    def statuses(self) -> str:
        return " ".join(f"{s}:{len(v)}" for s, v in sorted(self.latencies.items()))


async def drive(base: str, path: str, bodies: list[dict[str, object]], clients: int, seconds: float,
                row: Row, *, hit_marker: bytes | None = None, rate: float | None = None,
                timeout_s: float = CLIENT_TIMEOUT_S, honour_retry_after: bool = False,
                say_budget: bool = False) -> None:
    """``clients`` kept-alive connections send back to back for ``seconds`` (or paced at ``rate``/s).

    A failed exchange (a reply later than ``timeout_s``, a closed connection) is recorded and the
    connection closed and opened again, as an HTTP client that gives up on a request does. With
    ``honour_retry_after`` a client refused with 503 waits what the refusal's ``retry-after-ms``
    (else ``Retry-After``) says before it asks again, as the OpenAI SDKs do; without it, at once.
    With ``say_budget`` every request says how long its client waits (``X-Lastline-Budget-Ms``).
    Requests are pre-encoded; each client walks the bodies from its own offset.
    """
    host, port = base.removeprefix("http://").split(":")
    budget = {"X-Lastline-Budget-Ms": f"{timeout_s * 1000:.0f}"} if say_budget else None
    requests = [post_request(host, path, b, budget) for b in bodies]
    started = time.perf_counter()
    stop = started + seconds
    interval = clients / rate if rate else 0.0

    async def client(offset: int) -> None:
        conn: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
        i = offset
        due = started + (offset * interval / clients if interval else 0.0)
        while time.perf_counter() < stop:
            if interval:
                delay = due - time.perf_counter()
                due += interval
                if delay > 0:
                    await asyncio.sleep(delay)
            t0 = time.perf_counter()
            try:
                async with asyncio.timeout(timeout_s):  # no task per request, as wait_for makes
                    if conn is None:
                        conn = await asyncio.open_connection(host, int(port))
                    headers: dict[bytes, bytes] | None = {} if honour_retry_after else None
                    status, body, _ = await exchange(*conn, requests[i % len(requests)], headers=headers)
            except TimeoutError:
                row.add("timeout", time.perf_counter() - t0)
                conn = _close(conn)
                continue
            except (OSError, asyncio.IncompleteReadError, IndexError, ValueError):
                row.add("conn", time.perf_counter() - t0)
                conn = _close(conn)
                await asyncio.sleep(0.01)
                continue
            latency = time.perf_counter() - t0
            row.add(str(status), latency)
            if headers is not None and status == 503:
                await asyncio.sleep(_retry_after_s(headers))
            if conn[1].is_closing():  # the server handed the connection back: open another
                conn = None
            i += clients
            if hit_marker and status == 200 and hit_marker in body.replace(b" ", b""):
                row.hits += 1
                row.hit_latencies.append(latency)
            elif hit_marker and status in (200, 404):
                row.other_latencies.append(latency)
        _close(conn)

    await asyncio.gather(*(client(k) for k in range(clients)))
    row.seconds = time.perf_counter() - started


def _retry_after_s(headers: dict[bytes, bytes]) -> float:
    """The wait a refusal's headers name, read as the OpenAI SDKs read it: ``retry-after-ms``, else
    ``Retry-After`` in seconds, else 1 s."""
    for name, divisor in ((b"retry-after-ms", 1000), (b"retry-after", 1)):
        with contextlib.suppress(KeyError, ValueError):
            return float(headers[name]) / divisor
    return 1.0


def _close(conn: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None) -> None:
    if conn is not None:
        conn[1].close()
    return None


def gc_pause_s(base: str) -> float | None:
    """Seconds the server has spent in garbage collection so far (all generations, workers summed).

    None when the server does not export ``lastline_gc_pause_seconds`` (the bare app).
    """
    try:
        with urllib.request.urlopen(f"{base}/metrics", timeout=10) as response:
            text = response.read().decode()
    except OSError:
        return None
    total = [s.value for family in text_string_to_metric_families(text) for s in family.samples
             if s.name == "lastline_gc_pause_seconds_sum"]
    return sum(total) if total else None


def rss_mb(pid: int) -> float:
    """Resident memory of a process and all its descendants (the workers), in MB."""
    total = 0
    for p in process_tree(pid):
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return total / 1024


def measure(servers: Sequence[tuple[subprocess.Popen[bytes], str]], mix: str, stream: Stream,
            clients: int, seconds: float, rate: float | None = None, timeout_s: float = CLIENT_TIMEOUT_S,
            honour_retry_after: bool = False, say_budget: bool = False) -> Row:
    """One row: ``clients`` connections spread evenly over ``servers`` (replicas), figures summed."""
    row = Row(mix, clients, seconds)
    path, bodies = stream.path, stream.bodies()
    load0 = os.getloadavg()[0]
    cpu0 = sum(cpu_seconds(proc.pid) for proc, _ in servers)
    gc0 = [gc_pause_s(base) for _, base in servers]
    shares = [clients // len(servers) + (k < clients % len(servers)) for k in range(len(servers))]

    async def all_servers() -> None:
        await asyncio.gather(*(drive(base, path, bodies, share, seconds, row, hit_marker=HIT_MARKERS.get(mix),
                                     rate=rate and rate * share / clients, timeout_s=timeout_s,
                                     honour_retry_after=honour_retry_after, say_budget=say_budget)
                               for (_, base), share in zip(servers, shares, strict=True) if share))

    run_client(all_servers())
    stream.advance(row)
    row.cpu_ms = (1000 * (sum(cpu_seconds(proc.pid) for proc, _ in servers) - cpu0)
                  / max(1, row.answers or row.n))  # per response where none is an answer (the floor)
    gc1 = [gc_pause_s(base) for _, base in servers]
    if all(g is not None for g in gc0 + gc1):
        row.gc_ms_per_s = 1000 * sum(b - a for a, b in zip(gc0, gc1, strict=True)) / seconds  # type: ignore[operator]
    row.rss_mb = sum(rss_mb(proc.pid) for proc, _ in servers)
    row.load = (load0, os.getloadavg()[0])
    split = (f"  p99 hits {percentile(row.hit_latencies, 0.99):.1f} "
             f"others {percentile(row.other_latencies, 0.99):.1f}"
             if mix == "mixed" else "")
    print(f"{mix:12s} c={clients:5d} {row.rps:8.0f} req/s  p50 {row.pct(0.5):7.1f}  p99 {row.pct(0.99):8.1f}"
          f"  max {row.pct(1.0):8.1f} ms  cpu {row.cpu_ms:5.2f} ms/answer  gc {row.gc_ms_per_s} ms/s  {row.statuses()}"
          f"  rss {row.rss_mb:.0f} MB"
          f"{split}"
          f"  load {row.load[1]:.1f}",
          file=sys.stderr)
    return row


# -- the run -------------------------------------------------------------------------------------
@dataclass
class Run:
    rows: list[Row] = field(default_factory=list)
    flood: dict[str, Row] = field(default_factory=dict)
    soak: list[tuple[float, float]] = field(default_factory=list)
    soak_row: Row | None = None
    #: The semantic rows measured just before the soak, whose capacity paces it.
    soak_probes: list[Row] = field(default_factory=list)
    where: str = ""


@contextlib.contextmanager
def database(tmp: Path, args: argparse.Namespace) -> Iterator[dict[str, str]]:
    """The environment naming the servers' database: a scratch SQLite file, or with ``--postgres`` a
    fresh PostgreSQL database (owner and application roles, as deployed) that every replica shares."""
    if not args.postgres:
        yield {"LASTLINE_DB": str(tmp / "bench.db"), "HF_HUB_OFFLINE": "1"}
        return
    with postgres(args.pg_url) as superuser:
        app, owner = pg_cluster.create_database(superuser)
        try:
            yield {"LASTLINE_DATABASE_URL": app, "LASTLINE_DATABASE_OWNER_URL": owner, "HF_HUB_OFFLINE": "1"}
        finally:
            pg_cluster.drop_database(superuser, app)


def run(args: argparse.Namespace) -> Run:
    result = Run()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp_dir, database(Path(tmp_dir), args) as env:
        tmp = Path(tmp_dir)
        started = time.perf_counter()
        seed(tmp, env, args.entries, args.kb_docs)
        print(f"seeded in {time.perf_counter() - started:.0f} s", file=sys.stderr)
        serve_args = ["--workers", str(args.workers)] if args.workers else []
        bare = [start_bare(tmp)]
        floor = [start_floor(tmp)] if "floor" in args.mixes else []
        replicas = [start_server(tmp, serve_args, env) for _ in range(args.replicas)]
        try:
            streams = {mix: Stream(mix, args.entries) for mix in {*args.mixes, "semantic", "kb_search"}}
            for mix in args.mixes:
                servers = {"bare": bare, "floor": floor}.get(mix, replicas)
                stream = streams[mix]
                for _, base in servers:
                    warm_up = Row(mix, 4, 1.0)
                    run_client(drive(base, stream.path, stream.bodies(), 4, 1.0, warm_up))
                    stream.advance(warm_up)
                levels = [c for c in args.levels if c in SHORT_MIXES.get(mix, args.levels)]
                if mix in BURST_MIXES and not args.no_burst:
                    levels.append(BURST_FACTOR * max(args.levels))
                for clients in levels:
                    result.rows.append(measure(servers, mix, stream, clients, args.seconds,
                                               timeout_s=args.client_timeout,
                                               honour_retry_after=args.honour_retry_after,
                                               say_budget=args.say_budget))
            if not args.no_flood:
                result.flood = kb_flood(replicas[0], args, streams)
            if args.soak:
                result.soak_row, result.soak_probes, result.soak = soak(replicas[0], args, streams["semantic"])
        finally:
            for proc, _ in bare + floor + replicas:
                proc.terminate()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=30)
                if proc.poll() is None:
                    proc.kill()
    load_after = os.getloadavg()
    result.where = (f"{machine()}; 1/5/15-min load average {'/'.join(f'{x:.1f}' for x in load_before)} before, "
                    f"{'/'.join(f'{x:.1f}' for x in load_after)} after")
    return result


def kb_flood(server: tuple[subprocess.Popen[bytes], str], args: argparse.Namespace,
             streams: dict[str, Stream]) -> dict[str, Row]:
    """Cache lookups at 16 clients alone, then beside 32 clients of KB searches."""
    _, base = server
    lookups, searches = streams["semantic"], streams["kb_search"]
    alone = measure([server], "semantic", lookups, 16, args.seconds)
    beside = Row("semantic+kb", 16, args.seconds)
    flood = Row("kb_search", 32, args.seconds)

    async def both() -> None:
        await asyncio.gather(drive(base, lookups.path, lookups.bodies(), 16, args.seconds, beside),
                             drive(base, searches.path, searches.bodies(), 32, args.seconds, flood))

    run_client(both())
    lookups.advance(beside)
    searches.advance(flood)
    for row in (beside, flood):
        print(f"flood {row.mix:12s} c={row.clients:3d} {row.rps:8.0f} req/s  p99 {row.pct(0.99):8.1f} ms  "
              f"{row.statuses()}", file=sys.stderr)
    return {"alone": alone, "beside": beside, "flood": flood}


def soak_rate(probes: Sequence[Row]) -> float:
    """80 % of the capacity the probes show (see :func:`soak`): the best of those that shed nothing,
    else the fewest answers per second of them."""
    calm = [r.answered_rps for r in probes if "503" not in r.latencies]
    return 0.8 * (max(calm) if calm else min(r.answered_rps for r in probes))


def soak(server: tuple[subprocess.Popen[bytes], str], args: argparse.Namespace,
         stream: Stream) -> tuple[Row, list[Row], list[tuple[float, float]]]:
    """Semantic lookups paced at 80 % of the semantic capacity measured just before; RSS every 5 s.

    Capacity is measured in the state the soak runs in, not taken from the semantic rows at the
    start of the run: by the soak the insert rows have stored thousands of entries more, and a
    lookup in the fuller cache costs more (its exhaustive kNN search and its typo scan grow with
    the cache: docs/reliability.md, "What the soak measured").
    Paced from the early rows, a soak asked for more than the machine then had and soaked the
    shedding. The capacity is the most answers per second a row of 16 or 64 clients reached without
    the server refusing a request: a level that sheds is past it by definition, though it can show
    more answers per second (64 waiting clients make larger shared model calls than paced ones do).
    If both shed, the fewer answers per second of the two.
    """
    proc, base = server
    probes = [measure([server], "semantic", stream, clients, args.seconds) for clients in (16, 64)]
    rate = soak_rate(probes)
    row = Row("soak", 64, args.soak)
    samples: list[tuple[float, float]] = []

    async def sample() -> None:
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < args.soak:
            samples.append((time.perf_counter() - t0, rss_mb(proc.pid)))
            await asyncio.sleep(5.0)

    async def both() -> None:
        await asyncio.gather(drive(base, stream.path, stream.bodies(), 64, args.soak, row, rate=rate), sample())

    cpu0 = cpu_seconds(proc.pid)
    run_client(both())
    row.cpu_ms = 1000 * (cpu_seconds(proc.pid) - cpu0) / max(1, row.answers)
    print(f"soak at {rate:.0f} req/s: {row.rps:.0f} req/s, p99 {row.pct(0.99):.1f} ms, {row.statuses()}, "
          f"RSS {samples[0][1]:.0f} → {samples[-1][1]:.0f} MB", file=sys.stderr)
    return row, probes, samples


# -- the report ----------------------------------------------------------------------------------
def _f(x: float) -> str:
    return "—" if x != x else (f"{x:.0f}" if x >= 100 else f"{x:.1f}")


def section_of(args: argparse.Namespace) -> str:
    """Each deployment shape has its own section: one server on SQLite, or replicas on PostgreSQL."""
    return REPLICAS_SECTION if args.postgres else SECTION


def render(res: Run, args: argparse.Namespace) -> str:
    bare = {r.clients: r.rps for r in res.rows if r.mix == "bare"}
    flags = (f"{f' --soak {args.soak:g}' if args.soak else ''}{f' --workers {args.workers}' if args.workers else ''}"
             f"{' --postgres' if args.postgres else ''}{f' --replicas {args.replicas}' if args.replicas > 1 else ''}"
             f"{f' --client-timeout {args.client_timeout:g}' if args.client_timeout != CLIENT_TIMEOUT_S else ''}"
             f"{' --honour-retry-after' if args.honour_retry_after else ''}"
             f"{' --say-budget' if args.say_budget else ''}")
    servers = (f"{args.replicas} `lastline serve` processes on one PostgreSQL database (application role under "
               "row-level security; clients spread evenly over them)" if args.postgres else
               "One `lastline serve` on a scratch SQLite file")
    lines = [
        section_of(args), "",
        f"Machine: {res.where}. Produced by `python bench/load.py --write{flags}`.",
        "",
        f"{servers}{f' --workers {args.workers}' if args.workers else ''}, "
        f"holding {args.entries} cached QQP questions and {args.kb_docs} BQ FAQ",
        "questions (+ the demo folder) in the KB, and a bare FastAPI app (one POST endpoint, the same JSON body",
        "through pydantic) started by the same run"
        + ("; `floor` is a server that refuses every request with a constant `503 overloaded` and does nothing "
           "else (no framework, one process per core): the cheapest refusal a Python server can write, as this "
           "client sees it" if "floor" in args.mixes else "")
        + "; client and servers share the machine's cores. Each row:",
        f"`clients` kept-alive connections send back to back for {args.seconds:g} s (raw-socket client of",
        f"`bench/_http_client.py` on uvloop, {args.client_timeout:g} s timeout"
        f"{', which every request says in `X-Lastline-Budget-Ms`' if args.say_budget else ''}). `× bare` is"
        " throughput over the",
        f"bare app's at the same concurrency; the burst row is {BURST_FACTOR} × the top level at once. A row sends",
        "the bodies of its mix",
        "from where the row before it stopped (only `retry` repeats its questions). A refused client "
        + ("waits what its 503 says (`retry-after-ms`, else `Retry-After`) before it asks again, as the OpenAI "
           "SDKs do." if args.honour_retry_after else "asks again at once.") + " Shed requests (503 overloaded)",
        "are counted in the status column; `p99 ok` covers answers only (2xx, and 404 for no answer),",
        "`p99 503` the shed ones. RSS is the server's (all workers). `CPU ms` is the server's CPU time (user +",
        "system of the server process and its workers, from `/proc/<pid>/stat`) over the row, per answered",
        "request (per response for the floor, which answers none): on a loaded machine wall-clock figures move",
        "with the load, this one much less. `GC ms/s` is",
        "how long the server's garbage collector paused it per second of the row (`lastline_gc_pause_seconds`,",
        "workers summed).",
        "",
        "| mix | clients | req/s | × bare | p50 ms | p99 ms | p99 ok | p99 503 | max ms | CPU ms | GC ms/s | hits "
        "| statuses | RSS MB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|",
    ]
    for r in res.rows:
        ratio = f"{r.rps / bare[r.clients]:.2f}" if r.clients in bare and r.mix != "bare" else ""
        hits = f"{r.hits / r.n:.0%}" if r.mix in HIT_MARKERS and r.n else ""
        lines.append(
            f"| {r.mix} | {r.clients} | {r.rps:.0f} | {ratio} | {_f(r.pct(0.5))} | {_f(r.pct(0.99))} | "
            f"{_f(r.pct(0.99, r.answered()))} | {_f(r.pct(0.99, ['503']))} | {_f(r.pct(1.0))} | {r.cpu_ms:.2f} | "
            f"{'' if r.gc_ms_per_s is None else f'{r.gc_ms_per_s:.2f}'} | {hits} | "
            f"{r.statuses()} | {r.rss_mb:.0f} |")
    mixed = [r for r in res.rows if r.mix == "mixed" and r.hit_latencies]
    if mixed:
        lines += ["", "`mixed`: the p99 of its hits (replayed questions) and of its other answers (new questions, "
                  "past the exact key):", ""]
        lines += [f"- {r.clients} client{'s' if r.clients > 1 else ''}: "
                  f"hits {_f(percentile(r.hit_latencies, 0.99))} ms, "
                  f"other answers {_f(percentile(r.other_latencies, 0.99))} ms"
                  for r in mixed]
    if res.flood:
        a, b, k = res.flood["alone"], res.flood["beside"], res.flood["flood"]
        lines += [
            "",
            f"KB flood: semantic lookups at 16 clients alone, then beside {k.clients} clients of `POST /v1/kb/search`.",
            "",
            "| cache lookups | req/s | p50 ms | p99 ms | statuses | KB searches alongside |",
            "|---|---:|---:|---:|---|---|",
            f"| alone | {a.rps:.0f} | {_f(a.pct(0.5))} | {_f(a.pct(0.99))} | {a.statuses()} | — |",
            f"| beside the flood | {b.rps:.0f} | {_f(b.pct(0.5))} | {_f(b.pct(0.99))} | {b.statuses()} | "
            f"{k.rps:.0f} req/s, p99 {_f(k.pct(0.99))} ms, {k.statuses()} |",
            "",
            f"Cache-lookup p99 beside the flood: {b.pct(0.99) / a.pct(0.99):.2f} × alone.",
        ]
    if res.soak_row is not None and res.soak:
        s = res.soak_row
        inserted = sum(len(r.latencies.get("201", [])) for r in res.rows if r.mix == "insert")
        probes = " and ".join(f"{r.clients} clients: {r.answered_rps:.0f} answers/s"
                              f"{', shed ' + str(len(r.latencies['503'])) if '503' in r.latencies else ''}"
                              for r in res.soak_probes)
        early = max((r.answered_rps for r in res.rows if r.mix == "semantic" and "503" not in r.latencies),
                    default=float("nan"))
        warm = next((rss for t, rss in res.soak if t >= 0.2 * args.soak), res.soak[0][1])
        end = res.soak[-1][1]
        lines += [
            "",
            f"Soak: {args.soak:g} s of semantic lookups, 64 connections, paced at 80 % of the capacity measured just "
            f"before it, in the cache as the soak finds it ({args.entries:,} entries + {inserted:,} from the insert "
            f"rows): the most answers per second of a semantic row that shed nothing, of "
            f"{probes} (the semantic rows above, in the cache of {args.entries:,}, reached up to {early:.0f}). "
            f"The soak: {s.rps:.0f} req/s, p50 {_f(s.pct(0.5))} ms, p99 {_f(s.pct(0.99))} ms, "
            f"{s.cpu_ms:.2f} ms server CPU per answer, {s.statuses()}; "
            f"RSS {res.soak[0][1]:.0f} MB at start, {warm:.0f} MB after warm-up (20 %), {end:.0f} MB at the end "
            f"({(end - warm) / warm:+.1%}).",
        ]
    return "\n".join(lines) + "\n"


def main() -> None:
    if "--bare" in sys.argv[1:]:
        serve_bare(sys.argv[1:])
        return
    if "--floor" in sys.argv[1:]:
        serve_floor(sys.argv[1:])
        return
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the servers on the way out
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="Duration of each row.")
    parser.add_argument("--entries", type=int, default=2000, help="Cached questions (QQP validation).")
    parser.add_argument("--kb-docs", type=int, default=2000, help="BQ FAQ questions in the KB.")
    parser.add_argument("--levels", default=",".join(map(str, LEVELS)), help="Concurrency levels.")
    parser.add_argument("--mixes", default=",".join(MIXES), help=f"Subset of {', '.join(MIXES)}.")
    parser.add_argument("--workers", type=int, default=0, help="Pass --workers N to lastline serve.")
    parser.add_argument("--postgres", action="store_true",
                        help="Servers on one PostgreSQL database (a cluster started for the run, or --pg-url).")
    parser.add_argument("--pg-url", default=os.environ.get("LASTLINE_BENCH_PG_URL"),
                        help="Superuser URL of a running PostgreSQL cluster (with --postgres).")
    parser.add_argument("--replicas", type=int, default=1,
                        help="lastline serve processes sharing the database, clients spread evenly (needs --postgres).")
    parser.add_argument("--soak", type=float, default=0.0, help="Seconds of soak at 80%% of capacity.")
    parser.add_argument("--client-timeout", type=float, default=CLIENT_TIMEOUT_S,
                        help="Seconds a client waits for a reply before it closes the connection and asks again "
                             "(the mixes' rows; clients that give the server a budget, as agents do).")
    parser.add_argument("--honour-retry-after", action="store_true",
                        help="Refused clients wait what their 503 says (retry-after-ms, else Retry-After) before "
                             "asking again, as the OpenAI SDKs do (the mixes' rows); by default at once, as wrk does.")
    parser.add_argument("--say-budget", action="store_true",
                        help="Every request says how long its client waits (X-Lastline-Budget-Ms: the client "
                             "time-out), as the OpenAI SDKs say theirs (the mixes' rows).")
    parser.add_argument("--no-burst", action="store_true")
    parser.add_argument("--no-flood", action="store_true")
    parser.add_argument("--write", action="store_true", help="Update docs/benchmarks.md.")
    parser.add_argument("--json", type=Path, help="Also dump every row's figures here.")
    args = parser.parse_args()
    if args.replicas > 1 and not args.postgres:
        parser.error("--replicas needs --postgres: replicas share one PostgreSQL database, not a SQLite file")
    args.levels = tuple(int(x) for x in args.levels.split(","))
    args.mixes = [m for m in args.mixes.split(",") if m]
    unknown = set(args.mixes) - set(MIXES)
    if unknown:
        parser.error(f"unknown mixes: {', '.join(sorted(unknown))}")
    res = run(args)
    text = render(res, args)
    print(text)
    if args.json:
        args.json.write_text(json.dumps([
            {"mix": r.mix, "clients": r.clients, "rps": r.rps, "p50_ms": r.pct(0.5), "p99_ms": r.pct(0.99),
             "p99_ok_ms": r.pct(0.99, r.answered()), "p99_503_ms": r.pct(0.99, ["503"]), "max_ms": r.pct(1.0),
             "statuses": dict(Counter({s: len(v) for s, v in r.latencies.items()})), "rss_mb": r.rss_mb,
             "cpu_ms": r.cpu_ms, "gc_ms_per_s": r.gc_ms_per_s, "load": r.load}
            for r in res.rows + list(res.flood.values()) + res.soak_probes + ([res.soak_row] if res.soak_row else [])
        ], indent=1))
    if args.write:
        print(f"wrote {write_section(section_of(args), text)}", file=sys.stderr)


if __name__ == "__main__":
    main()
