"""KB ingest: how fast documents become searchable, the English space's background rate, re-ingest.

1. SciFact-sized documents: ``--docs`` abstracts (BEIR ``corpus.jsonl``, ≈1.7 chunks each; the
   default is the whole corpus) through ``KnowledgeBase.ingest`` as the service runs it
   (``background_spaces=True``): the rate to *searchable* counts keyword rows + default-space (USE)
   vectors. The English space (MiniLM) is filled afterwards by ``fill_spaces`` — the background
   worker's loop — on a KB of its own of ``--english-docs`` abstracts (filling all of SciFact
   takes minutes at its rate), and its rate stated beside it.

   Load-independent first: the CPU seconds per chunk of each stage (``IngestReport.cpu``: parse,
   chunk, keyword text = segmenting + language, default-space encode — in the worker processes when
   there are any — and write = the transaction: FTS5 + vectors), their sum, and what that sum
   projects on this machine's cores (chunks per CPU-second × cores: the rate of an otherwise idle
   machine, as far as the stages run in parallel). Then the wall-clock rate, with the load average.
   ``--workers 1 2`` ingests the same abstracts once per worker count (that many encoder processes,
   one model each) and ``--vector-chars 800 0`` once per default-space cut (``KBConfig.vector_chars``;
   0 = whole chunks), back to back, so the rows compare in one run.
2. A folder of ``--files`` small Markdown files (one to two SciFact sentences each): first ingest,
   re-ingest with nothing changed (every file skipped by size + mtime, nothing parsed), and
   re-ingest after touching 1% of the files (same bytes: recognised by SHA-256) and editing 1%,
   with the largest ``--workers`` (``lastline kb ingest`` uses one per core). ``--files 0`` skips it.

Usage: python bench/kb_ingest.py [--docs 5183] [--english-docs 400] [--files 10000] [--workers 1 2]
                                 [--vector-chars 800 0] [--write]
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import DATA, machine, memoless_embedders, publish

from lastline import Embedder, open_storage
from lastline.kb import KBConfig, KnowledgeBase

STAGES = ("parse", "chunk", "keyword text", "encode", "write")


def scifact(n: int) -> list[dict[str, str]]:
    rows = [json.loads(line) for line in (DATA / "kb/scifact/corpus.jsonl").read_text().splitlines()]
    return random.Random(7).sample(rows, min(n, len(rows)))


def sentences() -> list[str]:
    out: list[str] = []
    for line in (DATA / "kb/scifact/corpus.jsonl").read_text().splitlines():
        out.extend(s.strip() for s in re.split(r"(?<=[.!?])\s+", json.loads(line)["text"]) if len(s.strip()) > 30)
    return out


def english_space(english: Embedder, embedder: Embedder, docs: list[dict[str, str]], tmp: Path,
                  workers: list[int]) -> list[tuple[int, int, float, float]]:
    """The English space's fill as the service and ``kb ingest`` run it, once per worker count.

    Rows of (processes, chunks, CPU ms per chunk in this process, wall chunks/s): with worker
    processes the CPU is theirs, so this process's own column shows what it kept doing.
    """
    corpus = tmp / "english.jsonl"
    corpus.write_text("".join(json.dumps(r) + "\n" for r in docs))
    out = []
    for w in workers:
        kb = KnowledgeBase(open_storage(tmp / f"english-{w}.db"), embedder, english_embedder=english,
                           background_spaces=True)
        kb.ingest(corpus, tenant="bench")
        cpu, started = time.process_time(), time.perf_counter()
        filled = kb.fill_spaces(workers=w)
        wall = time.perf_counter() - started
        ms = (time.process_time() - cpu) / max(filled, 1) * 1000
        kb.close()
        print(f"  English space, {w} process(es): {filled} chunks, {ms:.1f} ms CPU/chunk here,"
              f" {filled / wall:.1f}/s wall", file=sys.stderr)
        out.append((w, filled, ms, filled / wall))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, default=5183, help="SciFact abstracts ingested per row (5,183: all)")
    parser.add_argument("--english-docs", type=int, default=400,
                        help="abstracts the English space's background rate is measured on (its own KB)")
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--embedder", default="use")
    parser.add_argument("--english-embedder", default="minilm-onnx", help="model of the English space, or none")
    parser.add_argument("--workers", nargs="+", type=int, default=[1, os.cpu_count() or 1])
    parser.add_argument("--vector-chars", nargs="+", type=int, default=[KBConfig().vector_chars or 0],
                        help="characters of each chunk fed to the default space (0: all); one run each")
    parser.add_argument("--write", action="store_true", help="replace this script's section of docs/benchmarks.md")
    args = parser.parse_args()
    load_before = os.getloadavg()
    embedder, english = memoless_embedders(args.embedder, args.english_embedder)
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "corpus.jsonl"
        corpus.write_text("".join(json.dumps(r) + "\n" for r in scifact(args.docs)))
        rows = []
        cores = os.cpu_count() or 1
        for chars in args.vector_chars:
            for workers in args.workers:
                config = KBConfig(vector_chars=chars or None)
                kb = KnowledgeBase(open_storage(Path(tmp) / f"a{chars}-{workers}.db"), embedder, config,
                                   english_embedder=english, background_spaces=True)
                load = os.getloadavg()[0]
                started = time.perf_counter()
                report = kb.ingest(corpus, tenant="bench", workers=workers)
                searchable_s = time.perf_counter() - started
                pooled = kb.indexer.pooled_texts
                kb.close()
                per_chunk = {stage: report.cpu[stage] / report.chunks * 1000 for stage in STAGES}
                total_ms = sum(per_chunk.values())
                rows.append((chars, workers, report.chunks, per_chunk, total_ms, 1000 / total_ms * cores,
                             report.chunks / searchable_s, load, pooled))
                print(f"  scifact {report.chunks} chunks, first {chars or 'all'} chars, {workers} worker(s):"
                      f" {total_ms:.1f} ms CPU/chunk {per_chunk}, {report.chunks / searchable_s:.1f}/s wall at load"
                      f" {load:.1f}, {pooled} encoded by the workers", file=sys.stderr)
        english_rows = (english_space(english, embedder, scifact(args.english_docs), Path(tmp), args.workers)
                        if english else [])

        folder = Path(tmp) / "files"
        pool = sentences()
        for i in range(args.files):
            sub = folder / f"d{i // 500:02d}"
            sub.mkdir(parents=True, exist_ok=True)
            text = " ".join(rng.sample(pool, rng.randint(1, 2)))[:300]
            (sub / f"page{i:05d}.md").write_text(f"# Page {i}\n\n{text}\n", encoding="utf-8")
        kb2 = KnowledgeBase(open_storage(Path(tmp) / "b.db"), embedder)
        timings = {}
        for label in ("first ingest", "re-ingest, nothing changed", "re-ingest, 1% touched + 1% edited")[
                : 3 if args.files else 0]:
            if label.startswith("re-ingest, 1%"):
                files = sorted(folder.rglob("*.md"))
                for f in rng.sample(files, len(files) // 100):
                    os.utime(f)
                for f in rng.sample(files, len(files) // 100):
                    f.write_text(f.read_text(encoding="utf-8") + "\nEdited.\n", encoding="utf-8")
            started = time.perf_counter()
            r = kb2.ingest(folder, tenant="bench", sync=True, workers=max(args.workers))  # as `kb ingest` does
            timings[label] = (time.perf_counter() - started, r.summary())
            print(f"  {label}: {timings[label]}", file=sys.stderr)
    load_after = os.getloadavg()
    cores = os.cpu_count() or 1
    lines = [
        "## Knowledge base: ingest to searchable, background English space, re-ingest",
        "",
        f"`python bench/kb_ingest.py --docs {args.docs} --english-docs {args.english_docs} --files {args.files}"
        f" --workers {' '.join(map(str, args.workers))} --vector-chars {' '.join(map(str, args.vector_chars))}`."
        f" Machine: {machine()}; load average {load_before[0]:.1f} before, {load_after[0]:.1f} after (wall"
        " rates depend on it; CPU per chunk much less). Models one thread each. CPU ms per chunk per stage"
        f" (`IngestReport.cpu`); projected = chunks per CPU-second × {cores} cores. With encoder processes,"
        " batches are encoded in this process until the workers have loaded the model (about a second"
        " of CPU each, not in the stage columns, in the wall rate), then by the workers while this process"
        " writes the batch before.",
        "",
        f"| SciFact abstracts → chunks | default space fed | encoder processes | {' | '.join(STAGES)} |"
        f" to searchable, CPU ms/chunk | projected chunks/s on {cores} cores | wall chunks/s (load) |"
        " chunks encoded by the workers |",
        "|---|---|---|" + "---|" * len(STAGES) + "---|---|---|---|",
        *[f"| {args.docs} → {n} | {f'first {c} chars' if c else 'whole chunk'} | {w} | "
          + " | ".join(f"{per[stage]:.2f}" for stage in STAGES)
          + f" | {total:.1f} | {projected:.0f} | {wall:.1f} ({load:.1f}) | {pooled if w > 1 else '—'} |"
          for c, w, n, per, total, projected, wall, load, pooled in rows],
    ]
    if english_rows:
        lines += ["", f"English space (MiniLM, whole chunks), filled after ingest as the service's background worker"
                  f" and `kb ingest` fill it (`KnowledgeBase.fill_spaces(workers=N)`), on {args.english_docs}"
                  " abstracts; search leaves the space out until it is complete. With worker processes the"
                  " encoding CPU is theirs: this process's column is what it kept for itself.", "",
                  "| encoder processes | chunks | CPU ms/chunk in this process | wall chunks/s |", "|---|---|---|---|",
                  *[f"| {w} | {n} | {ms:.1f} | {rate:.1f} |" for w, n, ms, rate in english_rows]]
    if timings:
        lines += ["", f"| {args.files:,} Markdown files, {max(args.workers)} encoder processes | seconds | added"
                  " | updated | unchanged | chunks |",
                  "|---|---|---|---|---|---|"]
    for label, (seconds, s) in timings.items():
        lines.append(f"| {label} | {seconds:.1f} | {s['added']} | {s['updated']} | {s['unchanged']} | {s['chunks']} |")
    publish("\n".join(lines) + "\n", args.write)


if __name__ == "__main__":
    main()
