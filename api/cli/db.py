"""``lastline db``: the database itself — moving an existing SQLite file into PostgreSQL."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from lastline import ConfigError
from lastline.postgres import is_postgres_url

from ..ladder.database_copy import copy_database
from .common import JsonOption, emit

__all__ = ["app"]

app = typer.Typer(help="The database: copy a SQLite file into PostgreSQL (docs/deploy.md).", no_args_is_help=True)


@app.command("copy")
def copy(
    source: Annotated[str, typer.Option("--from", help="The SQLite file to move, as sqlite:PATH.")],
    target: Annotated[str, typer.Option("--to", help="postgresql://… of the application role (an empty database).")],
    owner_url: Annotated[str | None, typer.Option(
        "--owner-url", help="postgresql://… of the tables' owner, which runs migrations (default: --to).")] = None,
    as_json: JsonOption = False,
) -> None:
    """Copy every tier (cache, KB, rule packs, defaults, events, thresholds) into an empty PostgreSQL database.

    The target is migrated first; a target that already holds rows is refused. The SQLite file is
    migrated to the current schema before it is read, and is otherwise left as it was.

    Example: lastline db copy --from sqlite:./lastline.db --to postgresql://lastline_app@db/lastline --owner-url postgresql://lastline_owner@db/lastline
    """
    if not source.startswith("sqlite:"):
        raise ConfigError(f"--from: expected sqlite:PATH, got {source!r}")
    if not is_postgres_url(target):
        raise ConfigError("--to: expected a postgresql://… URL")
    if owner_url is not None and not is_postgres_url(owner_url):
        raise ConfigError("--owner-url: expected a postgresql://… URL")
    path = Path(source.removeprefix("sqlite:")).expanduser()
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True, disable=as_json) as bar:
        tasks: dict[str, TaskID] = {}

        def progress(table: str, done: int, total: int) -> None:
            if table not in tasks:
                tasks[table] = bar.add_task(table, total=total)
            bar.update(tasks[table], completed=done)

        copied = copy_database(path, target, owner_url=owner_url, progress=progress)
    emit({c.table: c.rows for c in copied}, as_json)
