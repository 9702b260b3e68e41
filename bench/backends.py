"""PostgreSQL beside SQLite, same machine and data: cache lookups and inserts, KB search and ingest.

Cache rows use the synthetic entries of ``bench/cache_scale.py`` (USE vectors of QQP questions plus
noise, a stand-in embedder returning them, so the time is everything after the embedding call); half
the lookups are near-duplicates, half fresh. Each size runs on SQLite (FAISS index), on PostgreSQL with
the per-process FAISS accelerator, and on PostgreSQL with lookups answered by pgvector alone
(``vector_index="store"``: what a replica does with the accelerator off). KB rows use the synthetic
SciFact corpus of ``bench/kb_scale.py`` (one chunk per document), the default model only (the English
space off on both backends, so both measure the same work), one query at a time, query embedding
included.

PostgreSQL is a throwaway cluster from the pgserver wheel (``tests/pg_cluster.py``), or ``--pg-url``
(a superuser URL); every row gets a fresh database with the owner and application roles, so the
application role runs under row-level security as deployed (docs/deploy.md).

    python bench/backends.py                          # 10k and 100k of each (≈20 minutes)
    python bench/backends.py --sizes 2000 --write     # a quick look, and its docs section
    python bench/backends.py --skip cache --write     # the KB part only: its subsection, the cache's stays
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import sys
import tempfile
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import pg_cluster
from _cache_common import load_set, machine_line, percentile_ms
from _common import DATA, write_section
from cache_scale import lookup_table, name
from kb_scale import sentences, write_corpus

from lastline import PostgresStorage, SQLiteStorage, get_embedder, open_storage
from lastline.cache import CacheConfig, SemanticCache
from lastline.kb import Filters, KBConfig, KnowledgeBase
from lastline.kb._bm25 import BM25Config
from lastline.kb._segment import query_terms

SECTION = "## Storage backends: PostgreSQL beside SQLite"
Storage = SQLiteStorage | PostgresStorage


@contextmanager
def postgres(pg_url: str | None) -> Iterator[str]:
    """A superuser URL: the given one, or a cluster started (and removed) for this run."""
    if pg_url:
        yield pg_url
        return
    with tempfile.TemporaryDirectory(prefix="lastline-bench-pg-") as tmp:
        datadir = Path(tmp) / "pg"
        url = pg_cluster.start(datadir, durable=True)
        try:
            yield url
        finally:
            pg_cluster.stop(datadir, remove=True)


@contextmanager
def fresh(backend: str, superuser_url: str) -> Iterator[Storage]:
    """A fresh database on ``backend``: a SQLite file, or a PostgreSQL database with both roles."""
    if backend == "sqlite":
        with tempfile.TemporaryDirectory(prefix="lastline-bench-") as tmp:
            storage = open_storage(Path(tmp) / "bench.db")
            try:
                yield storage
            finally:
                storage.close()
        return
    app, owner = pg_cluster.create_database(superuser_url)
    storage = open_storage(app, owner_url=owner)
    try:
        yield storage
    finally:
        storage.close()
        pg_cluster.drop_database(superuser_url, app)


def timed(calls: list[Callable[[], Any]]) -> list[float]:
    out = []
    for call in calls:
        t0 = time.perf_counter()
        call()
        out.append(time.perf_counter() - t0)
    return out


def cache_row(storage: Storage, n: int, base: np.ndarray, model_id: str, lookups: int, config: CacheConfig,
              rng: np.random.Generator) -> dict[str, Any]:
    """Load ``n`` entries, then time lookups. With ``vector_index="store"`` the rows are loaded by a
    FAISS replica first and the lookup cache builds the model's HNSW index over them when it starts
    (as a replica switched to pgvector search does): kept up on every insert instead, the graph costs
    each insert far more than the row."""
    table = lookup_table(base, n, lookups, model_id, rng)
    loader = SemanticCache(storage, table, replace(config, vector_index="faiss"))  # type: ignore[arg-type]
    started = time.perf_counter()
    for s in range(0, n, 5_000):
        loader.put_many([{"prompt": name("entry", i), "response": f"answer {i}"} for i in range(s, min(n, s + 5_000))])
    insert_s = time.perf_counter() - started
    build_s = None
    cache = loader
    if config.vector_index == "store":
        del loader
        started = time.perf_counter()
        cache = SemanticCache(storage, table, config)  # type: ignore[arg-type]
        build_s = time.perf_counter() - started
    gc.collect()
    hits = 0

    def one(j: int) -> Callable[[], None]:
        def call() -> None:
            nonlocal hits
            hits += cache.lookup(name("query", j), threshold=0.9).hit
        return call

    cache.lookup(name("query", 0), threshold=0.9)  # warm-up
    times = timed([one(j) for j in range(lookups)])
    exact = timed([lambda i=i: cache.lookup(name("entry", i)) for i in rng.integers(0, n, min(lookups, 500))])
    return {"p50": percentile_ms(times, 50), "p99": percentile_ms(times, 99), "exact_p50": percentile_ms(exact, 50),
            "hits": hits / lookups, "insert_per_s": n / insert_s, "build_s": build_s}


class ChunkVectors:
    """The KB's stand-in embedder: chunks get synthetic vectors, queries the real model's.

    Embedding 10k distinct chunk texts with the numpy USE model takes longer than the whole run may
    (≈9 texts/s on one thread here), and it costs both backends the same. So an ingest (many texts
    per call) gets, per text, one of the real USE vectors of QQP questions picked by the text's hash
    plus seeded noise (the distribution ``cache_scale.py`` uses), and a query (one text per call) is
    embedded by the real model. Ingest rates are then the write path (parse, chunk, keyword index,
    vectors, database), not the model.
    """

    def __init__(self, real: Any, base: np.ndarray) -> None:
        self.real, self.base = real, base
        self.model_id, self.dim = real.model_id, real.dim

    def load(self) -> None:
        self.real.load()

    def encode(self, texts: list[str]) -> np.ndarray:
        if len(texts) == 1:
            return np.asarray(self.real.encode(texts))
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            seed = zlib.crc32(text.encode())
            noise = np.random.default_rng(seed).normal(0, 0.6 / np.sqrt(self.dim), self.dim)
            v = self.base[seed % len(self.base)] + noise.astype(np.float32)
            out[i] = v / np.linalg.norm(v)
        return out


def kb_row(storage: Storage, n: int, embedder: Any, pool: list[str], queries: list[str], tmp: Path,
           rng: random.Random) -> dict[str, Any]:
    """Ingest ``n`` chunks, then time searches. The ingest is a loader's (``lastline kb ingest``: no
    search index kept up row by row); the searching KB then builds the spaces' indexes when it
    starts, as a serving replica does (on PostgreSQL the HNSW graph over the rows there, timed apart;
    on SQLite nothing: its graphs are per process and built on demand)."""
    corpus = tmp / f"corpus-{n}.jsonl"
    if not corpus.exists():
        write_corpus(corpus, n, pool, rng)
    loader = KnowledgeBase(storage, embedder)
    started = time.perf_counter()
    report = loader.ingest(corpus, tenant="bench")
    ingest_s = time.perf_counter() - started
    loader.close()
    kb = KnowledgeBase(storage, embedder, KBConfig(keywords=BM25Config(background=False)))
    started = time.perf_counter()
    built = kb.build_search_indexes()
    build_s = time.perf_counter() - started if built else None
    # SQLite's graphs are per process: a serving one builds its tenant's in the background from its
    # first search past the size threshold and searches exactly meanwhile. Build it before the timed
    # searches (timed apart) so the rows compare the searches a warm replica makes on each backend.
    started = time.perf_counter()
    graphs = [ann.graphs.build("bench") for space, _ in kb.spaces
              if (ann := getattr(kb.store.vector_index(space), "ann", None)) is not None]
    graph_s = time.perf_counter() - started if any(g is not None for g in graphs) else None
    row: dict[str, Any] = {"chunks": report.chunks, "ingest_per_s": report.chunks / ingest_s, "build_s": build_s,
                           "graph_s": graph_s}
    # The store's own keyword search (every match ranked, in SQL or FTS5) on a share of the queries,
    # then this process's in-memory keyword index (lastline.kb._bm25), built once and timed apart.
    own = kb.store.keyword_search
    some = queries[: max(10, len(queries) // 10)]
    times = timed([lambda q=q: own(query_terms(q, kb.config.segmenter), tenant="bench", filters=Filters(),  # type: ignore[misc]
                                   limit=kb.config.candidates) for q in some])
    row["store_keyword"] = (percentile_ms(times, 50), percentile_ms(times, 99))
    if kb.keyword_index is not None:
        started = time.perf_counter()
        kb.keyword_index.indexes.build("bench")
        row["keyword_index_s"] = time.perf_counter() - started
    for mode in ("keyword", "hybrid"):
        kb.search(queries[0], tenant="bench", k=10, mode=mode)  # type: ignore[arg-type]
        times = timed([lambda q=q, m=mode: kb.search(q, tenant="bench", k=10, mode=m)  # type: ignore[misc]
                       for q in queries])
        row[mode] = (percentile_ms(times, 50), percentile_ms(times, 99))
    kb.close()
    return row


CACHE_SECTION = "### Cache lookups and inserts"
KB_SECTION = "### Knowledge base search and ingest"
INTRO = (
    "PostgreSQL 16.2 + pgvector 0.6.2 from the pgserver wheel on 127.0.0.1 (default durability), the application "
    "role under row-level security; SQLite is the embedded default (WAL). Timings on a host shared with other "
    "work: the PostgreSQL / SQLite ratio within one run is the figure to read. Each subsection is written by "
    "its own part of the script (`--skip kb`, `--skip cache`) and names its own run."
)


def render_cache(rows: list[tuple[int, str, dict[str, Any]]], where: str, lookups: int) -> str:
    lines = [CACHE_SECTION, "", f"`python bench/backends.py --skip kb` — {where}.", "",
             f"{lookups:,} lookups through `SemanticCache.lookup` after the embedding (a stand-in embedder), half "
             "near-duplicates; exact = a stored prompt's own lookup; lookups record their bookkeeping "
             "synchronously (the service queues it to a background writer). The pgvector-only rows load the "
             "entries through a FAISS replica and build the model's HNSW index when the pgvector replica starts "
             "(build time beside the insert rate).", "",
             "| cache entries | backend | semantic lookup p50 / p99 ms | exact p50 ms | hits "
             "| inserts/s (no embedding) |",
             "|---|---|---|---|---|---|"]
    for n, label, r in rows:
        build = f" (+ HNSW build {r['build_s']:.1f} s)" if r.get("build_s") is not None else ""
        lines.append(f"| {n:,} | {label} | {r['p50']:.2f} / {r['p99']:.2f} | {r['exact_p50']:.2f} | "
                     f"{r['hits']:.0%} | {r['insert_per_s']:,.0f}{build} |")
    return "\n".join(lines) + "\n"


def render_kb(rows: list[tuple[int, str, dict[str, Any]]], where: str, queries: int) -> str:
    lines = [KB_SECTION, "", f"`python bench/backends.py --skip cache` — {where}.", "",
             "The default model only, one chunk per synthetic SciFact document; **chunk vectors are synthetic** "
             "(a real USE vector of a QQP question picked by the text's hash, plus noise: embedding 10k distinct "
             "chunks would take longer than the run), so ingest rates are the write path. The ingest is a "
             "loader's (no search index kept up row by row); the searching KB then builds the HNSW index of its "
             "space over the rows there when it starts, as a serving replica does (PostgreSQL; build time beside "
             "the ingest rate). On SQLite a serving process builds its own in-memory HNSW graph of the tenant past "
             "the approximate index's size threshold (`lastline.kb._ann`, 20k vectors), built here before the timed "
             "searches (build time beside the ingest rate; below the threshold the search stays exact). "
             f"{queries} SciFact queries one at a time, query embedding (real USE) included.", "",
             "Keyword search runs on the replica's in-memory BM25 index of the tenant (`lastline.kb._bm25`, built"
             " once when the KB first searches, build time in its column); the store's own keyword search (FTS5,"
             " or BM25 in SQL over the tsvectors) beside it, on a tenth of the queries (at least 10).", "",
             "| KB chunks | backend | keyword p50 / p99 ms | store's own keyword p50 / p99 ms | keyword index build s"
             " | hybrid p50 / p99 ms | ingest chunks/s |",
             "|---|---|---|---|---|---|---|"]
    for n, label, r in rows:
        build = f" (+ HNSW build {r['build_s']:.1f} s)" if r.get("build_s") is not None else ""
        if r.get("graph_s") is not None:
            build += f" (+ in-process HNSW build {r['graph_s']:.1f} s)"
        own = r.get("store_keyword")
        index_s = r.get("keyword_index_s")
        lines.append(f"| {n:,} | {label} | {r['keyword'][0]:.1f} / {r['keyword'][1]:.1f} | "
                     + (f"{own[0]:.1f} / {own[1]:.1f}" if own else "—") + " | "
                     + (f"{index_s:.1f}" if index_s is not None else "—") + " | "
                     f"{r['hybrid'][0]:.1f} / {r['hybrid'][1]:.1f} | {r['ingest_per_s']:,.0f}{build} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", nargs="+", type=int, default=[10_000, 100_000])
    parser.add_argument("--kb-sizes", nargs="+", type=int, default=None,
                        help="KB chunk counts (default: --sizes)")
    parser.add_argument("--lookups", type=int, default=1000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--pg-url", default=os.environ.get("LASTLINE_BENCH_PG_URL"),
                        help="superuser URL of a running cluster (default: start one)")
    parser.add_argument("--skip", nargs="*", default=[], choices=["cache", "kb"])
    parser.add_argument("--backends", nargs="+", default=["sqlite", "postgresql"], choices=["sqlite", "postgresql"])
    parser.add_argument("--write", action="store_true", help=f"replace '{SECTION}' in docs/benchmarks.md")
    args = parser.parse_args()
    started = machine_line()
    embedder = get_embedder("use", 1)
    embedder.load()
    qqp = load_set("qqp_val")
    base = embedder.encode(list(dict.fromkeys(qqp.first))[:4000])  # type: ignore[attr-defined]
    unbounded = CacheConfig(max_entries=10**9, max_bytes=10**13)
    variants = [("SQLite + FAISS", "sqlite", unbounded)] if "sqlite" in args.backends else []
    if "postgresql" in args.backends:
        variants += [("PostgreSQL + FAISS", "postgresql", unbounded),
                     ("PostgreSQL, pgvector only", "postgresql", replace(unbounded, vector_index="store"))]
    kb_variants = [v for v in (("SQLite (FTS5 + sqlite-vec)", "sqlite"),
                               ("PostgreSQL (tsvector + pgvector)", "postgresql")) if v[1] in args.backends]
    chunk_vectors = ChunkVectors(embedder, base)
    pool = sentences()
    all_queries = [json.loads(x)["text"] for x in (DATA / "kb/scifact/queries_train.jsonl").read_text().splitlines()]
    queries = random.Random(7).sample(all_queries, min(args.queries, len(all_queries)))
    cache_rows: list[tuple[int, str, dict[str, Any]]] = []
    kb_rows: list[tuple[int, str, dict[str, Any]]] = []
    with postgres(args.pg_url) as superuser, tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            if "cache" not in args.skip:
                for label, backend, config in variants:
                    with fresh(backend, superuser) as storage:
                        r = cache_row(storage, n, base, embedder.model_id, args.lookups, config,
                                      np.random.default_rng(5))
                    cache_rows.append((n, label, r))
                    print(f"cache {n:>8,} {label:28s} {r}", file=sys.stderr, flush=True)
            if "kb" not in args.skip and n in (args.sizes if args.kb_sizes is None else args.kb_sizes):
                for label, backend in kb_variants:
                    with fresh(backend, superuser) as storage:
                        r = kb_row(storage, n, chunk_vectors, pool, queries, Path(tmp), random.Random(7))
                    kb_rows.append((n, label, r))
                    print(f"kb    {n:>8,} {label:34s} {r}", file=sys.stderr, flush=True)
    load_after = os.getloadavg()
    where = f"{started}, {load_after[0]:.1f} at the end"
    parts = []
    if "cache" not in args.skip:
        parts.append((CACHE_SECTION, render_cache(cache_rows, where, args.lookups)))
    if "kb" not in args.skip:
        parts.append((KB_SECTION, render_kb(kb_rows, where, len(queries))))
    for _, text in parts:
        print(text)
    if args.write:
        if len(parts) == 2:  # the whole section, both subsections from this run
            whole = "\n".join([SECTION, "", INTRO, "", *(text for _, text in parts)])
            print(f"wrote {write_section(SECTION, whole)}", file=sys.stderr)
        else:  # one part: its subsection only, the other's figures stay as they were
            for heading, text in parts:
                print(f"wrote {write_section(heading, text)}", file=sys.stderr)


if __name__ == "__main__":
    main()
