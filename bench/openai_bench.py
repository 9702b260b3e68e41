"""Latency and throughput of the OpenAI-compatible face against ``POST /v1/fallback`` on loopback.

Starts one ``lastline serve`` (default USE embedder) on a fresh SQLite file, seeds the cache with
GPTCache's benchmark ``origin`` questions, then drives three cases with 1, 16 and 64 concurrent
clients (httpx, one asyncio loop in this process), each answered from the exact cache layer:

- ``fallback``  — ``POST /v1/fallback {prompt}``: the envelope (baseline);
- ``chat``      — ``POST /v1/chat/completions`` (one user message): chat context, the same ladder,
                  a ``chat.completion`` body;
- ``chat SSE``  — the same with ``stream: true``; ``first ms`` is the time to the first content chunk.

    python bench/openai_bench.py               # print the table
    python bench/openai_bench.py --write       # also replace "## OpenAI-compatible endpoint" in docs/benchmarks.md
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine
from http_bench import cli, load_pairs, start_server

SECTION = "## OpenAI-compatible endpoint"
CONCURRENCY = (1, 16, 64)


async def _one(client: httpx.AsyncClient, path: str, body: dict[str, Any], stream: bool) -> tuple[float, float, bool]:
    """(total s, first-content s, answered) for one request."""
    t0 = time.perf_counter()
    if not stream:
        r = await client.post(path, json=body)
        elapsed = time.perf_counter() - t0
        return elapsed, elapsed, r.status_code == 200
    first = None
    async with client.stream("POST", path, json=body) as r:
        async for line in r.aiter_lines():
            if first is None and '"content": "' in line and '"content": ""' not in line:
                first = time.perf_counter() - t0
        ok = r.status_code == 200
    total = time.perf_counter() - t0
    return total, first if first is not None else total, ok


async def drive(base: str, path: str, bodies: list[dict[str, Any]], stream: bool, concurrency: int,
                seconds: float) -> dict[str, float]:
    totals: list[float] = []
    firsts: list[float] = []
    answered = 0
    stop = time.perf_counter() + seconds
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=60) as client:

        async def worker(offset: int) -> None:
            nonlocal answered
            i = offset
            while time.perf_counter() < stop:
                total, first, ok = await _one(client, path, bodies[i % len(bodies)], stream)
                i += concurrency
                totals.append(total)
                firsts.append(first)
                answered += ok

        started = time.perf_counter()
        await asyncio.gather(*(worker(k) for k in range(concurrency)))
        elapsed = time.perf_counter() - started
    totals.sort()
    n = len(totals)
    return {"n": n, "rps": n / elapsed, "p50_ms": 1000 * statistics.median(totals),
            "p99_ms": 1000 * totals[min(n - 1, int(0.99 * n))],
            "first_ms": 1000 * statistics.median(firsts), "answered": answered / n if n else 0.0}


def run(seconds: float, n_entries: int) -> tuple[list[dict[str, object]], str]:
    questions = [origin for origin, _ in load_pairs(n_entries)]
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp_dir:
        proc, base = start_server(Path(tmp_dir))
        try:
            with httpx.Client(base_url=base, timeout=60) as client:
                for q in questions:
                    client.post("/v1/cache/entries", json={"prompt": q, "response": f"answer to: {q}"}
                                ).raise_for_status()
            chat = [{"model": "lastline", "messages": [{"role": "user", "content": q}]} for q in questions]
            cases = [
                ("fallback", "/v1/fallback", [{"prompt": q} for q in questions], False),
                ("chat", "/v1/chat/completions", chat, False),
                ("chat SSE", "/v1/chat/completions", [{**b, "stream": True} for b in chat], True),
            ]
            rows: list[dict[str, object]] = []
            for name, path, bodies, stream in cases:
                asyncio.run(drive(base, path, bodies, stream, 4, 1.0))  # warm-up
                for c in CONCURRENCY:
                    res = asyncio.run(drive(base, path, bodies, stream, c, seconds))
                    rows.append({"case": name, "clients": c, **res})
                    print(f"{name:9s} c={c:3d} n={res['n']:6d} {res['rps']:7.0f} req/s p50 {res['p50_ms']:7.2f} "
                          f"p99 {res['p99_ms']:7.2f} first {res['first_ms']:7.2f} ok {res['answered']:.2f}",
                          file=sys.stderr)
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    return rows, f"{machine()}; 1-min load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after"


def table(rows: list[dict[str, object]], where: str, seconds: float, n_entries: int) -> str:
    lines = [
        SECTION, "",
        f"Machine: {where}. Produced by `python bench/openai_bench.py --write`.", "",
        f"One `lastline serve` process on loopback, {n_entries} cached questions, every request an exact-cache",
        f"answer. Clients send back to back for {seconds:g} s from one asyncio loop (httpx) on the same cores as",
        "the server, after a 1 s warm-up. `first ms` (median) is the time to the first content chunk of the",
        "stream (the whole answer for non-streaming rows).", "",
        "| case | clients | requests | req/s | p50 ms | p99 ms | first ms | answered |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(f"| {r['case']} | {r['clients']} | {r['n']} | {r['rps']:.0f} | {r['p50_ms']:.2f} | "
                     f"{r['p99_ms']:.2f} | {r['first_ms']:.2f} | {r['answered']:.0%} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    cli(run, table, SECTION, 5.0, __doc__ or "")

if __name__ == "__main__":
    main()
