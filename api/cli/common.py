"""Options and helpers shared by every ``lastline`` command group."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from lastline import load_settings

from ..ladder.runtime import Runtime

__all__ = ["DbOption", "JsonOption", "emit", "open_runtime"]

DbOption = Annotated[Path | None, typer.Option("--db", help="SQLite file (default: LASTLINE_DB or lastline.db).")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]


def open_runtime(db: Path | None) -> Runtime:
    """Open the runtime with ``--db`` taking precedence over LASTLINE_DB."""
    overrides: dict[str, Any] = {"db": db} if db is not None else {}
    return Runtime.open(load_settings(**overrides))


def emit(data: Any, as_json: bool) -> None:
    """Print ``data`` as JSON, or as a two-column table for people."""
    if as_json:
        typer.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str))
        return
    table = Table(show_header=False)
    for key, value in data.items():
        table.add_row(str(key), str(value))
    Console().print(table)
