"""In-process lookup latency at 1k, 100k and 1M entries, memory per entry, and the embedding ratio.

Entries are synthetic (prompt ``e<i>``) with embedding-like vectors: real USE embeddings of
development questions plus Gaussian noise, re-normalized, so neighbourhoods look like real
ones (pure random vectors flatter HNSW less). A stand-in embedder maps each text to its
precomputed vector, which times everything *after* the embedding call — exact hash, fuzzy scan
(small partitions), FAISS (flat below ``hnsw_threshold``, HNSW above), SQLite row fetch, slot
guard, age check, counters — through the real ``SemanticCache.lookup``. The real embedder is
timed on its own on short questions; the ratio of the two is the overhead of a semantic lookup
beyond the embedding call.

Half the lookups are near-duplicates of stored entries (hits), half are fresh (misses).
Memory per entry = growth of the process's resident set while the cache fills / entries (FAISS
vectors + HNSW graph + Python maps), and the SQLite file size / entries on disk.

The machine (2 cores, shared with other engineers' jobs) makes p99 noisy: read p50 first.

``--sync`` adds what keeping the index in step with other processes costs (``SemanticCache.sync``,
which every lookup calls first): a second instance on the same file, its own connection and index,
times ``sync()`` when nothing changed (the every-lookup price), after another connection committed
something that is not an entry (a lookup counter: one counter read), after another instance put one
entry and deleted one (a catch-up each), and its whole lookup p50 with and without the sync call.

Usage: python bench/cache_scale.py [--sizes 1000 100000 1000000] [--lookups 2000] [--sync]
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _cache_common import load_set, percentile_ms
from _common import Section

from lastline import get_embedder, open_storage
from lastline.cache import CacheConfig, SemanticCache

SECTION = "### Scale (`bench/cache_scale.py`)"
SYNC_SECTION = "### Keeping the index in step across processes (`bench/cache_scale.py --sync`)"


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def name(prefix: str, i: int) -> str:
    """``entry bcd`` style names: letters only, so the slot guard sees no numbers to compare."""
    letters = ""
    while True:
        i, r = divmod(i, 26)
        letters = chr(97 + r) + letters
        if not i:
            return f"{prefix} {letters}"


def index_of(text: str) -> int:
    value = 0
    for ch in text.split(" ", 1)[1]:
        value = value * 26 + ord(ch) - 97
    return value


class VectorTable:
    """The stand-in embedder: ``entry <i>`` → entry vector i, ``query <i>`` → query vector i."""

    def __init__(self, model_id: str, entries: np.ndarray, queries: np.ndarray) -> None:
        self.model_id, self.dim = model_id, entries.shape[1]
        self.entries, self.queries = entries, queries

    def load(self) -> None:
        return None

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        table = {"e": self.entries, "q": self.queries}
        return np.stack([table[t[0]][index_of(t)] for t in texts])


def synthetic(base: np.ndarray, n: int, noise: float, rng: np.random.Generator) -> np.ndarray:
    out = np.empty((n, base.shape[1]), dtype=np.float32)
    for start in range(0, n, 100_000):
        m = min(100_000, n - start)
        v = base[rng.integers(0, len(base), m)] + rng.normal(0, noise / np.sqrt(base.shape[1]),
                                                              (m, base.shape[1])).astype(np.float32)
        out[start:start + m] = v / np.linalg.norm(v, axis=1, keepdims=True)
    return out


def lookup_table(base: np.ndarray, n: int, lookups: int, model_id: str, rng: np.random.Generator) -> VectorTable:
    """``n`` synthetic entries and ``lookups`` queries: half near-duplicates of entries, half fresh."""
    entries = synthetic(base, n, 0.6, rng)
    near = entries[rng.integers(0, n, lookups // 2)]
    near = near + rng.normal(0, 0.05 / np.sqrt(base.shape[1]), near.shape).astype(np.float32)
    fresh = synthetic(base, lookups - lookups // 2, 0.6, rng)
    queries = np.concatenate([near / np.linalg.norm(near, axis=1, keepdims=True), fresh]).astype(np.float32)
    return VectorTable(model_id, entries, queries)


def run_size(n: int, base: np.ndarray, model_id: str, lookups: int, config: CacheConfig, label: str,
             rng: np.random.Generator) -> dict[str, Any]:
    table = lookup_table(base, n, lookups, model_id, rng)
    with tempfile.TemporaryDirectory(prefix="lastline-scale-") as tmp:
        storage = open_storage(Path(tmp) / "scale.db")
        gc.collect()
        before = rss_mb()
        cache = SemanticCache(storage, table, config)  # type: ignore[arg-type]
        started = time.perf_counter()
        batch = 20_000
        for s in range(0, n, batch):
            cache.put_many([{"prompt": name("entry", i), "response": f"answer {i}"}
                            for i in range(s, min(n, s + batch))])
        insert_s = time.perf_counter() - started
        gc.collect()
        grown = rss_mb() - before
        db_bytes = sum(f.stat().st_size for f in Path(tmp).iterdir())
        times, hits = [], 0
        for j in range(lookups):
            t0 = time.perf_counter()
            res = cache.lookup(name("query", j), threshold=0.9)
            times.append(time.perf_counter() - t0)
            hits += res.hit
        kind = cache.index.kind(("default", next(iter(cache.index._parts))[1])) if n else None
        storage.close()
    return {"n": n, "label": label, "index": kind, "p50": percentile_ms(times, 50), "p99": percentile_ms(times, 99),
            "mean": float(np.mean(times) * 1000), "hit_share": hits / lookups, "insert_per_s": n / insert_s,
            "rss_per_entry": grown * 2**20 / n, "disk_per_entry": db_bytes / n}


def sync_cost(n: int, base: np.ndarray, model_id: str, lookups: int, rng: np.random.Generator) -> dict[str, Any]:
    """Per-call cost of ``sync()`` in each state, in µs, on a second instance over the same file."""
    reps = min(lookups, 500)
    entries = synthetic(base, n + reps, 0.6, rng)
    queries = synthetic(base, lookups, 0.6, rng)
    table = VectorTable(model_id, entries, queries)
    # no LRU eviction: at 1M entries of ≈2.1 kB the default 2 GB max_bytes would evict some
    config = CacheConfig(record_lookups=True, max_entries=2 * n + reps, max_bytes=10**12)
    with tempfile.TemporaryDirectory(prefix="lastline-sync-") as tmp:
        writer_storage, reader_storage = open_storage(Path(tmp) / "s.db"), open_storage(Path(tmp) / "s.db")
        writer = SemanticCache(writer_storage, table, config)  # type: ignore[arg-type]
        for s in range(0, n, 20_000):
            writer.put_many([{"prompt": name("entry", i), "response": f"answer {i}"}
                             for i in range(s, min(n, s + 20_000))])
        reader = SemanticCache(reader_storage, table, config)  # type: ignore[arg-type]
        reader.sync()

        def timed(before: Any) -> float:
            samples = []
            for i in range(reps):
                before(i)
                t0 = time.perf_counter()
                reader.sync()
                samples.append(time.perf_counter() - t0)
            return float(np.median(samples) * 1e6)

        idle = timed(lambda i: None)
        other_write = timed(lambda i: writer.lookup(name("entry", i)))  # commits a counter, no entry change
        ids: list[str] = []
        insert = timed(lambda i: ids.append(writer.put(name("entry", n + i), f"answer {n + i}")))
        delete = timed(lambda i: writer.delete(ids[i]))
        assert len(reader.index) == reader.count() == n, "the reader's index must match SQLite again"
        with_sync, without = [], []
        real_sync = reader.sync
        for start in range(0, lookups, 50):  # alternating blocks and order: load and warm pages hit both alike
            arms = [(with_sync, real_sync), (without, lambda: None)]
            for sink, fn in arms if start % 100 else arms[::-1]:
                reader.sync = fn  # type: ignore[method-assign]
                for j in range(start, min(lookups, start + 50)):
                    t0 = time.perf_counter()
                    reader.lookup(name("query", j), threshold=0.9)
                    sink.append(time.perf_counter() - t0)
        reader.sync = real_sync  # type: ignore[method-assign]
        writer_storage.close()
        reader_storage.close()
    return {"n": n, "idle": idle, "other_write": other_write, "insert": insert, "delete": delete,
            "p50_with": percentile_ms(with_sync, 50), "p50_without": percentile_ms(without, 50)}


def embed_timing(embedder: Any, texts: list[str]) -> tuple[float, float]:
    for t in texts[:20]:
        embedder.encode([t])
    times = []
    for t in texts:
        t0 = time.perf_counter()
        embedder.encode([t])
        times.append(time.perf_counter() - t0)
    return percentile_ms(times, 50), percentile_ms(times, 99)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", nargs="+", type=int, default=[1_000, 100_000, 1_000_000])
    parser.add_argument("--lookups", type=int, default=2000)
    parser.add_argument("--flat-too", action="store_true", help="also time exact flat search at each size")
    parser.add_argument("--faiss-threads", type=int, default=0, help="OpenMP threads for FAISS (0: default)")
    parser.add_argument("--sync", action="store_true", help="only time keeping the index in step across processes")
    parser.add_argument("--write", action="store_true", help="replace this run's section of docs/benchmarks.md")
    args = parser.parse_args()
    import faiss

    if args.faiss_threads:
        faiss.omp_set_num_threads(args.faiss_threads)
    rng = np.random.default_rng(5)
    embedder = get_embedder("use", 1)
    embedder.load()
    qqp = load_set("qqp_val")
    questions = list(dict.fromkeys(qqp.first))[:4000]  # type: ignore[attr-defined]
    base = embedder.encode(questions)
    e50, e99 = embed_timing(embedder, questions[:500])
    if args.sync:
        out = Section(SYNC_SECTION)
        out("| entries | sync(), nothing changed µs | after another connection's non-entry commit µs "
            "| after another instance's put µs | after its delete µs | lookup p50 ms with / without sync |")
        out("|---|---|---|---|---|---|")
        for n in args.sizes:
            r = sync_cost(n, base, embedder.model_id, args.lookups, rng)
            out(f"| {n:,} | {r['idle']:.1f} | {r['other_write']:.1f} | {r['insert']:.1f} | {r['delete']:.1f} | "
                f"{r['p50_with']:.3f} / {r['p50_without']:.3f} |", flush=True)
        out.done(args.write)
        return
    out = Section(SECTION)
    out(f"FAISS OpenMP threads: {args.faiss_threads or faiss.omp_get_max_threads()} (default = all cores).\n")
    out(f"Embedding one short question ({embedder.model_id}, 1 thread): p50 {e50:.2f} ms, p99 {e99:.2f} ms.\n")
    out("| entries | index | lookup p50 ms | p99 ms | mean ms | p50 / embedding p50 | hits | inserts/s "
        "(no embedding) | RAM / entry | disk / entry |")
    out("|---|---|---|---|---|---|---|---|---|---|")
    # No LRU eviction: at 1M entries of ≈2.1 kB the default 2 GB max_bytes evicts ≈4% of them, and
    # lookups of evicted entries would read as index misses.
    unbounded = {"max_entries": 10**9, "max_bytes": 10**13}
    configs = [("default", CacheConfig(record_lookups=True, **unbounded))]
    if args.flat_too:
        configs.append(("flat", CacheConfig(record_lookups=True, hnsw_threshold=10**9, **unbounded)))
    for n in args.sizes:
        for label, config in configs:
            if label == "flat" and n <= config.hnsw_threshold and n <= CacheConfig().hnsw_threshold:
                continue
            r = run_size(n, base, embedder.model_id, args.lookups, config, label, rng)
            out(f"| {n:,} | {r['index']} | {r['p50']:.3f} | {r['p99']:.3f} | {r['mean']:.3f} | "
                f"{r['p50'] / e50:.2f} | {r['hit_share']:.0%} | {r['insert_per_s']:,.0f} | "
                f"{r['rss_per_entry']:,.0f} B | {r['disk_per_entry']:,.0f} B |", flush=True)
    out.done(args.write)


if __name__ == "__main__":
    main()
