"""The rules package's module graph: acyclic, grammars below the date dispatcher, SQL only in the store."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import lastline.rules
from lastline import PostgresStorage, SQLiteStorage
from lastline.rules.store import PackStore, open_pack_store

RULES = Path(lastline.rules.__file__).resolve().parent


def _imports() -> dict[str, set[str]]:
    """Module → the sibling modules it imports (relative ``from .x import`` and ``lastline.rules.x``)."""
    graph: dict[str, set[str]] = {}
    for path in RULES.glob("*.py"):
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level == 1 and node.module:
                    deps.add(node.module.split(".")[0])
                elif node.module and node.module.startswith("lastline.rules."):
                    deps.add(node.module.split(".")[2])
        graph[path.stem] = deps - {path.stem}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for dep in sorted(graph.get(node, ())):
            if state.get(dep) == 1:
                return [*stack[stack.index(dep):], dep]
            if dep not in state and (found := visit(dep)) is not None:
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)) is not None:
            return found
    return None


def test_rules_modules_import_each_other_without_a_cycle() -> None:
    graph = {k: v for k, v in _imports().items() if k != "__init__"}
    assert _cycle(graph) is None, " → ".join(_cycle(graph) or [])


def test_cycle_finder_reports_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_date_grammars_never_import_the_dispatcher_or_each_other() -> None:
    graph = _imports()
    grammars = {"dates_en", "dates_zh", "dates_zh_periods"}
    for grammar in grammars:
        assert not graph[grammar] & (grammars | {"dates"}), (grammar, graph[grammar])
    assert grammars <= graph["dates"]
    assert graph["_date_types"] == set()


def test_sql_appears_only_in_the_pack_store() -> None:
    sql = re.compile(r"\b(?:SELECT|INSERT|UPDATE|DELETE\s+FROM|CREATE\s+TABLE)\b")
    stores = {"store.py", "pg_store.py"}
    offenders = [p.name for p in RULES.glob("*.py") if p.name not in stores and sql.search(p.read_text("utf-8"))]
    assert offenders == []


@pytest.mark.backends("sqlite", "postgresql")
def test_pack_store_keeps_packs_per_tenant(storage: SQLiteStorage | PostgresStorage) -> None:
    store: PackStore = open_pack_store(storage)
    assert store.put("t", "p", "name: p") is True
    assert store.put("t", "p", "name: p\n") is False
    assert store.get("t", "p") == "name: p\n" and store.get("other", "p") is None
    assert store.list("t") == [("p", "name: p\n")]
    assert store.delete("t", "p") is True and store.delete("t", "p") is False
