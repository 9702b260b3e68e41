"""The cache's seams hold: SQL only in its store modules, no import cycles inside the package."""

from __future__ import annotations

import ast
import re
from pathlib import Path

CACHE = Path(__file__).resolve().parents[1] / "cache"
#: Files allowed to speak SQL: the store implementation(s) and the schema migrations.
SQL_MODULES = re.compile(r"(.*store.*|.*_schema)\.py$")
#: A SQL statement inside a string literal (keywords of statements, not of prose).
SQL = re.compile(r"\b(SELECT\s+.+\s+FROM|INSERT\s+(OR\s+\w+\s+)?INTO|DELETE\s+FROM|UPDATE\s+\w+\s+SET|"
                 r"CREATE\s+(TABLE|INDEX|TRIGGER)|PRAGMA\s+\w+)\b", re.I | re.S)


def _strings(tree: ast.AST) -> list[str]:
    return [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and not _is_docstring(node, tree)]


def _is_docstring(node: ast.Constant, tree: ast.AST) -> bool:
    for parent in ast.walk(tree):
        body = getattr(parent, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and body[0].value is node:
            return True
    return False


def _modules() -> dict[str, ast.Module]:
    return {p.stem: ast.parse(p.read_text(encoding="utf-8")) for p in sorted(CACHE.glob("*.py"))}


def test_sql_appears_only_in_the_cache_store_and_schema_modules() -> None:
    offenders = {name: [s[:60] for s in _strings(tree) if SQL.search(s)]
                 for name, tree in _modules().items() if not SQL_MODULES.match(f"{name}.py")}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_sql_pattern_finds_the_statements_the_store_runs() -> None:
    """The check above can fail: it sees the SQL of the store module."""
    store = _modules()["_store"]
    assert sum(bool(SQL.search(s)) for s in _strings(store)) >= 20


def _imports(name: str, tree: ast.Module) -> set[str]:
    """Sibling modules ``name`` imports anywhere: top level, inside functions, under ``TYPE_CHECKING``."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) or node.level != 1:
            continue
        if node.module:
            found.add(node.module.split(".")[0])
        else:
            found.update(alias.name for alias in node.names)
    return found - {name}


def test_no_import_cycles_inside_the_cache_package() -> None:
    graph = {name: _imports(name, tree) for name, tree in _modules().items()}
    state: dict[str, int] = {}
    cycle: list[str] = []

    def visit(node: str, path: list[str]) -> bool:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycle.extend([*path, node, nxt])
                return True
            if nxt not in state and visit(nxt, [*path, node]):
                return True
        state[node] = 2
        return False

    for start in sorted(graph):
        if start not in state and visit(start, []):
            break
    assert cycle == []


def test_no_cache_module_reaches_into_the_facade() -> None:
    """Helpers get explicit collaborators: none imports ``_cache`` (the ``SemanticCache`` facade)."""
    graph = {name: _imports(name, tree) for name, tree in _modules().items()}
    assert sorted(name for name, deps in graph.items() if "_cache" in deps and name != "__init__") == []
