"""Declared defaults: the last rung of the ladder, and the list of tasks that have side effects.

An operator declares, per task, either a preset answer (served at depth 4 with confidence low
when nothing better answers) or ``side_effects: true`` (every fallback request for that task is
refused with 409, like an explicit write). Two sources, merged per lookup:

- a YAML/JSON file named by ``LASTLINE_DEFAULTS_FILE``, shared by every tenant and read once::

      tasks:
        order_status: {answer: "We cannot look up orders right now; please retry in a few minutes."}
        transfer_money: {side_effects: true}
        "*": {answer: "The assistant is temporarily unavailable."}   # any task, or no task

- per-tenant declarations through ``PUT /v1/defaults/{task}``, stored in SQLite; they override the
  file's entry for the same task.

The task ``*`` is the route-wide default: it answers requests whose task has no entry of its own.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, Field, ValidationError

from lastline import ConfigError, Migration, SQLiteStorage

__all__ = ["ANY_TASK", "MIGRATIONS", "DeclaredDefault", "DefaultsStore", "load_defaults_file"]

ANY_TASK = "*"
MAX_TASK_CHARS = 200
MAX_DEFAULT_CHARS = 20_000


def _create_defaults(conn: Any) -> None:
    conn.execute(
        """CREATE TABLE api_defaults (
            tenant TEXT NOT NULL,
            task TEXT NOT NULL,
            answer TEXT,
            side_effects INTEGER NOT NULL DEFAULT 0,
            updated_at REAL NOT NULL,
            PRIMARY KEY (tenant, task)
        )"""
    )


MIGRATIONS = [Migration("api_0002_defaults", _create_defaults)]


class DeclaredDefault(BaseModel):
    """One task's declaration: a preset answer, and whether the task changes the world."""

    answer: str | None = Field(None, max_length=MAX_DEFAULT_CHARS, description="Preset low-confidence answer.")
    side_effects: bool = Field(False, description="True: fallback requests for this task are refused (409).")


def load_defaults_file(path: Path) -> dict[str, DeclaredDefault]:
    """Read ``{tasks: {name: {answer, side_effects}}}`` from YAML or JSON, failing by setting name."""
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8")) if path.suffix != ".json" else json.loads(
            path.read_text(encoding="utf-8")
        )
    except (OSError, ValueError, yaml.YAMLError) as exc:
        raise ConfigError(f"LASTLINE_DEFAULTS_FILE: cannot read {path}: {exc}") from None
    tasks = (raw or {}).get("tasks", {}) if isinstance(raw, dict) else None
    if not isinstance(tasks, dict):
        raise ConfigError(f"LASTLINE_DEFAULTS_FILE: {path} must hold a mapping 'tasks: {{name: {{...}}}}'")
    out: dict[str, DeclaredDefault] = {}
    for name, spec in tasks.items():
        if isinstance(spec, str):
            spec = {"answer": spec}
        try:
            out[str(name)] = DeclaredDefault.model_validate(spec or {})
        except ValidationError as exc:
            raise ConfigError(f"LASTLINE_DEFAULTS_FILE: task {name!r}: {exc.errors()[0]['msg']}") from None
    return out


class DefaultsStore:
    """File declarations (all tenants) overlaid by per-tenant declarations stored in SQLite."""

    def __init__(self, storage: SQLiteStorage, file: Path | None = None) -> None:
        self.storage = storage
        storage.migrate(MIGRATIONS)
        self.file_defaults = load_defaults_file(file) if file is not None else {}

    def put(self, *, tenant: str, task: str, default: DeclaredDefault) -> None:
        with self.storage.atomic() as conn:
            conn.execute(
                "INSERT INTO api_defaults (tenant, task, answer, side_effects, updated_at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (tenant, task) DO UPDATE SET"
                " answer = excluded.answer, side_effects = excluded.side_effects,"
                " updated_at = excluded.updated_at",
                (tenant, task, default.answer, int(default.side_effects), time.time()),
            )

    def delete(self, *, tenant: str, task: str) -> bool:
        with self.storage.atomic() as conn:
            cur = conn.execute("DELETE FROM api_defaults WHERE tenant = ? AND task = ?", (tenant, task))
            return bool(cur.rowcount)

    def get(self, *, tenant: str, task: str) -> DeclaredDefault | None:
        """This task's own declaration (tenant's first, then the file's), without the ``*`` fallback."""
        rows = self.storage.query(
            "SELECT answer, side_effects FROM api_defaults WHERE tenant = ? AND task = ?", (tenant, task)
        )
        if rows:
            return DeclaredDefault(answer=rows[0][0], side_effects=bool(rows[0][1]))
        return self.file_defaults.get(task)

    def all(self, *, tenant: str) -> dict[str, DeclaredDefault]:
        merged = dict(self.file_defaults)
        for task, answer, side in self.storage.query(
            "SELECT task, answer, side_effects FROM api_defaults WHERE tenant = ? ORDER BY task", (tenant,)
        ):
            merged[task] = DeclaredDefault(answer=answer, side_effects=bool(side))
        return dict(sorted(merged.items()))

    def has_side_effects(self, *, tenant: str, task: str | None) -> bool:
        if not task:
            return False
        declared = self.get(tenant=tenant, task=task)
        return bool(declared and declared.side_effects)

    def answer_for(self, *, tenant: str, task: str | None) -> tuple[str, str] | None:
        """``(matched task, preset answer)`` for ``task``, else the route-wide ``*`` default."""
        for name in ([task] if task else []) + [ANY_TASK]:
            declared = self.get(tenant=tenant, task=name)
            if declared is not None and declared.answer is not None and not declared.side_effects:
                return name, declared.answer
        return None
