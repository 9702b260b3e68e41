"""Shared pieces of the benchmark scripts: where the evaluation data is, the machine, pair files."""

from __future__ import annotations

import csv
import datetime as dt
import json
import os
import platform
import shlex
import sys
from pathlib import Path
from typing import Any

import numpy as np

from lastline import Embedder

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("LASTLINE_EVAL_DATA", ROOT.parent / "shared" / "data"))


def machine() -> str:
    """One line naming the CPU, cores, memory, Python and today's date, for result tables."""
    cpu = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        mem_kb = int(next(ln for ln in Path("/proc/meminfo").read_text().splitlines()
                          if ln.startswith("MemTotal")).split()[1])
        mem = f"{mem_kb / 1024 / 1024:.0f} GB"
    except (OSError, StopIteration, ValueError):
        mem = "? GB"
    return (f"{cpu}, {os.cpu_count()} cores, {mem}, Python {platform.python_version()}, "
            f"{dt.date.today().isoformat()}")


def read_pairs(name: str, limit: int | None = None) -> tuple[list[str], list[str], np.ndarray]:
    """``question1``, ``question2`` and 0/1 labels of a labelled pair file in ``cache/``."""
    q1: list[str] = []
    q2: list[str] = []
    labels: list[int] = []
    with open(DATA / "cache" / name, newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            q1.append(row["question1"])
            q2.append(row["question2"])
            labels.append(int(float(row["is_duplicate"])))
            if limit and len(labels) >= limit:
                break
    return q1, q2, np.asarray(labels, dtype=np.int8)


def bq_lines(name: str, limit: int) -> list[dict[str, Any]]:
    """The first ``limit`` records of a JSON-lines file of the BQ FAQ set (``kb/bq_faq_dev``)."""
    with open(DATA / "kb" / "bq_faq_dev" / name, encoding="utf-8") as handle:
        return [json.loads(line) for _, line in zip(range(limit), handle, strict=False)]


def recall_at_fpr(scores: np.ndarray, labels: np.ndarray, max_fpr: float) -> tuple[float, float, float]:
    """Best hit rate on duplicates with false hits on non-duplicates ≤ ``max_fpr``: (recall, fpr, threshold)."""
    neg = np.sort(scores[labels == 0])[::-1]
    pos = scores[labels == 1]
    allowed = int(np.floor(max_fpr * len(neg)))
    # Threshold just above the (allowed+1)-th highest negative score.
    threshold = float(np.nextafter(neg[allowed], np.float32(np.inf))) if allowed < len(neg) else float(neg[-1])
    fpr = float(np.mean(neg >= threshold))
    return float(np.mean(pos >= threshold)), fpr, threshold


def roc_auc(scores: np.ndarray, labels: np.ndarray) -> float:
    """Area under the ROC curve via the rank-sum statistic (ties averaged)."""
    order = np.argsort(scores, kind="mergesort")
    ranks = np.empty(len(scores), dtype=np.float64)
    sorted_scores = scores[order]
    i = 0
    while i < len(scores):
        j = i
        while j + 1 < len(scores) and sorted_scores[j + 1] == sorted_scores[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2 + 1
        i = j + 1
    n_pos = int(labels.sum())
    n_neg = len(labels) - n_pos
    return float((ranks[labels == 1].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


BENCHMARKS_MD = ROOT / "docs" / "benchmarks.md"


def _level(line: str) -> int:
    """Markdown heading level of ``line`` (0 when it is not a heading)."""
    hashes = len(line) - len(line.lstrip("#"))
    return hashes if hashes and line[hashes:hashes + 1] == " " else 0


def write_section(heading: str, text: str, path: Path = BENCHMARKS_MD) -> Path:
    """Replace (or append) the ``heading`` section of docs/benchmarks.md, leaving the others as they are.

    A section runs to the next heading of its own level or higher, so a script may own a ``###``
    subsection and its neighbours (other scripts' subsections, the ``##`` intro) stay. ``heading``
    must be a whole heading line; ``text`` starts with it.
    """
    level = _level(heading)
    if not level or not text.startswith(heading):
        raise ValueError(f"{heading!r}: a markdown heading line that the section text starts with")
    current = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    lines = current.splitlines(keepends=True)
    body = text.rstrip("\n") + "\n"
    start = next((i for i, line in enumerate(lines) if line.rstrip("\n") == heading), None)
    if start is None:
        current = current.rstrip("\n") + "\n\n" + body
    else:
        end = next((i for i in range(start + 1, len(lines)) if 0 < _level(lines[i]) <= level), len(lines))
        current = "".join(lines[:start]) + body + ("\n" + "".join(lines[end:]) if end < len(lines) else "")
    path.write_text(current, encoding="utf-8")
    return path


class Section:
    """A script's section of docs/benchmarks.md: printed line by line as it is built, written on ``--write``.

    ``out(...)`` takes what ``print`` would; headings the script prints inside its section are
    pushed below the section's own level, so they never end it (a ``## Through the cache`` in a
    ``###`` section becomes ``####``).
    """

    def __init__(self, heading: str, command: str | None = None) -> None:
        """``command`` (default: this process's own command line) goes into the section's first line."""
        command = command or shlex.join(["python", f"bench/{Path(sys.argv[0]).name}", *sys.argv[1:]])
        self.heading = heading
        self.level = _level(heading)
        started = dt.datetime.now(dt.UTC).strftime("%H:%M UTC")
        self.lines: list[str] = [heading, "", f"Machine: {machine()} {started}; load average {load_average()} at "
                                 f"start. Produced by `{command}`.", ""]
        print("\n".join(self.lines))

    def __call__(self, *parts: object, sep: str = " ", end: str = "\n", flush: bool = False) -> None:
        text = sep.join(str(p) for p in parts) + end
        print(text, end="", flush=flush)
        for line in text.removesuffix("\n").split("\n"):
            own = _level(line)
            self.lines.append("#" * max(own, self.level + 1) + line[own:] if own else line)

    def text(self) -> str:
        return "\n".join(self.lines).rstrip("\n") + "\n"

    def write(self, path: Path = BENCHMARKS_MD) -> Path:
        return write_section(self.heading, self.text(), path)

    def done(self, write: bool) -> None:
        """The end of a run: with ``--write``, the section goes into docs/benchmarks.md."""
        if write:
            print(f"wrote {self.write()}", file=sys.stderr)


def publish(text: str, write: bool) -> None:
    """Print a section a script rendered itself; with ``--write`` also put it in docs/benchmarks.md."""
    print(text)
    if write:
        print(f"wrote {write_section(text.split(chr(10), 1)[0], text)}", file=sys.stderr)


def load_average() -> str:
    """The 1/5/15-minute load averages, for the line that says how loaded the machine was."""
    return " / ".join(f"{x:.1f}" for x in os.getloadavg())


def memoless_embedders(name: str, english_name: str) -> tuple[Embedder, Embedder | None]:
    """The primary and English (``"none"``: off) embedders, loaded, with the memo of short texts off.

    Why: a bench that encodes the same texts once per mode or per row would, with the memo on, time
    memo hits in every row after the first instead of the model.
    """
    embedder = Embedder(name, 1, memo_texts=0)
    embedder.load()
    english = None if english_name == "none" else Embedder(english_name, 1, memo_texts=0)
    if english is not None:
        english.load()
    return embedder, english
