"""Crash safety: SIGKILL a loaded ``lastline serve`` at random moments; no acknowledged entry may be lost.

Each cycle starts the server on the same SQLite file, lets 8 concurrent writers store fresh entries
over HTTP (each ``201`` with its id is an acknowledgement), and SIGKILLs the process a random
0.3–1.5 s after the cycle's first acknowledgement — mid-transaction, mid-WAL-write, wherever it is.
After the last cycle the server starts once more and every acknowledged entry is checked twice:
``POST /v1/cache/lookup`` must answer it (the SQLite row) and the semantic index rebuilt at start-up
must return it as its own nearest neighbour (the FAISS side, via :meth:`SemanticCache.score`).

    python bench/crash.py --cycles 20           # the bench version (prints a line, writes nothing)
    python bench/crash.py --cycles 20 --write   # also replace "## Crash safety" in docs/benchmarks.md

``tests/test_crash.py`` runs the same harness for 5 cycles.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine, write_section
from http_bench import start_server

SECTION = "## Crash safety"
WRITERS = 8

Start = Callable[[], tuple[subprocess.Popen[bytes], str]]


@dataclass
class CrashReport:
    cycles: int = 0
    acknowledged: dict[str, str] = field(default_factory=dict)  # entry id → prompt
    attempted: int = 0
    lost_rows: list[str] = field(default_factory=list)
    lost_in_index: list[str] = field(default_factory=list)
    kill_after_s: list[float] = field(default_factory=list)


def _writer(base: str, stop: threading.Event, report: CrashReport, lock: threading.Lock, tag: str) -> None:
    with httpx.Client(base_url=base, timeout=10) as client:
        while not stop.is_set():
            prompt = f"crash check {tag} {uuid.uuid4().hex} how is this entry kept?"
            with lock:
                report.attempted += 1
            try:
                res = client.post("/v1/cache/entries", json={"prompt": prompt, "response": f"kept: {prompt}"})
            except httpx.HTTPError:
                return  # the server was killed: this write was never acknowledged
            if res.status_code == 201:
                with lock:
                    report.acknowledged[res.json()["id"]] = prompt


def crash_cycles(start: Start, cycles: int, *, seed: int = 0, min_s: float = 0.3, max_s: float = 1.5) -> CrashReport:
    """Run ``cycles`` start → write → SIGKILL rounds; return what was acknowledged (checked by :func:`verify`)."""
    rng = random.Random(seed)
    report = CrashReport()
    lock = threading.Lock()
    for cycle in range(cycles):
        proc, base = start()
        stop = threading.Event()
        threads = [threading.Thread(target=_writer, args=(base, stop, report, lock, f"{cycle}-{w}"))
                   for w in range(WRITERS)]
        before = len(report.acknowledged)
        for t in threads:
            t.start()
        warm_until = time.monotonic() + 60  # the kill clock starts once writes are flowing
        while len(report.acknowledged) == before and time.monotonic() < warm_until:
            time.sleep(0.01)
        wait = rng.uniform(min_s, max_s)
        time.sleep(wait)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        stop.set()
        for t in threads:
            t.join()
        report.kill_after_s.append(wait)
        report.cycles += 1
    return report


def verify(start: Start, db: Path, report: CrashReport) -> CrashReport:
    """Restart once more: every acknowledged entry must be served, and be its own nearest vector."""
    from lastline import get_embedder, open_storage
    from lastline.cache import SemanticCache

    proc, base = start()
    try:
        with httpx.Client(base_url=base, timeout=30) as client:
            for entry_id, prompt in report.acknowledged.items():
                res = client.post("/v1/cache/lookup", json={"prompt": prompt})
                if res.status_code != 200 or res.json().get("entry_id") != entry_id:
                    report.lost_rows.append(entry_id)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    storage = open_storage(db)
    try:
        cache = SemanticCache(storage, get_embedder(os.environ.get("LASTLINE_EMBEDDER", "use"), 1))
        for entry_id, prompt in report.acknowledged.items():
            nearest, _ = cache.score(prompt)
            if nearest != entry_id:
                report.lost_in_index.append(entry_id)
    finally:
        storage.close()
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--cycles", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--write", action="store_true", help="Update docs/benchmarks.md.")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        db = tmp / "crash.db"
        # One worker: SIGKILL reaches the process that writes (a killed --workers supervisor would
        # leave its workers running).
        env = {"LASTLINE_DB": str(db), "LASTLINE_KB_ENGLISH_EMBEDDER": "none", "LASTLINE_WORKERS": "1"}

        def start() -> tuple[subprocess.Popen[bytes], str]:
            return start_server(tmp, env=env)

        started = time.perf_counter()
        report = verify(start, db, crash_cycles(start, args.cycles, seed=args.seed))
        elapsed = time.perf_counter() - started
    line = (f"{report.cycles} SIGKILL cycles under {WRITERS} concurrent writers: {len(report.acknowledged)} of "
            f"{report.attempted} writes acknowledged; lost rows {len(report.lost_rows)}, missing from the "
            f"index {len(report.lost_in_index)} ({elapsed:.0f} s)")
    print(line)
    if args.write:
        text = "\n".join([
            SECTION, "",
            f"Machine: {machine()}; 1-min load average {load_before:.1f} before. Produced by "
            f"`python bench/crash.py --cycles {args.cycles} --write`.", "",
            "Each cycle starts `lastline serve` on the same SQLite file, 8 threads store fresh entries over HTTP, and",
            "the process is SIGKILLed a random 0.3–1.5 s after the first acknowledgement. Then the server starts",
            "once more: every acknowledged",
            "entry (`201` with its id) must be served by `POST /v1/cache/lookup`, and the index rebuilt from SQLite",
            "must return it as its own nearest neighbour. Unacknowledged writes (in flight at the kill) may or may",
            "not have landed; none is counted.", "",
            line + ".",
        ]) + "\n"
        print(f"wrote {write_section(SECTION, text)}", file=sys.stderr)
    if report.lost_rows or report.lost_in_index:
        sys.exit(1)


if __name__ == "__main__":
    main()
