"""Declared defaults: the last rung of the ladder, and the list of tasks that have side effects.

An operator declares, per task, either a preset answer (served at depth 4 with confidence low
when nothing better answers) or ``side_effects: true`` (every fallback request for that task is
refused with 409, like an explicit write). Two sources, merged per lookup:

- a YAML/JSON file named by ``LASTLINE_DEFAULTS_FILE``, shared by every tenant and read once::

      tasks:
        order_status: {answer: "We cannot look up orders right now; please retry in a few minutes."}
        transfer_money: {side_effects: true}
        "*": {answer: "The assistant is temporarily unavailable."}   # any task, or no task

- per-tenant declarations through ``PUT /v1/defaults/{task}``, kept by a
  :class:`~lastline.api.ladder.defaults_store.DefaultsStore`; they override the file's entry for the same task.

The task ``*`` is the route-wide default: it answers requests whose task has no entry of its own.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from pydantic import BaseModel, Field, ValidationError

from lastline import ConfigError

from .defaults_store import DefaultRow, DefaultsStore

__all__ = ["ANY_TASK", "MAX_TASK_CHARS", "DeclaredDefault", "Defaults", "load_defaults_file"]

ANY_TASK = "*"
MAX_TASK_CHARS = 200
MAX_DEFAULT_CHARS = 20_000


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


class Defaults:
    """File declarations (all tenants) overlaid by per-tenant declarations from a :class:`DefaultsStore`."""

    def __init__(self, store: DefaultsStore, file_defaults: dict[str, DeclaredDefault] | None = None) -> None:
        self.store = store
        self.file_defaults = dict(file_defaults or {})

    def put(self, *, tenant: str, task: str, default: DeclaredDefault) -> None:
        self.store.put(tenant, DefaultRow(task, default.answer, default.side_effects))

    def delete(self, *, tenant: str, task: str) -> bool:
        return self.store.delete(tenant, task)

    def get(self, *, tenant: str, task: str) -> DeclaredDefault | None:
        """This task's own declaration (tenant's first, then the file's), without the ``*`` fallback."""
        row = self.store.get(tenant, task)
        if row is not None:
            return DeclaredDefault(answer=row.answer, side_effects=row.side_effects)
        return self.file_defaults.get(task)

    def all(self, *, tenant: str) -> dict[str, DeclaredDefault]:
        merged = dict(self.file_defaults)
        for row in self.store.list(tenant):
            merged[row.task] = DeclaredDefault(answer=row.answer, side_effects=row.side_effects)
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
