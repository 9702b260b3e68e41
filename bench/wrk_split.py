"""``wrk`` against two workers: how they split its connections, and what a split past the slots costs.

Why: ``bench/load.py``'s client opens a row's connections in one wave and two workers split them
evenly; ``wrk -t2`` opens them thread by thread, and left 256 connections at 130/126 or 134/122 in
half its rows here, once 192/64. A worker holding more connections than its ``semantic`` slots
refuses the lookups past them, and a refused client that comes straight back (``wrk`` does, as does
any client that ignores ``Retry-After``) is refused again, hundreds of times a second
(docs/reliability.md, "`semantic` slots on SQLite"). So this runs ``wrk`` rows — a Lua script posting
unseen questions in fallback mode, each row its own slice of texts so that the embedder's memo never
answers — against fresh servers on ``bench/load.py``'s data, samples how many connections each
worker holds once a second, and counts the ``503 overloaded``. ``--env`` sets server settings, to
compare (e.g. the 128 slots of before).

``--mix exact`` posts the stored questions instead (exact hits, one indexed read each), and
``--levels`` runs rows at several client counts, ``--bare`` the bare app of ``bench/load.py`` first
at the same levels: the issue's own measurement of whether throughput holds as clients rise, with a
client written in C, where ``bench/load.py``'s asyncio client spends more of the same two cores
per request. ``--floor`` runs rows against the refusal floor of ``bench/load.py`` (a server that
answers every request with a constant ``503 overloaded`` and does nothing else) before them: what
``wrk`` itself sees of the cheapest refusal on these cores.

    python bench/wrk_split.py                        # 2 servers × 4 rows of 256 clients (≈3 minutes)
    python bench/wrk_split.py --env LASTLINE_LIMIT_SEMANTIC=128 --env LASTLINE_LIMIT_CACHE=144
    python bench/wrk_split.py --write                # also replace its section of docs/benchmarks.md
    python bench/wrk_split.py --mix exact --levels 1,16,64,256,1280 --servers 1 --rows 1 --bare --write

Needs Debian's ``wrk`` and Linux ``/proc``; 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine, write_section
from http_bench import children, start_server
from load import bodies_for, seed, start_bare, start_floor

SECTION = "## wrk against two workers"
#: Each mix writes a section of its own.
SECTIONS = {"semantic": SECTION, "exact": "## wrk against two workers: exact hits by level"}
#: Posts the lines of BODIES in turn (each wrk thread from its own offset) and prints one JSON line.
LUA = r"""
local bodies = {}
for line in io.lines(os.getenv("BODIES")) do bodies[#bodies + 1] = line end
local threads, made = {}, 0
function setup(thread)
  thread:set("offset", made * math.floor(#bodies / 2))
  made = made + 1
  table.insert(threads, thread)
end
local i = 0
function init(args) i = offset end
function request()
  i = i + 1
  return wrk.format("POST", "/v1/cache/lookup", {["Content-Type"] = "application/json"},
                    bodies[(i % #bodies) + 1])
end
refused, other = 0, 0
function response(status, headers, body)
  if status == 503 then refused = refused + 1 elseif status ~= 200 then other = other + 1 end
end
function done(summary, latency, requests)
  local r, o = 0, 0
  for _, t in ipairs(threads) do r = r + t:get("refused"); o = o + t:get("other") end
  local e = summary.errors
  io.write(string.format('wrk-json {"requests": %d, "seconds": %f, "refused": %d, "other": %d, '
    .. '"p50_ms": %f, "p99_ms": %f, "max_ms": %f, "socket_errors": %d}\n',
    summary.requests, summary.duration / 1e6, r, o, latency:percentile(50) / 1000,
    latency:percentile(99) / 1000, latency.max / 1000, e.connect + e.read + e.write + e.timeout))
end
"""


@dataclass
class Row:
    server: int  # which fresh server, from 0; -1 for the bare app, -2 for the floor
    pid: int
    row: int
    clients: int
    splits: list[tuple[int, ...]] = field(default_factory=list)
    result: dict[str, float] = field(default_factory=dict)


def workers_of(pid: int) -> list[int]:
    """The server's uvicorn workers: its children spawned by multiprocessing, not its resource tracker
    (the workers' KB processes are their children, not the server's)."""
    return sorted(c for c in children(pid) if b"spawn_main" in Path(f"/proc/{c}/cmdline").read_bytes())


def connections_held(pids: list[int], port: int) -> tuple[int, ...]:
    """Established connections to ``port`` that each of ``pids`` holds (``/proc/net/tcp``, socket inodes)."""
    established: set[str] = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        cols = line.split()
        if cols[3] == "01" and int(cols[1].split(":")[1], 16) == port:
            established.add(cols[9])
    held = []
    for pid in pids:
        inodes = set()
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                match = re.fullmatch(r"socket:\[(\d+)\]", os.readlink(fd))
            except OSError:  # closed since the listing (a connection the worker handed back), or not a link
                continue
            if match:
                inodes.add(match.group(1))
        held.append(len(inodes & established))
    return tuple(held)


def run_row(port: int, bodies: Path, lua: Path, args: argparse.Namespace, row: Row) -> None:
    """One ``wrk`` row, sampling the split once a second while it runs."""
    proc = subprocess.Popen(
        ["wrk", f"-t{min(args.threads, row.clients)}", f"-c{row.clients}", f"-d{args.seconds}s", "--latency",
         "-s", str(lua),
         f"http://127.0.0.1:{port}"], env={**os.environ, "BODIES": str(bodies)},
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    workers: list[int] = []

    def sample() -> None:
        while proc.poll() is None:
            time.sleep(1.0)
            if proc.poll() is None:
                row.splits.append(connections_held(workers, port))

    workers.extend(workers_of(row.pid))
    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, _ = proc.communicate(timeout=args.seconds + 60)
    sampler.join()
    line = next((ln for ln in out.splitlines() if ln.startswith("wrk-json ")), None)
    if line is None:
        raise RuntimeError(f"wrk said:\n{out}")
    row.result = json.loads(line.removeprefix("wrk-json "))


def run(args: argparse.Namespace) -> list[Row]:
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        env = {"HF_HUB_OFFLINE": "1"}
        seeded = tmp / "seeded"
        seeded.mkdir()
        seed(seeded, {**env, "LASTLINE_DB": str(seeded / "bench.db")}, args.entries, args.kb_docs)
        lua = tmp / "post.lua"
        lua.write_text(LUA, encoding="utf-8")
        _, posted = bodies_for(args.mix, args.entries)
        bare_bodies = bodies_for("bare", args.entries)[1] if args.bare or args.floor else []
        per_row = len(posted) // (args.servers * args.rows * len(args.levels))
        settings = dict(kv.split("=", 1) for kv in args.env)
        servers = ([-2] if args.floor else []) + ([-1] if args.bare else []) + list(range(args.servers))
        made = 0
        for s in servers:
            run_dir = tmp / f"server{s}"
            run_dir.mkdir()
            shutil.copy(seeded / "bench.db", run_dir / "bench.db")  # start_server's database name
            proc, base = ({-2: start_floor, -1: start_bare}[s](run_dir) if s < 0
                          else start_server(run_dir, env={**env, **settings}))
            try:
                time.sleep(args.settle)
                for clients in args.levels:
                    for r in range(args.rows):
                        texts = bare_bodies[:per_row] if s < 0 else posted[made * per_row : (made + 1) * per_row]
                        made += s >= 0
                        bodies = tmp / f"server{s}-c{clients}-row{r}.jsonl"
                        bodies.write_text("".join(json.dumps(b, ensure_ascii=False) + "\n" for b in texts),
                                          encoding="utf-8")
                        row = Row(server=s, pid=proc.pid, row=r, clients=clients)
                        run_row(int(base.rsplit(":", 1)[1]), bodies, lua, args, row)
                        rows.append(row)
                        print(render_row(row), flush=True)
                        time.sleep(args.gap)
            finally:
                proc.terminate()
                proc.wait(timeout=60)
    return rows


def render_row(row: Row) -> str:
    res = row.result
    answered = res["requests"] - res["refused"] - res["other"]  # a 200 each
    splits = sorted({"/".join(map(str, sorted(s, reverse=True))) for s in row.splits if sum(s) == row.clients})
    server = {-2: "floor", -1: "bare app"}.get(row.server, f"{row.server + 1}")
    return (f"| {server} | {row.clients} | {row.row + 1} | {', '.join(splits) or '—'} | "
            f"{answered / res['seconds']:.0f} | "
            f"{res['refused']:.0f} | {res['other']:.0f} | {res['socket_errors']:.0f} | {res['p50_ms']:.1f} | "
            f"{res['p99_ms']:.1f} | {res['max_ms']:.1f} |")


def render(rows: list[Row], args: argparse.Namespace, started: str, load_before: str) -> str:
    settings = " ".join(args.env) or "the defaults"
    levels = ",".join(map(str, args.levels))
    flags = (f"{f' --mix {args.mix}' if args.mix != 'semantic' else ''}"
             f"{f' --levels {levels}' if levels != '256' else ''}"
             f"{f' --servers {args.servers}' if args.servers != 2 else ''}"
             f"{f' --rows {args.rows}' if args.rows != 4 else ''}"
             f"{f' --seconds {args.seconds}' if args.seconds != 5 else ''}"
             f"{' --floor' if args.floor else ''}{' --bare' if args.bare else ''}"
             f"{''.join(f' --env {e}' for e in args.env)}")
    posting = ("the stored questions themselves (exact hits)" if args.mix == "exact"
               else "unseen questions in fallback mode")
    bare = (" The bare app (`bench/load.py --bare`: one POST endpoint, the same JSON body through pydantic) first, "
            "before the server, at the same levels." if args.bare else "")
    floor = (" The floor (`bench/load.py --floor`: a server that refuses every request with a constant "
             "`503 overloaded` and does nothing else, one process per core) first: what `wrk` sees of the "
             "cheapest refusal a Python server can write." if args.floor else "")
    head = [
        SECTIONS[args.mix], "",
        f"Machine: {machine()}; started {started} UTC; load average {load_before} before, "
        f"{' / '.join(f'{x:.1f}' for x in os.getloadavg())} after. Produced by `python bench/wrk_split.py"
        f"{flags} --write`.", "",
        f"`lastline serve` with its default two workers and {settings}, on `bench/load.py`'s data "
        f"({args.entries} cached questions); `wrk -t{args.threads} -c<clients> -d{args.seconds}s` posting "
        f"{posting}, a fresh server per {args.rows} row(s) at each of {levels} clients, {args.gap:g} s between rows."
        f"{floor}{bare} Split: the connections each worker held, sampled once "
        "a second while all of them were open (every distinct split seen). Answered: 200s a second; "
        "refused: `503 overloaded` in the row.", "",
        "| server | clients | row | split | answered/s | refused | other statuses | socket errors | p50 ms | p99 ms "
        "| max ms |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    return "\n".join(head + [render_row(r) for r in rows]) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--servers", type=int, default=2, help="Fresh servers, one after another.")
    parser.add_argument("--rows", type=int, default=4, help="wrk rows per server.")
    parser.add_argument("--levels", default="256", help="Clients per row, comma-separated: rows at each level.")
    parser.add_argument("--mix", choices=sorted(SECTIONS), default="semantic",
                        help="Unseen questions (semantic) or the stored ones (exact hits).")
    parser.add_argument("--bare", action="store_true", help="Rows against the bare app first, at the same levels.")
    parser.add_argument("--floor", action="store_true",
                        help="Rows against the refusal floor (bench/load.py --floor) first, at the same levels.")
    parser.add_argument("--threads", type=int, default=2, help="wrk threads (-t).")
    parser.add_argument("--seconds", type=int, default=5, help="Length of each row.")
    parser.add_argument("--gap", type=float, default=2.0,
                        help="Seconds between rows (the lookups of the row before finish).")
    parser.add_argument("--settle", type=float, default=8.0, help="Seconds after /readyz before the first row.")
    parser.add_argument("--entries", type=int, default=2000, help="Cached questions (QQP validation).")
    parser.add_argument("--kb-docs", type=int, default=2000, help="BQ FAQ questions in the KB.")
    parser.add_argument("--env", action="append", default=[], metavar="K=V", help="A server setting (repeatable).")
    parser.add_argument("--write", action="store_true", help="Replace the mix's section of docs/benchmarks.md.")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("needs wrk (apt-get install wrk)")
    if any("=" not in kv for kv in args.env):
        sys.exit("--env takes K=V")
    args.levels = [int(c) for c in args.levels.split(",")]
    started = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
    load_before = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    rows = run(args)
    text = render(rows, args, started, load_before)
    print(text)
    if args.write:
        print(f"wrote {write_section(SECTIONS[args.mix], text)}", file=sys.stderr)


if __name__ == "__main__":
    main()
