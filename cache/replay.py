"""Replay a traffic log through a cache: what would have hit, by which layer, and how often wrongly.

A log is JSON lines, one lookup each, in traffic order::

    {"prompt": "...", "response": "...", "context": "...", "id": "q1",
     "label": true, "expected_entry": "q0"}

Only ``prompt`` is required. A miss with a ``response`` is ``put`` into the cache, as a caller
would after asking its model. Labels say whether a hit would have been right:

- ``expected_entry``: the ``id`` (or the prompt) of an earlier record whose answer is the right
  one; ``null`` means no cached answer is right. A hit on any other entry is a wrong hit.
- ``label``: true when any hit is acceptable (a duplicate of something cached), false when any hit
  is wrong. Used when ``expected_entry`` is absent.

Besides the real replay (at the cache's threshold), each lookup's nearest neighbour is scored so a
threshold sweep can say what other thresholds would have done against the same cache contents. The
sweep follows the cache's layers (exact and fuzzy hits do not depend on the threshold) and its slot
guard; it looks at the nearest neighbour only, where the real cache may try a few more candidates.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from lastline.errors import InvalidInput

__all__ = ["ReplayRecord", "ReplayReport", "SweepPoint", "read_log", "replay", "write_png"]

LAYERS = ("exact", "fuzzy", "semantic")


@dataclass(frozen=True)
class ReplayRecord:
    prompt: str
    response: str | None = None
    context: str | None = None
    id: str | None = None
    label: bool | None = None
    expected_entry: str | None = None
    has_expected: bool = False  # expected_entry given (possibly null)

    @property
    def labelled(self) -> bool:
        return self.has_expected or self.label is not None


@dataclass(frozen=True)
class SweepPoint:
    threshold: float
    hits: int
    hit_rate: float
    right_hits: int
    wrong_hits: int
    false_hit_rate: float | None  # wrong hits among labelled lookups that should miss
    recall: float | None          # right hits among labelled lookups that should hit


@dataclass
class ReplayReport:
    lookups: int = 0
    puts: int = 0
    hits_by_layer: dict[str, int] = field(default_factory=lambda: dict.fromkeys(LAYERS, 0))
    misses_by_reason: dict[str, int] = field(default_factory=dict)
    labelled: int = 0
    should_hit: int = 0
    should_miss: int = 0
    right_hits: int = 0
    wrong_hits: int = 0
    wrong_hits_by_layer: dict[str, int] = field(default_factory=lambda: dict.fromkeys(LAYERS, 0))
    false_hits_on_negatives: int = 0
    threshold: float | None = None
    sweep: list[SweepPoint] = field(default_factory=list)

    @property
    def hits(self) -> int:
        return sum(self.hits_by_layer.values())

    @property
    def hit_rate(self) -> float:
        return self.hits / self.lookups if self.lookups else 0.0

    @property
    def false_hit_rate(self) -> float | None:
        return self.false_hits_on_negatives / self.should_miss if self.should_miss else None

    @property
    def recall(self) -> float | None:
        return self.right_hits / self.should_hit if self.should_hit else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "lookups": self.lookups, "puts": self.puts, "hits": self.hits, "hit_rate": self.hit_rate,
            "hits_by_layer": self.hits_by_layer,
            "hit_rate_by_layer": {k: (v / self.lookups if self.lookups else 0.0)
                                  for k, v in self.hits_by_layer.items()},
            "misses_by_reason": self.misses_by_reason, "labelled": self.labelled,
            "should_hit": self.should_hit, "should_miss": self.should_miss,
            "right_hits": self.right_hits, "wrong_hits": self.wrong_hits,
            "wrong_hits_by_layer": self.wrong_hits_by_layer,
            "false_hit_rate": self.false_hit_rate, "recall": self.recall, "threshold": self.threshold,
            "sweep": [p.__dict__ for p in self.sweep],
        }


def _parse(obj: Any, line: int) -> ReplayRecord:
    if not isinstance(obj, dict):
        raise InvalidInput(f"line {line}: expected a JSON object")
    prompt = obj.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise InvalidInput(f"line {line}: 'prompt' must be a non-empty string")
    label = obj.get("label")
    if label is not None:
        if isinstance(label, str) and label.strip().lower() in ("0", "1", "true", "false"):
            label = label.strip().lower() in ("1", "true")
        elif not isinstance(label, bool | int) or label not in (0, 1):
            raise InvalidInput(f"line {line}: 'label' must be true/false or 0/1")
        label = bool(label)
    for key in ("response", "context", "id", "expected_entry"):
        value = obj.get(key)
        if value is not None and not isinstance(value, str | int):
            raise InvalidInput(f"line {line}: {key!r} must be a string")
    expected = obj.get("expected_entry")
    return ReplayRecord(
        prompt=prompt, response=obj.get("response"), context=obj.get("context"),
        id=None if obj.get("id") is None else str(obj["id"]), label=label,
        expected_entry=None if expected is None else str(expected), has_expected="expected_entry" in obj,
    )


def iter_json_lines(path: Path | str) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` of each non-blank line of a JSON-lines file; a bad line is named."""
    path = Path(path)
    if not path.is_file():
        raise InvalidInput(f"{path}: no such file")
    with path.open(encoding="utf-8") as handle:
        for line_no, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                yield line_no, json.loads(line)
            except json.JSONDecodeError as exc:
                raise InvalidInput(f"{path}:{line_no}: not JSON ({exc.msg})") from None


def read_log(path: Path | str) -> Iterator[ReplayRecord]:
    """Stream records from a JSON-lines traffic log."""
    for line_no, obj in iter_json_lines(path):
        yield _parse(obj, line_no)


def _is_right(rec: ReplayRecord, served_keys: set[str]) -> bool | None:
    """Whether a hit serving an entry with these keys (its record id and prompt) was right."""
    if rec.has_expected:
        return rec.expected_entry is not None and rec.expected_entry in served_keys
    return rec.label


def _should_hit(rec: ReplayRecord) -> bool | None:
    if rec.has_expected:
        return rec.expected_entry is not None
    return rec.label


def replay(cache: Any, records: Iterable[ReplayRecord], *, tenant: str = "default",
           threshold: float | None = None, sweep: Iterable[float] | None = None,
           progress: Any = None) -> ReplayReport:
    """Look each record up (putting misses that carry a response) and tally what happened."""
    report = ReplayReport()
    keys_by_entry: dict[str, set[str]] = {}
    prompt_by_entry: dict[str, str] = {}
    # per lookup, for the sweep: fixed outcome (exact/fuzzy) or (score, right?) of the nearest entry
    fixed: list[tuple[bool | None, bool | None]] = []
    scored: list[tuple[float, bool | None, bool | None]] = []
    for rec in records:
        result = cache.lookup(rec.prompt, tenant=tenant, context=rec.context, threshold=threshold)
        report.lookups += 1
        if report.threshold is None and result.threshold is not None:
            report.threshold = float(result.threshold)
        should = _should_hit(rec)
        if rec.labelled:
            report.labelled += 1
            report.should_hit += should is True
            report.should_miss += should is False
        if result.hit:
            layer = result.layer or "semantic"
            report.hits_by_layer[layer] = report.hits_by_layer.get(layer, 0) + 1
            right = _is_right(rec, keys_by_entry.get(result.entry_id or "", set()))
            if right is True:
                report.right_hits += 1
            elif right is False:
                report.wrong_hits += 1
                report.wrong_hits_by_layer[layer] = report.wrong_hits_by_layer.get(layer, 0) + 1
                report.false_hits_on_negatives += should is False
            if layer in ("exact", "fuzzy"):
                fixed.append((right, should))
        else:
            reason = result.reason or "miss"
            report.misses_by_reason[reason] = report.misses_by_reason.get(reason, 0) + 1
        if not (result.hit and result.layer in ("exact", "fuzzy")):
            entry_id, cosine = cache.score(rec.prompt, tenant=tenant, context=rec.context)
            if entry_id is None or cosine is None or not cache.slot_guard_ok(rec.prompt, prompt_by_entry.get(
                    entry_id, "")):
                scored.append((-np.inf, None, should))
            else:
                scored.append((float(cosine), _is_right(rec, keys_by_entry.get(entry_id, set())), should))
        if not result.hit and rec.response is not None:
            entry_id = cache.put(rec.prompt, rec.response, tenant=tenant, context=rec.context)
            report.puts += 1
            keys = keys_by_entry.setdefault(entry_id, set())
            keys.add(rec.prompt)
            if rec.id is not None:
                keys.add(rec.id)
            prompt_by_entry[entry_id] = rec.prompt
        if progress is not None:
            progress()
    grid = list(sweep) if sweep is not None else [round(float(t), 3) for t in np.arange(0.5, 1.0001, 0.025)]
    report.sweep = [_sweep_point(t, fixed, scored, report) for t in grid]
    return report


def _sweep_point(t: float, fixed: list[tuple[bool | None, bool | None]],
                 scored: list[tuple[float, bool | None, bool | None]], report: ReplayReport) -> SweepPoint:
    outcomes = [(right, should) for right, should in fixed]
    outcomes += [(right, should) for score, right, should in scored if score >= t]
    hits = len(outcomes)
    right = sum(1 for r, _ in outcomes if r is True)
    wrong = sum(1 for r, _ in outcomes if r is False)
    wrong_neg = sum(1 for r, s in outcomes if r is False and s is False)
    return SweepPoint(
        threshold=float(t), hits=hits, hit_rate=hits / report.lookups if report.lookups else 0.0,
        right_hits=right, wrong_hits=wrong,
        false_hit_rate=wrong_neg / report.should_miss if report.should_miss else None,
        recall=right / report.should_hit if report.should_hit else None,
    )


def write_png(report: ReplayReport, path: Path | str, title: str = "lastline cache replay") -> Path:
    """Chart the sweep (hit rate, recall, false-hit rate against threshold) and hits per layer."""
    try:
        import matplotlib
    except ImportError:
        raise InvalidInput("PNG charts need matplotlib: pip install 'lastline[report]'") from None
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    path = Path(path)
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2), gridspec_kw={"width_ratios": [2.2, 1]})
    xs = [p.threshold for p in report.sweep]
    left.plot(xs, [p.hit_rate for p in report.sweep], label="hit rate (all lookups)", color="#1f77b4")
    if report.should_hit:
        left.plot(xs, [p.recall for p in report.sweep], label="hit rate on should-hit", color="#2ca02c")
    if report.should_miss:
        left.plot(xs, [p.false_hit_rate for p in report.sweep], label="false-hit rate", color="#d62728")
    if report.threshold is not None:
        left.axvline(report.threshold, color="grey", linestyle="--", label=f"threshold {report.threshold:.3f}")
    left.set_xlabel("semantic threshold (cosine)")
    left.set_ylabel("rate")
    left.set_ylim(0, 1)
    left.grid(alpha=0.3)
    left.legend(fontsize=8)
    left.set_title("threshold sweep")
    counts = Counter(report.hits_by_layer)
    layers = list(LAYERS)
    right.bar(layers, [counts[k] for k in layers], color="#1f77b4", label="hits")
    right.bar(layers, [report.wrong_hits_by_layer.get(k, 0) for k in layers], color="#d62728",
              label="wrong hits")
    right.set_title(f"hits by layer ({report.lookups} lookups)")
    right.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
