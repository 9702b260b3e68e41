"""How connections opened at once split over the workers of ``lastline serve --workers 2``.

A split decides who is shed: each worker has its own bulkhead slots, so with 16 clients and 8 write
slots per worker a 9/7 split refuses one client's every request while the other worker has room. And
a wave taken slowly decides how long its last clients wait for a first answer. For each size, the
script opens that many connections at once, asks each which worker holds it (``GET /readyz`` answers
with the worker's pid) and times the last answer, closes them, and does it again. The server is
idle but for the wave itself; ``bench/load.py`` measures waves under load (its 256-client and burst
rows open theirs with the row).

    python bench/worker_balance.py [--sizes 16,64,256] [--trials 40] [--write]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine, write_section
from _http_client import exchange, get_request, run_client
from http_bench import start_server

SECTION = "## Workers: connections opened at once"


async def wave(host: str, port: int, size: int) -> tuple[int, float]:
    """Open ``size`` connections at once, one ``GET /readyz`` on each: (most minus fewest per worker,
    seconds from the first connect to the last answer)."""
    request = get_request(f"{host}:{port}", "/readyz")
    started = time.perf_counter()
    conns = await asyncio.gather(*(asyncio.open_connection(host, port) for _ in range(size)))
    try:
        replies = await asyncio.gather(*(exchange(reader, writer, request) for reader, writer in conns))
    finally:
        for _, writer in conns:
            writer.close()
    elapsed = time.perf_counter() - started
    pids = Counter(int(json.loads(body)["pid"]) for _, body, _ in replies)
    counts = [*pids.values(), 0, 0][:2]  # two workers: one that holds none counts as 0
    return max(counts) - min(counts), elapsed


def both_workers_answer(host: str, port: int) -> None:
    """Wait until a wave reaches both workers: the second starts a little after the first says ready."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if run_client(wave(host, port, 4))[0] < 4:  # not all four on one worker
            return
        time.sleep(0.5)
    raise RuntimeError("the second worker never answered")


def run(sizes: list[int], trials: int) -> list[dict[str, object]]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        proc, base = start_server(Path(tmp), ["--workers", "2"], {"LASTLINE_KB_ENGLISH_EMBEDDER": "none"})
        try:
            host, port = base.removeprefix("http://").split(":")
            both_workers_answer(host, int(port))
            for size in sizes:
                spreads: Counter[int] = Counter()
                times = []
                for _ in range(trials):
                    spread, elapsed = run_client(wave(host, int(port), size))
                    spreads[spread] += 1
                    times.append(elapsed)
                    time.sleep(0.3)  # the workers see the last wave's connections closed
                row = {"size": size, "trials": trials, "spreads": dict(sorted(spreads.items())),
                       "p50_ms": 1000 * statistics.median(times), "max_ms": 1000 * max(times)}
                print(f"{size:5d} connections: most minus fewest {row['spreads']}, last answer p50 "
                      f"{row['p50_ms']:.1f} ms, max {row['max_ms']:.1f} ms", file=sys.stderr)
                rows.append(row)
        finally:
            proc.terminate()
            proc.wait(timeout=60)
    return rows


def render(rows: list[dict[str, object]], trials: int) -> str:
    lines = [SECTION, "", f"Machine: {machine()}. Produced by `python bench/worker_balance.py --write`.", "",
             "`lastline serve --workers 2`, idle; each try opens the connections at once, asks each which worker "
             "holds it, then closes them. `most − fewest`: how many tries ended with that difference between "
             f"the two workers' connections ({trials} tries per size). The time runs from the first connect to "
             "the last answer.", "",
             "| connections | most − fewest: tries | last answer p50 ms | max ms |", "|---:|---|---:|---:|"]
    for row in rows:
        spreads = ", ".join(f"{k}: {v}" for k, v in row["spreads"].items())  # type: ignore[attr-defined]
        lines.append(f"| {row['size']} | {spreads} | {row['p50_ms']:.1f} | {row['max_ms']:.1f} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="16,64,256")
    parser.add_argument("--trials", type=int, default=40)
    parser.add_argument("--write", action="store_true", help="Update docs/benchmarks.md.")
    args = parser.parse_args()
    rows = run([int(s) for s in args.sizes.split(",")], args.trials)
    text = render(rows, args.trials)
    print(text)
    if args.write:
        write_section(SECTION, text)


if __name__ == "__main__":
    main()
