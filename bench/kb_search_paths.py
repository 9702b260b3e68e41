"""KB search by path, tenant size and file: how the kNN list and the keyword list are found.

**kNN.** A tenant's primary vector space answers kNN one of three ways (``lastline.kb._ann``): below
``AnnConfig.threshold`` vectors sqlite-vec's exact search, which reads every vector through SQLite
for each query; past it the tenant's in-memory copy of its vectors (an HNSW graph's storage), either
scored whole (``exact_limit`` live positions or fewer: exact) or walked (approximate). This bench
times whole KB searches (``KnowledgeBase.search``, hybrid, k = 10: the query's encode, FTS5, the
kNN list, fusion) through each path, on tenants of the first 500 / 1,000 / 2,000 / 5,000 BQ FAQ
questions (``kb/bq_faq_dev``, Chinese; a database each; the English space off, as for Chinese
queries in the service), with BQ queries, the model's memo of recent texts off so every search pays its encode.
Blocks of ``--per-block`` queries alternate between the paths so that drift on a shared host falls
on all alike. Reported per path: CPU per search (the whole process's, so a library's own threads
count too), and how many result lists (chunk ids in order) equal the exact path's.

A second table scores random unit vectors straight through a graph (``Graph.search``, k = 100,
no filter), scanned and walked, at sizes around ``exact_limit``: where the scan stops paying; and
what building the tenant's in-memory copy costs, as an HNSW graph and as a flat copy (what a tenant
of at most ``exact_limit`` vectors gets).

**Keywords.** A tenant's keyword list comes from the store (FTS5's ``bm25()``, which ranks every
match in the file, then keeps the tenant's) or, past ``BM25Config.threshold`` chunks, from BM25
postings in memory (``lastline.kb._bm25``, the tenant's own). The third table times both on tenants of
the first 50 / 500 / 2,000 / 5,000 BQ FAQ questions, each in a file of its own and in a file it
shares with ``--others`` other tenants holding the whole BQ corpus each (FTS5's cost follows the
file's matches, not the tenant's): CPU per keyword-only search and per whole hybrid search, and how
many keyword lists equal FTS5's (in a shared file they differ by design: FTS5 counts every tenant's
chunks in its statistics, the postings only the tenant's).

Run: ``python bench/kb_search_paths.py [--sizes 500,1000,2000,5000] [--keyword-sizes 50,500,2000,5000]
[--others 2] [--blocks 3] [--per-block 100] [--write]``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np
from _common import Section, bq_lines, memoless_embedders

from lastline import Embedder, SQLiteStorage
from lastline.hnsw import flat_copy, hnsw_graph, one_openmp_thread
from lastline.kb import KBConfig, KnowledgeBase
from lastline.kb._ann import AnnConfig, Graph
from lastline.kb._bm25 import BM25Config

SECTION = "### KB search by path, tenant size and file (`bench/kb_search_paths.py`)"
#: Each path as the ANN settings that force it on every tenant of the sizes measured.
PATHS = {
    "sqlite-vec exact": AnnConfig(enabled=False),
    "graph, scanned": AnnConfig(threshold=1, exact_limit=1_000_000, background=False),
    "graph, walked": AnnConfig(threshold=1, exact_limit=0, background=False),
}
#: Each keyword path as the settings that force it.
KEYWORD_PATHS = {
    "FTS5": BM25Config(enabled=False),
    "postings in memory": BM25Config(threshold=1, recheck_s=0.0, background=False),
}


def whole_searches(args: argparse.Namespace, out: Section, embedder: Embedder, warm: list[str],
                   timed: list[str]) -> None:
    sizes = [int(s) for s in args.sizes.split(",")]
    corpus = bq_lines("corpus.jsonl", max(sizes))
    out("| chunks | " + " | ".join(f"{path}: CPU ms per search" for path in PATHS)
        + " | lists equal to exact's: scanned, walked |")
    out("|---:|" + "---:|" * len(PATHS) + "---|")
    for size in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            storage = SQLiteStorage(Path(tmp) / "kb.db")  # a database per size: FTS5's cost follows the file's rows
            KnowledgeBase(storage, embedder, KBConfig(ann=PATHS["sqlite-vec exact"])).ingest(
                _folder(Path(tmp) / "docs", corpus[:size]))
            storage.checkpoint()  # as a restart leaves it: reads do not wade through the WAL
            kbs = {path: KnowledgeBase(storage, embedder, KBConfig(ann=ann)) for path, ann in PATHS.items()}
            for kb in kbs.values():
                for query in warm:  # builds the tenant's graph (inline here) and warms the caches
                    kb.search(query)
            cpu = dict.fromkeys(PATHS, 0.0)
            lists: dict[str, list[list[str]]] = {path: [] for path in PATHS}
            for block in range(args.blocks):
                chunk = timed[block * args.per_block:(block + 1) * args.per_block]
                for path, kb in kbs.items():
                    started = time.process_time()
                    found = [kb.search(query) for query in chunk]
                    cpu[path] += time.process_time() - started
                    lists[path] += [[r.chunk_id for r in results] for results in found]
            storage.close()
        exact = lists["sqlite-vec exact"]
        equal = [sum(a == b for a, b in zip(lists[path], exact, strict=True)) for path in list(PATHS)[1:]]
        n = len(exact)
        out(f"| {size:,} | " + " | ".join(f"{1e3 * cpu[path] / n:.2f}" for path in PATHS)
            + f" | {equal[0]} and {equal[1]} of {n} |")


def _folder(path: Path, docs: list[dict[str, object]]) -> Path:
    """A folder holding ``docs`` as one JSON-lines file, for an ingest."""
    path.mkdir()
    (path / "corpus.jsonl").write_text(
        "".join(json.dumps(doc, ensure_ascii=False) + "\n" for doc in docs), encoding="utf-8")
    return path


def keyword_paths(args: argparse.Namespace, out: Section, embedder: Embedder, warm: list[str],
                  timed: list[str]) -> None:
    sizes = [int(s) for s in args.keyword_sizes.split(",")]
    corpus = bq_lines("corpus.jsonl", 100_000)
    fts, memory = KEYWORD_PATHS
    out("")
    out(f"| chunks | file | {fts}: CPU ms per keyword search | {memory} | {fts}: CPU ms per hybrid search "
        f"| {memory} | keyword lists equal to {fts}'s |")
    out("|---:|---|---:|---:|---:|---:|---|")
    for size in sizes:
        for others in (0, args.others):
            with tempfile.TemporaryDirectory() as tmp:
                storage = SQLiteStorage(Path(tmp) / "kb.db")
                ingest = KnowledgeBase(storage, embedder, KBConfig(keywords=KEYWORD_PATHS[fts]))
                ingest.ingest(_folder(Path(tmp) / "tenant", corpus[:size]), tenant="measured")
                for other in range(others):
                    ingest.ingest(_folder(Path(tmp) / f"other{other}", corpus), tenant=f"other{other}")
                storage.checkpoint()
                kbs = {path: KnowledgeBase(storage, embedder, KBConfig(keywords=config))
                       for path, config in KEYWORD_PATHS.items()}
                for kb in kbs.values():
                    for query in warm:  # builds the tenant's postings (inline here) and warms the caches
                        kb.search(query, tenant="measured")
                cpu = {(path, mode): 0.0 for path in KEYWORD_PATHS for mode in ("keyword", "hybrid")}
                lists: dict[str, list[list[str]]] = {path: [] for path in KEYWORD_PATHS}
                for block in range(args.blocks):
                    chunk = timed[block * args.per_block:(block + 1) * args.per_block]
                    for mode in ("keyword", "hybrid"):
                        for path, kb in kbs.items():
                            started = time.process_time()
                            found = [kb.search(query, tenant="measured", mode=mode) for query in chunk]
                            cpu[path, mode] += time.process_time() - started
                            if mode == "keyword":
                                lists[path] += [[r.chunk_id for r in results] for results in found]
                storage.close()
            n = len(lists[fts])
            equal = sum(a == b for a, b in zip(lists[fts], lists[memory], strict=True))
            where = "its own" if not others else f"shared, {size + others * len(corpus):,} chunks"
            out(f"| {size:,} | {where} | " + " | ".join(
                f"{1e3 * cpu[path, mode] / n:.2f}" for mode in ("keyword", "hybrid") for path in KEYWORD_PATHS)
                + f" | {equal} of {n} |")


def scan_or_walk(args: argparse.Namespace, out: Section) -> None:
    rng = np.random.default_rng(7)
    one_openmp_thread()
    out("")
    out("| vectors (random, 512 dims) | scanned: CPU ms per k = 100 search | walked (efSearch 256) "
        "| built: CPU s as a graph (M 16, efConstruction 64) | as a flat copy |")
    out("|---:|---:|---:|---:|---:|")
    for size in (int(s) for s in args.graph_sizes.split(",")):
        vectors = rng.standard_normal((size, 512)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        index = hnsw_graph(512, m=16, ef_construction=64, ef_search=256)
        started = time.process_time()
        index.add(vectors)
        linked = time.process_time() - started
        copy = flat_copy(512)
        started = time.process_time()
        copy.add(vectors)
        copied = time.process_time() - started
        graph = Graph(index, np.arange(size, dtype=np.int64), np.zeros(size, np.int32), {"default": 0}, size, ("", 512))
        queries = rng.standard_normal((args.graph_queries, 512)).astype(np.float32)
        queries /= np.linalg.norm(queries, axis=1, keepdims=True)
        cost = []
        for exact_limit in (size, 0):
            started = time.process_time()
            for query in queries:
                graph.search(query, 100, None, ef_search=256, exact_limit=exact_limit)
            cost.append(1e3 * (time.process_time() - started) / len(queries))
        out(f"| {size:,} | {cost[0]:.2f} | {cost[1]:.2f} | {linked:.2f} | {copied:.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", default="500,1000,2000,5000", help="tenant sizes (BQ FAQ questions)")
    parser.add_argument("--blocks", type=int, default=3, help="timed blocks per path and size")
    parser.add_argument("--per-block", type=int, default=100, help="queries per block")
    parser.add_argument("--graph-sizes", default="2000,5000,10000,20000,40000")
    parser.add_argument("--graph-queries", type=int, default=300)
    parser.add_argument("--keyword-sizes", default="50,500,2000,5000", help="tenant sizes for the keyword paths")
    parser.add_argument("--others", type=int, default=2, help="other tenants (whole BQ corpus each) in a shared file")
    parser.add_argument("--only", choices=("knn", "keywords"), help="run one part")
    parser.add_argument("--write", action="store_true", help=f"replace '{SECTION}' in docs/benchmarks.md")
    args = parser.parse_args()
    out = Section(SECTION)
    embedder, _ = memoless_embedders("use", "none")  # loaded once for both parts
    queries = [str(q["text"]) for q in bq_lines("queries.jsonl", args.blocks * args.per_block + 20)]
    warm, timed = queries[:20], queries[20:]
    if args.only != "keywords":
        whole_searches(args, out, embedder, warm, timed)
        scan_or_walk(args, out)
    if args.only != "knn":
        keyword_paths(args, out, embedder, warm, timed)
    out.done(args.write)


if __name__ == "__main__":
    main()
