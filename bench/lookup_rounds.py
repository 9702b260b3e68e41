"""Concurrent semantic lookups, in process: a thread each, or queued for the cache's lookup rounds.

The server's lookups past the exact key used to run on a request thread each, sharing model calls
through the embedder's micro-batcher; they now queue for one thread that runs them in rounds, one
model call and one kNN search per partition per round (``cache/_rounds.py``). This bench puts the
two side by side without HTTP: ``clients`` threads each send lookups back to back, either calling
``SemanticCache.lookup`` (a thread each) or ``SemanticCache.submit_lookup`` and waiting for the
answer (rounds).

One cache of the first 2,000 distinct QQP validation ``question1`` (fallback mode, shipped
thresholds). First the ``question2`` of their pairs go through both ways and the decisions (hit,
entry, layer) are compared; then, with the ``question2`` of the pairs after them, each text sent once,
blocks of ``--per-block`` lookups alternate between the sides, at each client count, so that drift
on a shared host falls on both alike. Reported per side: lookups per second, CPU of the whole
process per lookup (every thread: the model, the lookups, the hand-overs), texts per model call, and
vectors per kNN search (one per lookup on a thread each).

Run: ``python bench/lookup_rounds.py [--clients 1,16] [--stored 2000] [--blocks 4] [--per-block 500] [--write]``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from _common import Section, read_pairs

from lastline import get_embedder, normalize_text, open_storage
from lastline.cache import LookupResult, SemanticCache

SECTION = "### Concurrent lookups: a thread each or rounds (`bench/lookup_rounds.py`)"
STORED = 2_000
SIDES = ("a thread each", "rounds")


def _decision(res: LookupResult) -> tuple[bool, str | None, str | None]:
    return res.hit, res.entry_id, res.layer


def _run_clients(ask: Callable[[str], LookupResult], texts: list[str], clients: int) -> None:
    """``clients`` threads, each sending its share of ``texts`` back to back."""
    shares = [texts[i::clients] for i in range(clients)]
    threads = [threading.Thread(target=lambda share=share: [ask(t) for t in share]) for share in shares]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--clients", default="1,16", help="client threads, comma-separated")
    parser.add_argument("--stored", type=int, default=STORED, help="cached questions")
    parser.add_argument("--blocks", type=int, default=4, help="timed blocks per side and client count")
    parser.add_argument("--per-block", type=int, default=500, help="lookups per block")
    parser.add_argument("--decisions", type=int, default=1_000, help="lookups whose decisions are compared")
    parser.add_argument("--write", action="store_true", help=f"replace '{SECTION}' in docs/benchmarks.md")
    args = parser.parse_args()
    levels = [int(c) for c in args.clients.split(",")]
    q1, q2, _ = read_pairs("qqp_val.csv")
    stored: list[str] = []
    seen: set[str] = set()
    at = 0
    while len(stored) < args.stored:
        norm = normalize_text(q1[at])
        if norm and norm not in seen:
            seen.add(norm)
            stored.append(q1[at])
        at += 1
    compared = [q for q in dict.fromkeys(q2[:at]) if normalize_text(q)][: args.decisions]
    lookups = [q for q in dict.fromkeys(q2[at:]) if normalize_text(q)]
    need = 2 * len(levels) * args.blocks * args.per_block
    if len(lookups) < need:
        sys.exit(f"{len(lookups)} lookups available, {need} needed: fewer --blocks or --per-block")
    embedder = get_embedder("use", 1)
    out = Section(SECTION)
    out(f"One cache of {args.stored:,} QQP validation questions, fallback mode. Decisions: the `question2` of their "
        f"pairs ({len(compared):,}) through both sides. Timed: the `question2` of the pairs after them, each sent "
        f"once, "
        f"{args.blocks} blocks of {args.per_block} lookups per side and client count, alternating. CPU is the "
        "whole process's (every thread) per lookup.")
    out()
    with tempfile.TemporaryDirectory() as folder:
        storage = open_storage(Path(folder) / "cache.db")
        cache = SemanticCache(storage, embedder)
        for i in range(0, len(stored), 500):
            cache.put_many([{"prompt": q, "response": f"answer to: {q}"} for q in stored[i: i + 500]])
        cache.warm()
        asks: dict[str, Callable[[str], LookupResult]] = {
            "a thread each": lambda text: cache.lookup(text, mode="fallback"),
            "rounds": lambda text: cache.submit_lookup(text, mode="fallback").result(),
        }
        one = [_decision(asks["a thread each"](t)) for t in compared]
        futures = [cache.submit_lookup(t, mode="fallback") for t in compared]
        differ = sum(_decision(f.result()) != d for f, d in zip(futures, one, strict=True))
        out(f"Decisions that differ: {differ} of {len(compared):,} ({sum(h for h, _, _ in one)} hits).")
        out()
        out("| clients | side | lookups/s (blocks) | CPU ms per lookup (blocks) | texts per model call "
            "| vectors per kNN search |")
        out("|---:|---|---|---|---:|---:|")
        at = 0
        for clients in levels:
            rates: dict[str, list[float]] = {side: [] for side in SIDES}
            cpus: dict[str, list[float]] = {side: [] for side in SIDES}
            calls = {side: [0, 0] for side in SIDES}
            searches = [0, 0]  # the rounds' kNN searches and the vectors they searched
            for block in range(2 * args.blocks):
                side = SIDES[block % 2]
                texts = lookups[at: at + args.per_block]
                at += args.per_block
                model = (embedder.stats.calls, embedder.stats.texts)
                knn = (cache.rounds.stats.search_calls, cache.rounds.stats.searched)
                cpu, wall = time.process_time(), time.perf_counter()
                _run_clients(asks[side], texts, clients)
                cpus[side].append(1000 * (time.process_time() - cpu) / len(texts))
                rates[side].append(len(texts) / (time.perf_counter() - wall))
                calls[side][0] += embedder.stats.calls - model[0]
                calls[side][1] += embedder.stats.texts - model[1]
                searches[0] += cache.rounds.stats.search_calls - knn[0]
                searches[1] += cache.rounds.stats.searched - knn[1]
            for side in SIDES:
                rate, cpu = sorted(rates[side]), sorted(cpus[side])
                out(f"| {clients} | {side} | {rate[len(rate) // 2]:,.0f} ({rate[0]:,.0f}–{rate[-1]:,.0f}) "
                    f"| {cpu[len(cpu) // 2]:.2f} ({cpu[0]:.2f}–{cpu[-1]:.2f}) "
                    f"| {calls[side][1] / max(1, calls[side][0]):.1f} "
                    f"| {1.0 if side == SIDES[0] else searches[1] / max(1, searches[0]):.1f} |")
        cache.close()
        storage.close()
    out()
    out("Medians, with the blocks' range in brackets. At 1 client the rounds side pays a hand-over to the "
        "rounds' thread and back that the other side, calling the lookup on its own thread, does not; in the "
        "server both sides make one such hop (from the event loop).")
    out.done(args.write)


if __name__ == "__main__":
    main()
