"""HTTP lookup latency and throughput of a real ``lastline serve`` on loopback.

Starts the service (one uvicorn process, the default USE embedder) on a fresh SQLite file, seeds
the cache with the 999 ``origin`` questions of GPTCache's benchmark pairs, then drives it with
1, 16 and 64 concurrent clients (kept-alive connections of the raw-socket client in
``bench/_http_client.py``, one uvloop event loop in this process) for a

- ``exact hit``     — ``POST /v1/cache/lookup`` with a seeded question: hash lookup, no embedding;
- ``semantic``      — ``POST /v1/cache/lookup`` with its paraphrase (``similar``): fuzzy check,
                      embedding, kNN, slot guard; hit or miss as the threshold decides;
- ``fallback exact``— ``POST /v1/fallback`` with a seeded question: the ladder's guard, the same
                      exact hit, plus the degradation event written to SQLite.

Client and server share the machine's cores, so throughput is a floor for a dedicated server.

    python bench/http_bench.py                 # print the table
    python bench/http_bench.py --write         # also replace "## HTTP service" in docs/benchmarks.md
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _http_client as http_client
from _common import DATA, machine, write_section
from _http_client import get_request, post_request, run_client

SECTION = "## HTTP service"
CONCURRENCY = (1, 16, 64)
#: The tables describe one server process: ``lastline serve`` would otherwise start a worker per core.
#: (With two workers a lone client waits ≈44 ms a request here, against ≈5 ms with one; bench/load.py
#: measures the multi-worker service.)
ONE_PROCESS = ("--workers", "1")


def start_server(tmp: Path, args: Sequence[str] = (), env: dict[str, str] | None = None,
                 command: Sequence[str] | None = None) -> tuple[subprocess.Popen[bytes], str]:
    """Start ``lastline serve`` (or ``command``, which must take ``--port``) on a free loopback port.

    Returns once ``GET /readyz`` answers 200; ``args`` go to the command line, ``env`` over the
    environment. The log goes to ``server.log`` in ``tmp``.
    """
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    full_env = {**os.environ, "LASTLINE_DB": str(tmp / "bench.db"), "HF_HUB_OFFLINE": "1", **(env or {})}
    base_cmd = list(command) if command is not None else [sys.executable, "-m", "lastline.api", "serve"]
    log_path = tmp / f"server-{port}.log"
    with open(log_path, "wb") as log:  # the server writes to its own copy of the descriptor
        proc = subprocess.Popen(
            [*base_cmd, "--host", "127.0.0.1", "--port", str(port), *args],
            env=full_env, stdout=log, stderr=subprocess.STDOUT, cwd=tmp,
        )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(log_path.read_text())
        try:
            if httpx.get(base + "/readyz", timeout=1).status_code == 200:
                return proc, base
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    proc.kill()
    raise RuntimeError("server did not become ready")


def load_pairs(limit: int) -> list[tuple[str, str]]:
    raw = json.loads((DATA / "cache" / "gptcache_mock_pairs.json").read_text(encoding="utf-8"))
    pairs = [(p["origin"], p["similar"]) for p in raw if p["origin"].strip() and p["similar"].strip()]
    return pairs[:limit]


def _is_hit(status: int, body: bytes) -> bool:
    """A lookup that served an answer (``/healthz`` and the ladder's 200s carry no ``hit``: they count)."""
    return status == 200 and bool(json.loads(body).get("hit", True))


async def drive(base: str, path: str, bodies: list[dict[str, object]] | None, concurrency: int,
                seconds: float) -> dict[str, float]:
    """``concurrency`` kept-alive connections of the raw-socket client (``_http_client.py``) for ``seconds``."""
    host = base.removeprefix("http://")
    requests = ([post_request(host, path, b) for b in bodies] if bodies is not None
                else [get_request(host, path)])
    return await http_client.drive(base, requests, concurrency, seconds, judge=_is_hit)


def children(pid: int) -> list[int]:
    """The processes ``pid`` started, from any of its threads (Linux /proc); none once it is gone."""
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            found.extend(int(c) for c in (task / "children").read_text().split())
    return found


def process_tree(pid: int) -> list[int]:
    """``pid`` and all its descendants (``lastline serve`` runs its uvicorn workers as children)."""
    found: list[int] = []
    pending = [pid]
    while pending:
        p = pending.pop()
        found.append(p)
        pending.extend(children(p))
    return found


def cpu_seconds(pid: int) -> float:
    """User + system CPU time so far of a process and its descendants (Linux /proc)."""
    total = 0.0
    for p in process_tree(pid):
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def run(seconds: float, n_entries: int) -> tuple[list[dict[str, object]], str]:
    pairs = load_pairs(n_entries)
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        proc, base = start_server(tmp, ONE_PROCESS)
        try:
            with httpx.Client(base_url=base, timeout=60) as client:
                for origin, _ in pairs:
                    client.post("/v1/cache/entries", json={"prompt": origin, "response": f"answer to: {origin}"}
                                ).raise_for_status()
            cases: list[tuple[str, str, list[dict[str, object]] | None]] = [
                ("healthz (baseline)", "/healthz", None),
                ("exact hit", "/v1/cache/lookup", [{"prompt": o} for o, _ in pairs]),
                ("semantic", "/v1/cache/lookup", [{"prompt": s, "mode": "fallback"} for _, s in pairs]),
                ("fallback exact", "/v1/fallback", [{"prompt": o} for o, _ in pairs]),
            ]
            rows: list[dict[str, object]] = []
            for name, path, bodies in cases:
                run_client(drive(base, path, bodies, 4, 1.0))  # warm-up: caches, connections, JIT-free paths
                for c in CONCURRENCY:
                    cpu0 = cpu_seconds(proc.pid)
                    res = run_client(drive(base, path, bodies, c, seconds))
                    res["cpu_ms"] = 1000 * (cpu_seconds(proc.pid) - cpu0) / max(1, res["n"])
                    rows.append({"case": name, "clients": c, **res})
                    print(f"{name:18s} c={c:3d}  n={res['n']:6d}  {res['rps']:8.0f} req/s  "
                          f"p50 {res['p50_ms']:7.2f} ms  p99 {res['p99_ms']:7.2f} ms  "
                          f"hit {res['hit_rate']:.2f}  cpu {res['cpu_ms']:.2f} ms/req  errors {res['errors']}",
                          file=sys.stderr)
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    load_after = os.getloadavg()[0]
    return rows, f"{machine()}; 1-min load average {load_before:.1f} before, {load_after:.1f} after"


def table(rows: list[dict[str, object]], where: str, seconds: float, n_entries: int) -> str:
    mean_chars = statistics.mean(len(s) for _, s in load_pairs(n_entries))
    lines = [
        SECTION,
        "",
        f"Machine: {where}. Produced by `python bench/http_bench.py --write`.",
        "",
        "One `lastline serve` process (uvicorn, default USE embedder, 1 encode thread) on loopback; the cache",
        f"holds {n_entries} questions (GPTCache's benchmark `origin` questions). Each row: clients send requests",
        f"back to back for {seconds:g} s over kept-alive connections from one uvloop event loop (a minimal HTTP/1.1",
        "client in the script) **on the same 2 cores** as the server,",
        "after a 1 s warm-up. `semantic` sends each question's paraphrase (`similar`) in fallback mode: it is",
        "embedded and searched; the hit column is the share served (the rest are threshold misses). These",
        f"paraphrases average {mean_chars:.0f} characters, long for a question: the encode dominates their cost.",
        "`fallback exact` is `POST /v1/fallback` answered at depth 0, including its degradation event write.",
        "`healthz` is the framework's floor: the same server answering `GET /healthz`. \"Server CPU ms/req\" is",
        "the server process's user+system CPU time over the row divided by its requests: unlike wall-clock",
        "figures it barely moves when other work shares the machine.",
        "",
        "| case | clients | requests | req/s | p50 ms | p99 ms | server CPU ms/req | hits |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['case']} | {r['clients']} | {r['n']} | {r['rps']:.0f} | {r['p50_ms']:.2f} | "
            f"{r['p99_ms']:.2f} | {r['cpu_ms']:.2f} | {r['hit_rate']:.0%} |"
        )
    return "\n".join(lines) + "\n"


def cli(run_rows: Any, render: Any, section: str, default_seconds: float, doc: str) -> None:
    """Command line shared by the HTTP benches: run, print the table, optionally write the docs section."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=default_seconds, help="Duration of each row.")
    parser.add_argument("--entries", type=int, default=999, help="Cache entries seeded (max 999).")
    parser.add_argument("--write", action="store_true", help="Update docs/benchmarks.md.")
    args = parser.parse_args()
    rows, where = run_rows(args.seconds, args.entries)
    text = render(rows, where, args.seconds, min(args.entries, 999))
    print(text)
    if args.write:
        print(f"wrote {write_section(section, text)}", file=sys.stderr)


def main() -> None:
    cli(run, table, SECTION, 8.0, __doc__ or "")

if __name__ == "__main__":
    main()
