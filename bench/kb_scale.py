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

Usage: python bench/kb_scale.py [--sizes 10000 100000] [--queries 200] [--embedder use]
                               [--english-embedder minilm-onnx|none] [--write]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import DATA, Section

from lastline import get_embedder, open_storage
from lastline.kb import KnowledgeBase

SECTION = "### Ingest speed and query latency (`bench/kb_scale.py`)"


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", nargs="+", type=int, default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--embedder", default="use")
    parser.add_argument("--english-embedder", default="minilm-onnx", help="model of the English space, or none")
    parser.add_argument("--write", action="store_true", help=f"replace '{SECTION}' in docs/benchmarks.md")
    args = parser.parse_args()
    rng = random.Random(7)
    pool = sentences()
    queries = [json.loads(line)["text"] for line in (DATA / "kb/scifact/queries_train.jsonl").read_text().splitlines()]
    queries = rng.sample(queries, min(args.queries, len(queries)))
    embedder = get_embedder(args.embedder, 1)
    embedder.load()
    english = None if args.english_embedder == "none" else get_embedder(args.english_embedder, 1)
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
            row = {"chunks": report.chunks, "ingest_chunks_per_s": report.chunks / ingest_s,
                   "embed_only_per_s": embed_rate, "db_mb": storage.path.stat().st_size / 1e6}
            for mode in ("keyword", "vector", "hybrid"):
                kb.search(queries[0], tenant="bench", k=10, mode=mode)  # type: ignore[arg-type]
                times = []
                for query in queries:
                    t0 = time.perf_counter()
                    kb.search(query, tenant="bench", k=10, mode=mode)  # type: ignore[arg-type]
                    times.append((time.perf_counter() - t0) * 1000)
                row[mode] = (float(np.percentile(times, 50)), float(np.percentile(times, 99)))
            times = []
            for query in queries:
                t0 = time.perf_counter()
                kb.answer(query, tenant="bench")
                times.append((time.perf_counter() - t0) * 1000)
            row["answer"] = (float(np.percentile(times, 50)), float(np.percentile(times, 99)))
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
