"""The operator's cache tools behind ``lastline cache calibrate`` and ``lastline cache replay``.

Kept apart from :mod:`lastline.api.cli.cache` (the plain CRUD commands) to keep each module to one
concern; ``cli.cache`` registers these functions on its Typer app.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Annotated, Literal

import typer
from rich.console import Console
from rich.table import Table

from lastline import InvalidInput, load_settings
from lastline.cache.calibration import DEFAULT_CONFIDENCE, Calibration
from lastline.cache.pairs import read_pairs
from lastline.cache.replay import ReplayReport, read_log, replay, write_png

from ..ladder.runtime import Runtime
from .common import DbOption, JsonOption, open_runtime

__all__ = ["calibrate_command", "replay_command"]

_METHODS = ("wilson", "clopper-pearson")


def _fmt(value: float | None, pct: bool = True) -> str:
    if value is None:
        return "-"
    return f"{value:.2%}" if pct else f"{value:.4f}"


def _curve_table(cal: Calibration) -> Table:
    table = Table(title=f"false-hit curve ({cal.method} {cal.confidence:.0%} upper bound)")
    for name in ("threshold", "hit rate", "false-hit rate", "bound", "hits", "false hits"):
        table.add_column(name, justify="right")
    for p in cal.curve:
        chosen = abs(p.threshold - cal.threshold) < 1e-12
        table.add_row(
            f"{p.threshold:.4f}", _fmt(p.hit_rate), _fmt(p.false_hit_rate), _fmt(p.bound),
            str(p.hits), str(p.false_hits),
            style="bold green" if chosen else ("dim" if p.bound > cal.target else None),
        )
    return table


def calibrate_command(
    pairs: Annotated[Path | None, typer.Argument(
        help="CSV with question1,question2,is_duplicate (omit with --from-feedback).")] = None,
    target_false_hit: Annotated[float, typer.Option(
        "--target-false-hit", min=0.0001, max=0.5, help="Highest acceptable false-hit rate on fresh data.")] = 0.02,
    tenant: Annotated[str, typer.Option("--tenant", help="Tenant whose threshold to set.")] = "default",
    method: Annotated[str, typer.Option("--method", help="Upper bound: wilson or clopper-pearson.")] = "wilson",
    confidence: Annotated[float, typer.Option(
        "--confidence", min=0.5, max=0.999, help="Confidence of the upper bound.")] = DEFAULT_CONFIDENCE,
    mode: Annotated[
        Literal["intercept", "fallback"], typer.Option("--mode", help="Which threshold to set: intercept or fallback.")
    ] = "intercept",
    from_feedback: Annotated[bool, typer.Option(
        "--from-feedback", help="Use the tenant's feedback on served semantic hits instead of pairs.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show the result without storing it.")] = False,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="Use only the first N pairs.")] = None,
    partition_size: Annotated[int | None, typer.Option(
        "--partition-size", min=1, help="Entries of the scratch partition (default: the tenant's size).")] = None,
    language: Annotated[str | None, typer.Option(
        "--language", help="Threshold language: en, zh or * (default: the pairs' own).")] = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Pick the lowest cosine threshold whose upper confidence bound on false hits meets the target.

    Pairs are judged on served decisions: the question1s go into a scratch cache of the tenant's
    size, every question2 is looked up there, and an answer is right only when it is a known
    duplicate. The threshold is stored for the tenant, the current model and the pairs' language,
    with the bound, the lookups it rests on and the partition size it was measured at.

    Example: lastline cache calibrate pairs.csv --target-false-hit 0.02 --tenant acme
    """
    if method not in _METHODS:
        raise InvalidInput(f"--method must be one of {', '.join(_METHODS)} (got {method!r})")
    if (pairs is None) != from_feedback:
        raise InvalidInput("give a PAIRS.csv file, or --from-feedback (not both)")
    runtime = open_runtime(db)
    cache = runtime.cache
    labelled = read_pairs(pairs, limit=limit) if pairs is not None else None
    source = f"pairs:{pairs.name}" if pairs is not None else "feedback"
    status = f"scoring {len(labelled)} pairs" if labelled is not None else "reading feedback"
    with Console(stderr=True).status(status, spinner="dots") if not as_json else _null():
        cal = cache.calibrate(labelled, tenant=tenant, target=target_false_hit, method=method,
                              confidence=confidence, mode=mode, from_feedback=from_feedback,
                              store=not dry_run, source=source, partition_size=partition_size,
                              language=language)
    model_id = runtime.embedder.model_id
    stored = not dry_run
    summary = {"tenant": tenant, "model_id": model_id, "mode": mode, "stored": stored, "source": source}
    if as_json:
        typer.echo(json.dumps({**summary, **cal.to_dict()}, indent=2))
        return
    console = Console()
    if cal.curve:
        console.print(_curve_table(cal))
    what = "served hits with feedback" if cal.basis == "feedback" else "labelled non-duplicates"
    if cal.basis == "served":
        what += f" (lookups with no duplicate among {cal.partition_size} stored; language {cal.language})"
    console.print(
        f"threshold [bold]{cal.threshold:.4f}[/] for tenant {tenant!r}, model {model_id}, mode {mode}: "
        f"false-hit rate {cal.false_hit_rate:.2%}, {cal.confidence:.0%} {cal.method} upper bound "
        f"{cal.bound:.2%} ≤ target {cal.target:.2%}, on {cal.n_negatives} {what} "
        f"({cal.n_positives} {'correct' if cal.basis == 'feedback' else 'duplicates'}); "
        f"hit rate on duplicates {cal.hit_rate:.2%}. " + ("Stored." if stored else "Not stored (--dry-run)."),
        soft_wrap=True,
    )


class _null:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def _report_tables(report: ReplayReport) -> list[Table]:
    summary = Table(title=f"replay: {report.lookups} lookups, {report.puts} puts, "
                          f"threshold {_fmt(report.threshold, pct=False)}")
    for name in ("layer", "hits", "hit rate", "wrong hits"):
        summary.add_column(name, justify="right")
    for layer, hits in report.hits_by_layer.items():
        summary.add_row(layer, str(hits), _fmt(hits / report.lookups if report.lookups else 0.0),
                        str(report.wrong_hits_by_layer.get(layer, 0)))
    summary.add_row("all", str(report.hits), _fmt(report.hit_rate), str(report.wrong_hits), style="bold")
    labels = Table(title=f"labels: {report.labelled} labelled lookups")
    for name in ("should hit", "right hits", "hit rate on should-hit", "should miss", "false hits",
                 "false-hit rate"):
        labels.add_column(name, justify="right")
    labels.add_row(str(report.should_hit), str(report.right_hits), _fmt(report.recall),
                   str(report.should_miss), str(report.false_hits_on_negatives), _fmt(report.false_hit_rate))
    sweep = Table(title="threshold sweep (same cache contents, nearest neighbour)")
    for name in ("threshold", "hits", "hit rate", "hit rate on should-hit", "wrong hits", "false-hit rate"):
        sweep.add_column(name, justify="right")
    for p in report.sweep:
        sweep.add_row(f"{p.threshold:.3f}", str(p.hits), _fmt(p.hit_rate), _fmt(p.recall), str(p.wrong_hits),
                      _fmt(p.false_hit_rate))
    return [summary, labels, sweep]


def replay_command(
    log: Annotated[Path, typer.Argument(help="JSON lines: prompt[, response, context, id, label, expected_entry].")],
    png: Annotated[Path | None, typer.Option("--png", help="Also write the sweep and layer chart here.")] = None,
    tenant: Annotated[str, typer.Option("--tenant", help="Tenant to replay as (its threshold applies).")] = "default",
    threshold: Annotated[float | None, typer.Option(
        "--threshold", min=0.0, max=1.0, help="Replay at this threshold instead of the tenant's.")] = None,
    scratch: Annotated[bool, typer.Option(
        "--scratch/--no-scratch", help="Replay into a throw-away copy (default) or into --db itself.")] = True,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Replay a traffic log: hit rate per layer, false hits where labels exist, a threshold sweep.

    Misses that carry a response are put into the cache, as a caller would after asking its model.
    By default the replay runs on an empty scratch database (the tenant's stored threshold still
    applies), so nothing is written to --db.

    Example: lastline cache replay traffic.jsonl --png replay.png
    """
    records = list(read_log(log))
    if not records:
        raise InvalidInput(f"{log}: no records")
    runtime = open_runtime(db)
    tmp: tempfile.TemporaryDirectory[str] | None = None
    if scratch:
        if threshold is None:
            threshold = float(runtime.cache.get_threshold(tenant=tenant).value)
        runtime.close()
        tmp = tempfile.TemporaryDirectory(prefix="lastline-replay-")
        runtime = Runtime.open(load_settings(db=Path(tmp.name) / "replay.db"))
    try:
        cache = runtime.cache
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        with Progress(TextColumn("replaying"), BarColumn(), MofNCompleteColumn(), transient=True,
                      disable=as_json, console=Console(stderr=True)) as bar:
            task = bar.add_task("replay", total=len(records))
            report = replay(cache, records, tenant=tenant, threshold=threshold,
                            progress=lambda: bar.advance(task))
    finally:
        runtime.close()
        if tmp is not None:
            tmp.cleanup()
    if png is not None:
        write_png(report, png, title=f"lastline cache replay: {log.name}")
    if as_json:
        typer.echo(json.dumps({**report.to_dict(), "png": str(png) if png else None}, indent=2))
        return
    console = Console()
    for table in _report_tables(report):
        console.print(table)
    if png is not None:
        console.print(f"chart written to {png}")
