"""Knowledge-base ingestion speed and query latency at 10k and 100k chunks.

Documents are synthetic: 1–2 sentences drawn at random from SciFact abstracts (realistic words
and vocabulary, FAQ-sized chunks), written as a BEIR ``corpus.jsonl`` and ingested through
``KnowledgeBase.ingest`` (parse → chunk → embed → one transaction per batch). Each document is one
chunk. The 10k set is all distinct texts, so its ingest rate is the real, embedding-bound rate.
Larger sets repeat those 10k texts (each text ``size/10k`` times in a row, distinct document ids):
the ingest encodes each distinct text of a batch once, so their rate measures the write path
(parse, chunk, FTS, vec0, SQLite) rather than the model. Query latency is measured per mode over
SciFact training queries, one query at a time, one embedder thread; p50/p99 in milliseconds,
query embedding included.

With the English space on (``--english-embedder minilm-onnx``, the service default) every
English chunk is embedded twice and every (English) query encodes twice and runs two kNN searches;
``--english-embedder none`` measures the KB without it.

``--scale 100000 1000000`` measures the approximate index instead (its own section): chunks are
written straight through the store with *synthetic* vectors, so that a million rows take minutes
rather than days of encoding. Each chunk's text is 2–6 SciFact sentences (``SENTENCES``; each cut
to ≤ 200 characters, ≈ 730 characters a chunk) drawn from a pool of ``--pool`` sentences; its
vector in each space is the normalized sum of those sentences' real vectors (encoded once by that
space's model) plus a little noise, so queries encoded by the real models meet vectors shaped like
real ones. The words are real text too: an OR query of a SciFact query's words matches 40% of the
chunks, as it matches 39% of SciFact's own 1,200-character chunks (what keyword search costs
follows that share). Every 10th chunk is in collection ``c0`` (a 10% filter)
and every 200th is tagged ``rare`` (0.5%: exact). Per size: the in-memory keyword index's build,
RAM and agreement with FTS5's own top 10 / top 100 (:mod:`lastline.kb._bm25`), the HNSW build time and the resident
memory it added (RAM per chunk, both spaces), recall@10 and recall@100 of each space's approximate
list against the exact kNN over the same rows (unfiltered, collection ``c0``, tag ``rare``), and
query latency per mode with the accelerators (and, at 100k, without them: FTS5 and the exact kNN before).

Usage: python bench/kb_scale.py [--sizes 10000 100000] [--queries 200] [--embedder use]
                               [--english-embedder minilm-onnx|none] [--write]
       python bench/kb_scale.py --scale 100000 1000000 [--queries 200] [--write]
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import random
import re
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import DATA, Section, memoless_embedders

from lastline import Embedder, open_storage
from lastline.kb import Filters, KBConfig, KnowledgeBase, ParsedDocument, SQLiteKBStore, chunk_document
from lastline.kb._ann import AnnConfig
from lastline.kb._bm25 import BM25Config
from lastline.kb._index_text import fts_text
from lastline.kb._segment import query_terms
from lastline.kb._spaces import ENGLISH, PRIMARY
from lastline.kb._store import DocumentWrite
from lastline.kb._vectors import space_model
from lastline.kb._writer import encode_sorted

SECTION = "### Ingest speed and query latency (`bench/kb_scale.py`)"
SCALE_SECTION = "### Approximate index: recall and latency at scale (`bench/kb_scale.py --scale`)"


def sentences() -> list[str]:
    out: list[str] = []
    for line in (DATA / "kb/scifact/corpus.jsonl").read_text().splitlines():
        out.extend(s.strip() for s in re.split(r"(?<=[.!?])\s+", json.loads(line)["text"]) if len(s.strip()) > 30)
    return out


UNIQUE = 10_000


def write_corpus(path: Path, n: int, pool: list[str], rng: random.Random) -> None:
    texts = [" ".join(rng.sample(pool, rng.randint(1, 2)))[:400] for _ in range(min(n, UNIQUE))]
    repeat = max(1, n // len(texts))
    with path.open("w") as handle:
        for i in range(n):
            handle.write(json.dumps({"_id": f"s{i}", "title": "", "text": texts[(i // repeat) % len(texts)]}) + "\n")


def rss_mb() -> float:
    """This process's resident memory (VmRSS), MB."""
    line = next(ln for ln in Path("/proc/self/status").read_text().splitlines() if ln.startswith("VmRSS"))
    return int(line.split()[1]) / 1024


def percentiles(times: list[float]) -> tuple[float, float]:
    return float(np.percentile(times, 50)), float(np.percentile(times, 99))


#: Sentences per synthetic chunk, drawn uniformly: ≈ 730 characters on average (SciFact's own chunks
#: average 874), so an OR query of a SciFact query's words matches as large a share of the chunks as
#: it does of SciFact's real ones (40% against 39%; two-sentence chunks matched 25%): keyword search
#: costs what it would on real prose.
SENTENCES = (2, 6)


def synthetic_store(path: Path, size: int, pool: list[str], models: list[tuple[object, Embedder]],
                    rng: np.random.Generator, ann: AnnConfig) -> tuple[SQLiteKBStore, float]:
    """``size`` chunks of 2–6 pool sentences each, with summed real sentence vectors; returns (store, seconds)."""
    pooled = {space: encode_sorted(embedder, pool) for space, embedder in models}
    store = SQLiteKBStore(open_storage(path), ann=ann)  # type: ignore[arg-type]
    for space, embedder in models:
        index = store.vector_index(space)  # type: ignore[arg-type]
        index.reset(embedder.dim, seen=index.model())
    started = time.perf_counter()
    batch = 2_000
    low, high = SENTENCES
    for start in range(0, size, batch):
        n = min(batch, size - start)
        picks = rng.integers(0, len(pool), size=(n, high))
        used = np.arange(high) < rng.integers(low, high + 1, size=n)[:, None]  # the first k picks of each chunk
        writes = []
        for i, row in enumerate(picks.tolist()):
            number = start + i
            document = ParsedDocument.plain(" ".join(pool[j] for j, on in zip(row, used[i], strict=True) if on), "")
            document.tags = ["rare"] if number % 200 == 0 else []
            chunks = chunk_document(document)
            writes.append(DocumentWrite(
                doc_id=f"s{number}", document=document, content_hash=str(number), source=None, chunks=chunks[:1],
                keyword_texts=[fts_text("doc", "", c.heading, c.text, "char") for c in chunks[:1]],
                languages=["en"]))
        vectors = {}
        for space, _ in models:
            matrix = np.einsum("nk,nkd->nd", used.astype(np.float32), pooled[space][picks])
            matrix += 0.05 * rng.standard_normal(matrix.shape).astype(np.float32) / np.sqrt(matrix.shape[1])
            matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
            vectors[space] = (list(range(n)), matrix.astype(np.float32))
        # collections: every 10th chunk in c0, written as its own batch (a batch has one collection)
        in_c0 = [i for i in range(n) if (start + i) % 10 == 0]
        rest = [i for i in range(n) if (start + i) % 10 != 0]
        for collection, members in (("c0", in_c0), ("rest", rest)):
            store.write("bench", collection, [writes[i] for i in members],
                        {space: (list(range(len(members))), m[members]) for space, (_, m) in vectors.items()})
        if start and start % 100_000 == 0:
            print(f"    wrote {start:,} chunks", file=sys.stderr)
    seconds = time.perf_counter() - started
    for space, embedder in models:
        # Recorded as the KB records it (the cut included), so opening it does not re-embed the space.
        store.vector_index(space).mark_built(space_model(embedder, KBConfig().reads(space)))  # type: ignore[arg-type]
    return store, seconds


def scale_store(directory: Path, size: int, pool: list[str], models: list[tuple[object, Embedder]], *,
                keep: bool, ann: AnnConfig) -> tuple[SQLiteKBStore, float]:
    """The synthetic store of ``size`` chunks and the seconds its writing took.

    With ``keep`` the database stays in ``directory`` and a later run reuses it once complete (a
    sidecar file, written last, records the write time): writing a million chunks takes an hour here.
    """
    models_id = "+".join(embedder.model_id for _, embedder in models)
    name = f"scale-{size}-pool{len(pool)}x{SENTENCES[0]}-{SENTENCES[1]}-{models_id}"
    path, done = directory / f"{name}.db", directory / f"{name}.json"
    if keep and done.exists():
        print(f"    reusing {path}", file=sys.stderr)
        return (SQLiteKBStore(open_storage(path), ann=ann),  # type: ignore[arg-type]
                float(json.loads(done.read_text())["write_s"]))
    for stale in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        stale.unlink(missing_ok=True)
    store, seconds = synthetic_store(path, size, pool, models, np.random.default_rng([11, size]), ann)
    if keep:
        done.write_text(json.dumps({"write_s": seconds}))
    return store, seconds


def scale(args: argparse.Namespace, queries: list[str], pool_all: list[str]) -> None:
    """The approximate index's rows: build time, RAM per chunk, recall against exact, latency per mode."""
    rng = np.random.default_rng(11)
    # Pool entries cut to ≤ 200 characters at a word boundary: a chunk of two is FAQ-sized, and each
    # entry is encoded once per model (MiniLM reads long text slowly on a busy machine).
    pool = [pool_all[i][:200].rsplit(" ", 1)[0]
            for i in rng.choice(len(pool_all), size=min(args.pool, len(pool_all)), replace=False)]
    embedder, english = memoless_embedders(args.embedder, args.english_embedder)
    models: list[tuple[object, Embedder]] = [(PRIMARY, embedder)] + ([(ENGLISH, english)] if english else [])
    filters = {"all": Filters(), "collection c0 (10%)": Filters(collections=["c0"]),
               "tag rare (0.5%)": Filters(tags=["rare"])}
    rows = []
    with contextlib.ExitStack() as stack:
        directory = (Path(args.workdir) if args.keep
                     else Path(stack.enter_context(tempfile.TemporaryDirectory(dir=args.workdir))))
        for size in args.scale:
            print(f"  {size:,}: writing ({time.strftime('%H:%M:%S')})", file=sys.stderr)
            ann = AnnConfig(background=False, threshold=args.ann_threshold)
            store, write_s = scale_store(directory, size, pool, models, keep=args.keep, ann=ann)
            row: dict[str, object] = {"chunks": size, "write_per_s": size / write_s,
                                      "db_mb": store.storage.path.stat().st_size / 1e6}
            before = rss_mb()
            build_s = 0.0
            for space, _ in models:
                index = store.vector_index(space)  # type: ignore[arg-type]
                assert index.ann is not None
                started = time.perf_counter()
                index.ann.graphs.build("bench")
                build_s += time.perf_counter() - started
            row["build_s"] = build_s
            kb = KnowledgeBase(store.storage, embedder, KBConfig(ann=ann,
                                                                 keywords=BM25Config(background=False)),
                               english_embedder=english, store=store)
            row["keywords"] = keyword_index(kb, queries)
            print(f"  {size:,}: graphs built in {build_s:.0f} s, recall next", file=sys.stderr)
            row["ram_per_chunk_b"] = (rss_mb() - before) * 1024 * 1024 / size
            vectors = {space: embedder_.encode(queries) for space, embedder_ in models}
            recall: dict[str, dict[str, tuple[float, float]]] = {}
            exact_all: list[list[int]] = []  # the primary space's unfiltered exact lists, for the curve below
            knn_cpu: dict[str, tuple[float, float]] = {}  # space → CPU ms of an unfiltered k=100 search: exact, graph
            for space, _ in models:
                index = store.vector_index(space)  # type: ignore[arg-type]
                some = vectors[space][: args.recall_queries]
                clock = time.process_time()
                for q in some:
                    index.exact(q, tenant="bench", filters=Filters(), limit=100)
                exact_ms = (time.process_time() - clock) * 1000 / len(some)
                clock = time.process_time()
                for q in some:
                    index.search(q, tenant="bench", filters=Filters(), limit=100)
                knn_cpu[space.name] = (exact_ms, (time.process_time() - clock) * 1000 / len(some))  # type: ignore[attr-defined]
                for label, flt in filters.items():
                    r10, r100 = [], []
                    for q in vectors[space][: args.recall_queries]:
                        exact = [r.rowid for r in index.exact(q, tenant="bench", filters=flt, limit=100)]
                        if space is PRIMARY and label == "all":
                            exact_all.append(exact)
                        approx = [r.rowid for r in index.search(q, tenant="bench", filters=flt, limit=100)]
                        approx10 = [r.rowid for r in index.search(q, tenant="bench", filters=flt, limit=10)]
                        r10.append(len(set(approx10) & set(exact[:10])) / max(1, len(exact[:10])))
                        r100.append(len(set(approx) & set(exact)) / max(1, len(exact)))
                    recall.setdefault(space.name, {})[label] = (float(np.mean(r10)), float(np.mean(r100)))  # type: ignore[attr-defined]
            row["recall"] = recall
            row["knn_cpu"] = knn_cpu
            # The efSearch curve (primary space, unfiltered, depth 100 as hybrid fuses): recall and graph time.
            index = store.vector_index(PRIMARY)
            assert index.ann is not None
            shipped = index.ann.config
            curve = []
            for ef in (64, 128, 256, 512):
                index.ann.config = dataclasses.replace(shipped, ef_search=ef)
                r100, times = [], []
                for q, exact in zip(vectors[PRIMARY][: args.recall_queries], exact_all, strict=True):
                    t0 = time.perf_counter()
                    approx = [r.rowid for r in index.search(q, tenant="bench", filters=Filters(), limit=100)]
                    times.append((time.perf_counter() - t0) * 1000)
                    r100.append(len(set(approx) & set(exact)) / max(1, len(exact)))
                curve.append((ef, float(np.mean(r100)), float(np.percentile(times, 50))))
            index.ann.config = shipped
            row["curve"] = curve
            row["ann"] = latencies(kb, queries)
            row["overlap"] = overlap_ab(kb, queries)
            row["stages"] = stage_costs(kb, queries)
            if size <= args.exact_up_to:
                for space, _ in models:
                    store.vector_index(space).ann = None  # type: ignore[arg-type]
                kb.keywords = store  # before: FTS5 ranks every match
                row["exact"] = latencies(kb, queries[: max(20, len(queries) // 4)])
            print(f"  {size:,}: {row}", file=sys.stderr)
            rows.append(row)
            store.storage.close()
    out = Section(SCALE_SECTION)
    out(f"Embedder {args.embedder}, English space {args.english_embedder} (1 thread each); {len(queries)} "
        f"SciFact queries one at a time, k=10, query encoding included; recall over {args.recall_queries} "
        "queries. **Synthetic vectors** (see the script's docstring): two-sentence chunks whose vectors are "
        f"sums of real sentence vectors from a pool of {len(pool):,} SciFact sentences. One tenant; HNSW M "
        f"{AnnConfig().m}, efConstruction {AnnConfig().ef_construction}, efSearch {AnnConfig().ef_search} "
        "(raised to the depth asked for).\n")
    out("| chunks | write path chunks/s | HNSW build s (all spaces) | RAM per chunk (graphs) | DB bytes per chunk |"
        " keyword p50 / p99 ms | vector p50 / p99 ms | hybrid p50 / p99 ms | answer p50 / p99 ms |"
        " exact before: vector / hybrid p50 ms |")
    out("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        lat = r["ann"]
        cells = " | ".join(f"{lat[m][0]:.1f} / {lat[m][1]:.1f}" for m in ("keyword", "vector", "hybrid", "answer"))  # type: ignore[index]
        exact = r.get("exact")
        before = f"{exact['vector'][0]:.0f} / {exact['hybrid'][0]:.0f}" if exact else "—"  # type: ignore[index]
        out(f"| {r['chunks']:,} | {r['write_per_s']:.0f} | {r['build_s']:.0f} | {r['ram_per_chunk_b']:,.0f} B |"
            f" {r['db_mb'] * 1e6 / r['chunks']:,.0f} B | {cells} | {before} |")  # type: ignore[operator]
    out("")
    out("In-memory keyword index (`lastline.kb._bm25`, BM25 postings per tenant) against the store's own"
        " FTS5 search over the same rows: build time and the resident memory it added, how many of FTS5's"
        " top 10 / top 100 it returns (the queries' terms, k = 10 and 100), and CPU ms per keyword search"
        " (`time.process_time`, mean, depth 100 as hybrid fuses):\n")
    out("| chunks | build s | RAM per chunk | top-10 / top-100 agreement | keyword CPU ms: FTS5 → in-memory |")
    out("|---|---|---|---|---|")
    for r in rows:
        kw = r["keywords"]
        out(f"| {r['chunks']:,} | {kw['build_s']:.1f} | {kw['ram_per_chunk_b']:,.0f} B |"  # type: ignore[index]
            f" {kw['agree10']:.3f} / {kw['agree100']:.3f} | {kw['store_ms']:.1f} → {kw['index_ms']:.1f} |")  # type: ignore[index]
    out("")
    out("Recall of the approximate list against exact kNN over the same rows (recall@10 of a k=10 search /"
        " recall@100 of a k=100 search, the depth hybrid fuses):\n")
    labels = list(filters)
    out("| chunks | space | " + " | ".join(labels) + " |")
    out("|---|---|" + "---|" * len(labels))
    for r in rows:
        for space_name, per in r["recall"].items():  # type: ignore[attr-defined]
            out(f"| {r['chunks']:,} | {space_name} | " + " | ".join(
                f"{per[label][0]:.3f} / {per[label][1]:.3f}" for label in labels) + " |")
    out("")
    out("kNN CPU ms per unfiltered k = 100 search (`time.process_time`, mean; ids checked alive included):"
        " exact (sqlite-vec) → the search as configured (the graph past the threshold"
        f" {args.ann_threshold:,}, else exact again), per space; and hybrid wall p50 / p99 ms with the"
        " second space (English) overlapped in a worker thread against serial, queries alternated:\n")
    out("| chunks | " + " | ".join(f"kNN {name}: exact → as configured" for name in rows[0]["knn_cpu"])  # type: ignore[attr-defined]
        + " | hybrid overlapped | hybrid serial |")
    out("|---|" + "---|" * (len(rows[0]["knn_cpu"]) + 2))  # type: ignore[arg-type]
    for r in rows:
        ab = r["overlap"]
        pair = " | ".join(f"{ab[k][0]:.1f} / {ab[k][1]:.1f}" for k in ("overlapped", "serial"))  # type: ignore[index]
        out(f"| {r['chunks']:,} | " + " | ".join(f"{e:.1f} → {g:.1f}" for e, g in r["knn_cpu"].values())  # type: ignore[attr-defined]
            + f" | {pair} |")
    out("")
    stages = list(rows[0]["stages"])  # type: ignore[call-overload]
    out("Where a hybrid search's time goes: CPU ms per query (`time.process_time`, mean over the queries) by"
        " stage, which depends far less on the machine's load than the wall times above:\n")
    out("| chunks | " + " | ".join(stages) + " |")
    out("|---|" + "---|" * len(stages))
    for r in rows:
        out(f"| {r['chunks']:,} | " + " | ".join(f"{r['stages'][name]:.1f}" for name in stages) + " |")  # type: ignore[index]
    out("")
    out("efSearch curve (primary space, unfiltered, k = 100): recall@100 against exact / p50 ms of the"
        " graph search alone (ids checked alive in the store included, query encoding not):\n")
    out("| chunks | " + " | ".join(f"efSearch {ef}" for ef, _, _ in rows[0]["curve"]) + " |")  # type: ignore[index]
    out("|---|" + "---|" * len(rows[0]["curve"]))  # type: ignore[arg-type]
    for r in rows:
        out(f"| {r['chunks']:,} | " + " | ".join(f"{rec:.3f} / {ms:.1f}" for _, rec, ms in r["curve"]) + " |")  # type: ignore[attr-defined]
    out.done(args.write)


def keyword_index(kb: KnowledgeBase, queries: list[str]) -> dict[str, float]:
    """The KB's in-memory keyword index: build, RAM, agreement with FTS5's own list, and CPU per search."""
    accelerator, store = kb.keyword_index, kb.store
    assert accelerator is not None
    before = rss_mb()
    started = time.perf_counter()
    accelerator.indexes.build("bench")
    out = {"build_s": time.perf_counter() - started}
    out["ram_per_chunk_b"] = (rss_mb() - before) * 1024 * 1024 / max(1, store.chunk_count("bench"))
    terms = [query_terms(q, "char") for q in queries]
    agree10, agree100 = [], []
    clock = time.process_time()
    wanted = [store.keyword_search(t, tenant="bench", filters=Filters(), limit=100) for t in terms]
    out["store_ms"] = (time.process_time() - clock) * 1000 / len(terms)
    clock = time.process_time()
    got = [accelerator.keyword_search(t, tenant="bench", filters=Filters(), limit=100) for t in terms]
    out["index_ms"] = (time.process_time() - clock) * 1000 / len(terms)
    for mine, theirs in zip(got, wanted, strict=True):
        agree10.append(len({r.rowid for r in mine[:10]} & {r.rowid for r in theirs[:10]}) / max(1, len(theirs[:10])))
        agree100.append(len({r.rowid for r in mine} & {r.rowid for r in theirs}) / max(1, len(theirs)))
    out["agree10"], out["agree100"] = float(np.mean(agree10)), float(np.mean(agree100))
    return out


def stage_costs(kb: KnowledgeBase, queries: list[str]) -> dict[str, float]:
    """CPU ms per query (``time.process_time``) of each stage of a hybrid search, in the order it runs.

    CPU time rather than wall time: on a shared 2-core machine a stage's wall time is mostly waiting
    for a core, and how long depends on the neighbours; the CPU a stage burns depends far less on them.
    ``fuse, hydrate, cosines`` is the whole search's CPU less the stages before it (each measured
    on its own call, as the search makes it).
    """
    depth = kb.config.candidates
    sums: dict[str, float] = {}

    def add(name: str, since: float) -> float:
        now = time.process_time()
        sums[name] = sums.get(name, 0.0) + (now - since) * 1000 / len(queries)
        return now

    for query in queries:
        started = clock = time.process_time()
        terms = query_terms(query, kb.config.segmenter)
        kb.keywords.keyword_search(terms, tenant="bench", filters=Filters(), limit=depth)
        clock = add("keyword (in-memory BM25)" if kb.keywords is kb.keyword_index else "keyword (FTS5)", clock)
        for space, space_embedder in kb.spaces:
            if space.holds(query):
                vector = space_embedder.encode([query])[0]
                clock = add(f"encode {space.name}", clock)
                kb.store.vector_index(space).search(vector, tenant="bench", filters=Filters(), limit=depth)
                clock = add(f"kNN {space.name}", clock)
        parts = time.process_time() - started
        clock = time.process_time()
        kb.search(query, tenant="bench", k=10)
        whole = time.process_time() - clock
        sums["fuse, hydrate, cosines"] = sums.get("fuse, hydrate, cosines", 0.0) + max(
            0.0, whole - parts) * 1000 / len(queries)
        sums["hybrid search, whole"] = sums.get("hybrid search, whole", 0.0) + whole * 1000 / len(queries)
    return sums


def overlap_ab(kb: KnowledgeBase, queries: list[str]) -> dict[str, tuple[float, float]]:
    """Hybrid p50 / p99 ms with the second vector space overlapped (``KBConfig.overlap_spaces``) and not.

    Queries alternate between the two settings, twice over in swapped order, so both meet the same
    load: on a shared machine the ratio means more than either figure.
    """
    shipped = kb.config
    times: dict[bool, list[float]] = {True: [], False: []}
    for parity in (0, 1):
        for i, query in enumerate(queries):
            overlap = (i + parity) % 2 == 0
            kb.config = dataclasses.replace(shipped, overlap_spaces=overlap)
            t0 = time.perf_counter()
            kb.search(query, tenant="bench", k=10, mode="hybrid")
            times[overlap].append((time.perf_counter() - t0) * 1000)
    kb.config = shipped
    return {"overlapped": percentiles(times[True]), "serial": percentiles(times[False])}


def latencies(kb: KnowledgeBase, queries: list[str]) -> dict[str, tuple[float, float]]:
    """p50 / p99 ms per mode (and ``answer``), one query at a time, after one warm-up each."""
    out = {}
    for mode in ("keyword", "vector", "hybrid"):
        kb.search(queries[0], tenant="bench", k=10, mode=mode)  # type: ignore[arg-type]
        times = []
        for query in queries:
            t0 = time.perf_counter()
            kb.search(query, tenant="bench", k=10, mode=mode)  # type: ignore[arg-type]
            times.append((time.perf_counter() - t0) * 1000)
        out[mode] = percentiles(times)
    times = []
    for query in queries:
        t0 = time.perf_counter()
        kb.answer(query, tenant="bench")
        times.append((time.perf_counter() - t0) * 1000)
    out["answer"] = percentiles(times)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", nargs="+", type=int, default=[10_000, 100_000])
    parser.add_argument("--scale", nargs="+", type=int, help="approximate-index rows at these sizes (synthetic)")
    parser.add_argument("--pool", type=int, default=1_000, help="sentences whose vectors the synthetic chunks sum")
    parser.add_argument("--recall-queries", type=int, default=100)
    parser.add_argument("--ann-threshold", type=int, default=AnnConfig().threshold,
                        help="vectors per tenant from which the HNSW graph is built (exact kNN below)")
    parser.add_argument("--exact-up-to", type=int, default=100_000, help="also time exact search up to this size")
    parser.add_argument("--workdir", default=None, help="where the scale databases go (default: the temp dir)")
    parser.add_argument("--keep", action="store_true",
                        help="keep the scale databases in --workdir and reuse complete ones from an earlier run")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--embedder", default="use")
    parser.add_argument("--english-embedder", default="minilm-onnx", help="model of the English space, or none")
    parser.add_argument("--write", action="store_true", help=f"replace '{SECTION}' in docs/benchmarks.md")
    args = parser.parse_args()
    if args.keep and not args.workdir:
        parser.error("--keep needs --workdir")
    rng = random.Random(7)
    pool = sentences()
    queries = [json.loads(line)["text"] for line in (DATA / "kb/scifact/queries_train.jsonl").read_text().splitlines()]
    queries = rng.sample(queries, min(args.queries, len(queries)))
    if args.scale:
        scale(args, queries, pool)
        return
    embedder, english = memoless_embedders(args.embedder, args.english_embedder)
    models = [embedder] + ([english] if english is not None else [])
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            corpus = Path(tmp) / f"corpus-{size}.jsonl"
            write_corpus(corpus, size, pool, rng)
            storage = open_storage(Path(tmp) / f"kb-{size}.db")
            kb = KnowledgeBase(storage, embedder, english_embedder=english)
            started = time.perf_counter()
            report = kb.ingest(corpus, tenant="bench")
            ingest_s = time.perf_counter() - started
            # The embedders alone (each space's model in turn) on 1,000 of the same texts: the ceiling
            # for an embedding-bound ingest.
            texts = list(dict.fromkeys(json.loads(x)["text"] for x in corpus.read_text().splitlines()))[:1000]
            started = time.perf_counter()
            for model in models:
                model.encode(texts)
            embed_rate = len(texts) / (time.perf_counter() - started)
            row: dict[str, object] = {"chunks": report.chunks, "ingest_chunks_per_s": report.chunks / ingest_s,
                   "embed_only_per_s": embed_rate, "db_mb": storage.path.stat().st_size / 1e6}
            row.update(latencies(kb, queries))
            rows.append(row)
            print(f"  {size}: {row}", file=sys.stderr)
            storage.close()
    out = Section(SECTION)
    out(f"Embedder {args.embedder}, English space {args.english_embedder} (1 thread each); {len(queries)} "
        "queries, k=10.\n")
    out("| chunks | ingest chunks/s | (embedder alone/s) | keyword p50 / p99 ms | vector p50 / p99 ms |"
        " hybrid p50 / p99 ms | answer p50 / p99 ms | DB MB |")
    out("|---|---|---|---|---|---|---|---|")
    for r in rows:
        cells = " | ".join(f"{r[m][0]:.1f} / {r[m][1]:.1f}" for m in ("keyword", "vector", "hybrid", "answer"))
        out(f"| {r['chunks']:,} | {r['ingest_chunks_per_s']:.0f} | {r['embed_only_per_s']:.0f} | {cells} |"
            f" {r['db_mb']:.0f} |")
    out.done(args.write)


if __name__ == "__main__":
    main()
