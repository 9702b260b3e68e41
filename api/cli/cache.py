"""``lastline cache``: seed, inspect, calibrate and replay the semantic cache from a shell.

Commands carry the Python API's names (``put``, ``lookup``, ``stats``) plus the operator's tools:
``import`` (bulk put from a file), ``calibrate`` (threshold from labelled pairs or feedback) and
``replay`` (a traffic log through a scratch cache, with a threshold sweep and a PNG chart).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, Literal

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from lastline import InvalidInput
from lastline.cache.replay import iter_json_lines

from .cache_tools import calibrate_command, replay_command
from .common import DbOption, JsonOption, emit, open_runtime

__all__ = ["app"]

app = typer.Typer(help="Semantic cache: import, lookup, stats, calibrate, replay.", no_args_is_help=True)

TenantOption = Annotated[str, typer.Option("--tenant", help="Tenant whose entries and threshold to use.")]
ContextOption = Annotated[str | None, typer.Option("--context", help="Context fingerprint (must match exactly).")]


def _progress(label: str, quiet: bool) -> Progress:
    return Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    disable=quiet, transient=True, console=Console(stderr=True))


# ---------------------------------------------------------------- import / put / lookup / stats

def _split_tags(raw: Any) -> list[str]:
    if raw is None or raw == "":
        return []
    if isinstance(raw, list):
        return [str(t) for t in raw]
    return [t.strip() for t in str(raw).replace("|", ";").split(";") if t.strip()]


def _read_entries(path: Path) -> Iterator[dict[str, Any]]:
    """Rows of a ``.jsonl`` or ``.csv`` file with prompt,response[,context,tags,ttl_s]."""
    if not path.is_file():
        raise InvalidInput(f"{path}: no such file")
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson", ".json"):
        for line_no, row in iter_json_lines(path):
            yield _entry(row, f"{path}:{line_no}")
    elif suffix in (".csv", ".tsv"):
        with path.open(newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle, delimiter="\t" if suffix == ".tsv" else ",")
            for line_no, row in enumerate(reader, start=2):
                yield _entry(row, f"{path}:{line_no}")
    else:
        raise InvalidInput(f"{path}: unknown format {suffix!r}; use .jsonl or .csv")


def _entry(row: Any, where: str) -> dict[str, Any]:
    if not isinstance(row, dict):
        raise InvalidInput(f"{where}: expected an object with prompt and response")
    prompt, response = row.get("prompt"), row.get("response")
    if not isinstance(prompt, str) or not prompt.strip() or not isinstance(response, str):
        raise InvalidInput(f"{where}: needs a non-empty 'prompt' and a 'response'")
    item: dict[str, Any] = {"prompt": prompt, "response": response, "tags": _split_tags(row.get("tags"))}
    if row.get("context"):
        item["context"] = str(row["context"])
    if row.get("ttl_s") not in (None, ""):
        try:
            item["ttl_s"] = float(row["ttl_s"])
        except ValueError:
            raise InvalidInput(f"{where}: ttl_s must be a number of seconds") from None
    return item


@app.command("import")
def import_(
    file: Annotated[Path, typer.Argument(help="A .jsonl or .csv file: prompt,response[,context,tags,ttl_s].")],
    tenant: TenantOption = "default",
    context: ContextOption = None,
    batch: Annotated[int, typer.Option("--batch", min=1, help="Entries embedded per batch.")] = 256,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Put every prompt/response row of a file into the cache (tags: `a;b` in CSV, a list in JSONL).

    Example: lastline cache import faq.jsonl --tenant acme
    """
    runtime = open_runtime(db)
    cache = runtime.cache
    total, chunk = 0, []
    with _progress("importing", as_json) as bar:
        task = bar.add_task("import", total=None)
        for item in _read_entries(file):
            if context is not None and "context" not in item:
                item["context"] = context
            chunk.append(item)
            if len(chunk) >= batch:
                total += len(cache.put_many(chunk, tenant=tenant))
                bar.update(task, advance=len(chunk))
                chunk = []
        if chunk:
            total += len(cache.put_many(chunk, tenant=tenant))
    emit({"imported": total, "tenant": tenant, "file": str(file)}, as_json)


@app.command()
def put(
    prompt: Annotated[str, typer.Argument(help="The question as the caller would ask it.")],
    response: Annotated[str, typer.Argument(help="The answer to serve for it.")],
    tenant: TenantOption = "default",
    context: ContextOption = None,
    ttl_s: Annotated[float | None, typer.Option("--ttl-s", help="Lifetime in seconds (default: cache's).")] = None,
    tag: Annotated[list[str] | None, typer.Option("--tag", help="Tag for later invalidation (repeatable).")] = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Store one answer.

    Example: lastline cache put "What are your opening hours?" "9 to 5, Monday to Friday"
    """
    cache = open_runtime(db).cache
    entry_id = cache.put(prompt, response, tenant=tenant, context=context, ttl_s=ttl_s, tags=tuple(tag or ()))
    emit({"id": entry_id}, as_json)


@app.command()
def lookup(
    prompt: Annotated[str, typer.Argument(help="The question to look up.")],
    tenant: TenantOption = "default",
    context: ContextOption = None,
    mode: Annotated[
        Literal["intercept", "fallback"], typer.Option("--mode", help="intercept (strict) or fallback (looser).")
    ] = "intercept",
    threshold: Annotated[float | None, typer.Option("--threshold", help="Override the cosine threshold.")] = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Look a question up through every layer; exit code 1 on a miss.

    Example: lastline cache lookup "when are you open?" --json
    """
    cache = open_runtime(db).cache
    result = cache.lookup(prompt, tenant=tenant, context=context, mode=mode, threshold=threshold)
    emit(result.to_dict(), as_json)
    if not result.hit:
        raise typer.Exit(1)


@app.command()
def stats(
    tenant: TenantOption = "default",
    window_s: Annotated[float | None, typer.Option("--window-s", help="Only the last N seconds.")] = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Hits and misses by layer, hit rate, entries, and whether the threshold is calibrated.

    Example: lastline cache stats --tenant acme --json
    """
    cache = open_runtime(db).cache
    data = cache.stats(tenant=tenant, window_s=window_s)
    if as_json:
        emit(data, True)
        return
    flat = {k: (json.dumps(v, default=str) if isinstance(v, dict | list) else v) for k, v in data.items()}
    emit(flat, False)


app.command("calibrate")(calibrate_command)
app.command("replay")(replay_command)
