"""Latency and throughput of the OpenAI-compatible face against ``POST /v1/fallback`` on loopback.

Starts one ``lastline serve`` (default USE embedder) on a fresh SQLite file, seeds the cache with
GPTCache's benchmark ``origin`` questions, then drives three cases with 1, 16 and 64 concurrent
clients (kept-alive connections of the raw-socket client in ``bench/_http_client.py``, one uvloop
event loop in this process: httpx's own cost per request would cap the figures, not the server), each
answered from the exact cache layer:

- ``fallback``  — ``POST /v1/fallback {prompt}``: the envelope (baseline);
- ``chat``      — ``POST /v1/chat/completions`` (one user message): chat context, the same ladder,
                  a ``chat.completion`` body;
- ``chat SSE``  — the same with ``stream: true``; ``first ms`` is the time to the first content chunk
                  (the whole exchange: the server sends the stream's events in one body).

    python bench/openai_bench.py               # print the table
    python bench/openai_bench.py --write       # also replace "## OpenAI-compatible endpoint" in docs/benchmarks.md
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _http_client as http_client
from _common import machine
from _http_client import post_request, run_client
from http_bench import ONE_PROCESS, cli, load_pairs, start_server

SECTION = "## OpenAI-compatible endpoint"
CONCURRENCY = (1, 16, 64)


def _has_content(chunk: bytes) -> bool:
    """An SSE chunk carrying answer text (the first one only opens the assistant's message)."""
    return b'"content":' in chunk and b'"content":""' not in chunk.replace(b" ", b"")


async def drive(base: str, path: str, bodies: list[dict[str, Any]], stream: bool, concurrency: int,
                seconds: float) -> dict[str, float]:
    """One row: the shared raw-socket client; ``hit_rate`` here is the share answered (status 200)."""
    host = base.removeprefix("http://")
    requests = [post_request(host, path, b) for b in bodies]
    res = await http_client.drive(base, requests, concurrency, seconds, first=_has_content if stream else None)
    return {**res, "answered": res["hit_rate"]}


def run(seconds: float, n_entries: int) -> tuple[list[dict[str, object]], str]:
    questions = [origin for origin, _ in load_pairs(n_entries)]
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp_dir:
        proc, base = start_server(Path(tmp_dir), ONE_PROCESS)
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
                run_client(drive(base, path, bodies, stream, 4, 1.0))  # warm-up
                for c in CONCURRENCY:
                    res = run_client(drive(base, path, bodies, stream, c, seconds))
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
        f"answer. Clients send back to back for {seconds:g} s over kept-alive connections from one uvloop event loop",
        "(the raw-socket HTTP/1.1 client in `bench/_http_client.py`) on the same cores as the server, after a 1 s",
        "warm-up. `first ms` (median) is the time to the first content chunk of the",
        "stream (the whole answer for non-streaming rows, and for the stream too now that its events come in",
        "one body).", "",
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
