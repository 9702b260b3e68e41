"""What the default vector space's model choices do to KB quality and ingest speed, on a SciFact subset.

Compares, on the same chunks: the numpy USE (the shipped model) fed whole chunks, fed only the first
N characters (truncation: USE's cost grows with text length), fed sentence by sentence (sentence
pooling: every sentence of the batch encoded in one call, shortest first, the chunk's vector the
re-normalized mean of its sentences'), and the int8 ONNX export of the same model (``use-onnx``).
For each: encode rate on the chunks, cosine agreement with numpy USE on whole
chunks (mean / 5th percentile / min), vector-only nDCG@10 and hybrid nDCG@10 (keyword list from the
KB's own FTS5 index, fused with the shipped two-way RRF: k = 10, vector weight 0.5; the English space
off, so the default space carries the whole vector side).

The subset: ``--queries`` training queries drawn at random (seed 7), every abstract they judge
relevant, plus as many random other abstracts as distractors. Relative figures: a smaller corpus
scores higher than the full one, so compare rows with each other, not with docs/benchmarks.md.

``--curve N …`` measures the truncation curve instead, on the whole SciFact corpus and every
development (training) query unless ``--queries`` picks a subset: the shipped configuration (numpy
USE in the default space, the English MiniLM space, three-way fusion for English queries) with the
default space fed the first N characters of each chunk's embedded text (0: the whole text), the
keyword index and the English space always on the whole text. Per N: CPU ms per chunk of the USE
encode (one thread), vector-only nDCG@10, the two-way hybrid a document has while only keyword +
default space are filled (the "searchable" state), and the shipped three-way hybrid. The English
lists are the KB's own; the default-space lists are exact kNN over the re-encoded vectors.

Usage: python bench/kb_embed_choices.py [--queries 200] [--write]
       python bench/kb_embed_choices.py --curve 200 400 600 800 0 [--queries 300] [--write]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import DATA, machine, publish
from kb_eval import load_queries, ndcg_at

from lastline import get_embedder, open_storage
from lastline.embedding import Embedder
from lastline.kb import KnowledgeBase
from lastline.kb._fusion import rrf
from lastline.kb._index_text import embedding_text
from lastline.kb._store import Ranked
from lastline.kb._writer import encode_sorted

VARIANTS: list[tuple[str, int | str | None]] = [
    ("use", None), ("use", "sentences"), ("use", 512), ("use", 256), ("use-onnx", None), ("use-onnx", 512)]
SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+")



def stored_chunks(kb: KnowledgeBase, tenant: str) -> tuple[dict[int, str], list[int], list[str]]:
    """The tenant's chunks as the spaces embed them: (document of each row id, row ids in order, texts)."""
    keys = kb.store.chunk_keys(tenant)
    rowids = sorted(keys)
    chunk_rows = kb.store.chunk_rows(tenant, rowids)
    texts = [embedding_text(r.kind, r.title, r.heading, r.text, r.question) for r in (chunk_rows[i] for i in rowids)]
    return {rowid: doc_id for rowid, (doc_id, _) in keys.items()}, rowids, texts

def sentence_pooled(model: Embedder, texts: list[str]) -> np.ndarray:
    """Each text's vector as the re-normalized mean of its sentences' vectors (one encode call, sorted)."""
    parts = [[p for p in SENTENCE_END.split(t) if p.strip()] or [t] for t in texts]
    flat = [p for ps in parts for p in ps]
    order = sorted(range(len(flat)), key=lambda i: len(flat[i]))
    encoded = np.empty((len(flat), model.dim), dtype=np.float32)
    encoded[order] = model.encode([flat[i] for i in order])
    owner = np.repeat(np.arange(len(texts)), [len(ps) for ps in parts])
    pooled = np.zeros((len(texts), model.dim), dtype=np.float32)
    np.add.at(pooled, owner, encoded)
    return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)


def subset(n_queries: int) -> tuple[dict[str, str], dict[str, dict[str, int]], list[dict[str, str]]]:
    queries, qrels = load_queries("scifact")
    rng = random.Random(7)
    picked = rng.sample(sorted(queries), min(n_queries, len(queries)))
    relevant = {d for q in picked for d in qrels[q]}
    corpus = [json.loads(line) for line in (DATA / "kb/scifact/corpus.jsonl").read_text().splitlines()]
    others = [row for row in corpus if row["_id"] not in relevant]
    rows = [row for row in corpus if row["_id"] in relevant] + rng.sample(others, len(relevant))
    return {q: queries[q] for q in picked}, {q: qrels[q] for q in picked}, rows


def docs_ranked(scores: dict[int, float], doc_of: dict[int, str]) -> list[str]:
    seen: dict[str, None] = {}
    for rowid in sorted(scores, key=lambda r: -scores[r]):
        seen.setdefault(doc_of[rowid], None)
    return list(seen)


def curve(cuts: list[int], n_queries: int | None, write: bool) -> None:
    """The truncation curve of the default space (see the module docstring)."""
    from lastline.kb import KBConfig

    if n_queries is None:
        queries, qrels = load_queries("scifact")
        rows = [json.loads(line) for line in (DATA / "kb/scifact/corpus.jsonl").read_text().splitlines()]
    else:
        queries, qrels, rows = subset(n_queries)
    load_before = os.getloadavg()
    use = get_embedder("use", 1)
    use.load()
    english = get_embedder("minilm-onnx", 1)
    english.load()
    config = KBConfig()
    table = []
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "corpus.jsonl"
        corpus.write_text("".join(json.dumps(r) + "\n" for r in rows))
        # Ingest with the cheapest cut (the default space is re-encoded per cut below), the English
        # space in the background as the service runs it, then filled.
        kb = KnowledgeBase(open_storage(Path(tmp) / "kb.db"), use, KBConfig(vector_chars=min(c or 10**9 for c in cuts)),
                           english_embedder=english, background_spaces=True)
        kb.ingest(corpus, tenant="eval", workers=1)
        cpu = time.process_time()
        filled = kb.fill_spaces()
        english_ms = (time.process_time() - cpu) / max(filled, 1) * 1000
        doc_of, rowids, texts = stored_chunks(kb, "eval")
        lists = {q: kb.rankings(t, tenant="eval", mode="hybrid", depth=config.candidates) for q, t in queries.items()}
        kb.close()
        qv = use.encode(list(queries.values()))
        kw = float(np.mean([ndcg_at(docs_ranked({r.rowid: r.score for r in lists[q].lists["keyword"]}, doc_of),
                                    qrels[q]) for q in queries]))
        print(f"  {len(texts)} chunks, {len(queries)} queries; English {english_ms:.1f} ms CPU/chunk; keyword {kw:.3f}",
              file=sys.stderr)
        for cut in cuts:
            fed = [t[:cut] if cut else t for t in texts]
            cpu = time.process_time()
            matrix = encode_sorted(use, fed)
            ms = (time.process_time() - cpu) / len(fed) * 1000
            vec_ndcg, two_ndcg, three_ndcg = [], [], []
            for qi, q in enumerate(queries):
                sims = matrix @ qv[qi]
                top = np.argsort(-sims)[: config.candidates]
                vec = [Ranked(rowids[i], float(sims[i])) for i in top]
                vec_ndcg.append(ndcg_at(docs_ranked({r.rowid: r.score for r in vec}, doc_of), qrels[q]))
                ranked = lists[q]
                two = rrf([ranked.lists["keyword"], vec], [config.keyword_weight, config.vector_weight], config.rrf_k)
                two_ndcg.append(ndcg_at(docs_ranked(two, doc_of), qrels[q]))
                named = {**ranked.lists, "vector": vec}
                three = rrf(list(named.values()), [ranked.weights[n] for n in named], ranked.rrf_k)
                three_ndcg.append(ndcg_at(docs_ranked(three, doc_of), qrels[q]))
            row = (cut, float(np.mean([len(t) for t in fed])), ms, float(np.mean(vec_ndcg)),
                   float(np.mean(two_ndcg)), float(np.mean(three_ndcg)))
            table.append(row)
            print(f"  {row}", file=sys.stderr)
    load_after = os.getloadavg()
    subset_note = ", a subset: read the rows as ratios" if n_queries is not None else ""
    lines = [
        "## Knowledge base: the default space fed the first N characters (SciFact)",
        "",
        f"`python bench/kb_embed_choices.py --curve {' '.join(map(str, cuts))}"
        f"{'' if n_queries is None else f' --queries {n_queries}'}`. Machine: {machine()}; load average"
        f" {load_before[0]:.1f} before, {load_after[0]:.1f} after. {len(queries)} SciFact development"
        f" (training) queries over {len(rows)} abstracts ({len(rowids)} chunks{subset_note})."
        f" Keyword only: nDCG@10 {kw:.3f}; the English space"
        f" (MiniLM, whole text, background) {english_ms:.1f} ms CPU per chunk. CPU is the numpy USE encode"
        " on one thread, batches sorted by length.",
        "",
        "| default space fed | mean chars fed | USE CPU ms / chunk | USE vector nDCG@10 |"
        " searchable (keyword + USE) nDCG@10 | shipped (keyword + English + USE) nDCG@10 |",
        "|---|---|---|---|---|---|",
    ]
    for cut, chars, ms, vec, two, three in table:
        label = f"first {cut} chars" + (" (default)" if cut == KBConfig().vector_chars else "") if cut else "whole text"
        lines.append(f"| {label} | {chars:.0f} | {ms:.1f} | {vec:.3f} | {two:.3f} | {three:.3f} |")
    publish("\n".join(lines) + "\n", write)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=None,
                        help="a subset of N queries (default: 200; all with --curve)")
    parser.add_argument("--curve", nargs="+", type=int, help="characters fed to the default space, 0 = all")
    parser.add_argument("--variants", nargs="+", default=[f"{n}:{c}" if c else n for n, c in VARIANTS],
                        help="model[:sentences|:N chars], e.g. use use:sentences use:256 use-onnx (the first is the"
                        " reference for cosine agreement)")
    parser.add_argument("--write", action="store_true", help="replace this script's section of docs/benchmarks.md")
    args = parser.parse_args()
    if args.curve:
        curve(args.curve, args.queries, args.write)
        return
    args.queries = args.queries or 200
    variants = [(v.split(":")[0], None if ":" not in v else (lambda c: int(c) if c.isdigit() else c)(
        v.split(":", 1)[1])) for v in args.variants]
    queries, qrels, rows = subset(args.queries)
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "corpus.jsonl"
        corpus.write_text("".join(json.dumps(r) + "\n" for r in rows))
        use = get_embedder("use", 1)
        use.load()
        kb = KnowledgeBase(open_storage(Path(tmp) / "kb.db"), use)
        started = time.perf_counter()
        report = kb.ingest(corpus, tenant="eval")
        ingest_rate = report.chunks / (time.perf_counter() - started)
        doc_of, rowids, texts = stored_chunks(kb, "eval")
        keyword = {q: kb.rankings(t, tenant="eval", mode="keyword", depth=100).lists["keyword"]
                   for q, t in queries.items()}
        reference: np.ndarray | None = None
        table = []
        for name, limit in variants:
            model = use if name == "use" else Embedder(name, 1)
            model.load()
            cut = [t[:limit] if isinstance(limit, int) else t for t in texts]
            started = time.perf_counter()
            matrix = sentence_pooled(model, cut) if limit == "sentences" else model.encode(cut)
            rate = len(cut) / (time.perf_counter() - started)
            if reference is None:
                reference = matrix
            agree = np.sum(matrix * reference, axis=1)
            qv = model.encode(list(queries.values()))
            vec_ndcg, hyb_ndcg = [], []
            for qi, (q, _) in enumerate(queries.items()):
                sims = matrix @ qv[qi]
                top = np.argsort(-sims)[:100]
                vec = [Ranked(rowids[i], float(sims[i])) for i in top]
                vec_ndcg.append(ndcg_at(docs_ranked({r.rowid: r.score for r in vec}, doc_of), qrels[q]))
                fused = rrf([keyword[q], vec], [1.0, 0.5], 10)
                hyb_ndcg.append(ndcg_at(docs_ranked(fused, doc_of), qrels[q]))
            label = {None: "", "sentences": ", sentence-pooled"}.get(limit, f", first {limit} chars")  # type: ignore[arg-type]
            row = (f"{name}{label}", rate,
                   float(agree.mean()), float(np.percentile(agree, 5)), float(agree.min()),
                   float(np.mean(vec_ndcg)), float(np.mean(hyb_ndcg)))
            table.append(row)
            print(f"  {row}", file=sys.stderr)
    kw = float(np.mean([ndcg_at(docs_ranked({r.rowid: r.score for r in keyword[q]}, doc_of), qrels[q])
                        for q in queries]))
    load_after = os.getloadavg()
    lines = [
        "## Knowledge base: default-space model choices (SciFact subset)",
        "",
        f"`python bench/kb_embed_choices.py --queries {args.queries} --variants {' '.join(args.variants)}`."
        f" Machine: {machine()}; load average"
        f" {load_before[0]:.1f} before, {load_after[0]:.1f} after (shared machine: rates are pessimistic, read"
        " them as ratios within the table). Subset: "
        f"{len(queries)} SciFact training queries, {len(rows)} abstracts ({len(rowids)} chunks), half of them"
        f" judged relevant to some query. Ingest through `KnowledgeBase.ingest` (keyword + numpy USE, English"
        f" space off): {ingest_rate:.0f} chunks/s. Keyword only: nDCG@10 {kw:.3f}.",
        "",
        "| default-space model | chunks/s encoded | cosine to numpy USE mean / p5 / min | vector nDCG@10 |"
        " hybrid nDCG@10 (k 10, w 0.5) |",
        "|---|---|---|---|---|",
    ]
    for label, rate, mean, p5, low, vec, hyb in table:
        lines.append(f"| {label} | {rate:.1f} | {mean:.3f} / {p5:.3f} / {low:.3f} | {vec:.3f} | {hyb:.3f} |")
    publish("\n".join(lines) + "\n", args.write)


if __name__ == "__main__":
    main()
