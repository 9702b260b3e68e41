"""SQL lives in store modules only: the stores are the seam a second backend implements.

Every string literal of the package's sources is read (with ``ast``, so comments, names and
docstrings — prose that may mention ``PRAGMA data_version`` — do not count); one that reads as SQL
may appear only in a module whose file name says ``store`` or ``schema``, or in ``core/storage.py`` and
``core/postgres.py`` (connections, transactions and migrations themselves).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("core", "cache", "kb", "rules", "api")
SQL = re.compile(
    r"\b(SELECT\s.+\sFROM|INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|"
    r"CREATE\s+(TABLE|INDEX|UNIQUE\s+INDEX|VIRTUAL\s+TABLE|TRIGGER|VIEW)|DROP\s+(TABLE|INDEX|TRIGGER)|"
    r"ALTER\s+TABLE|PRAGMA\s+\w+|BEGIN\s+IMMEDIATE|ON\s+CONFLICT)\b",
    re.DOTALL,
)


def _allowed(path: Path) -> bool:
    backends = {ROOT / "core" / "storage.py", ROOT / "core" / "postgres.py"}
    return "store" in path.name or "schema" in path.name or path in backends


def _sql_strings(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, " ".join(node.value.split())[:80])
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
        and SQL.search(node.value)
    ]


@pytest.mark.parametrize("package", PACKAGES)
def test_no_sql_string_outside_store_modules(package: str) -> None:
    offenders = [f"{p.relative_to(ROOT)}:{line}: {text}"
                 for p in sorted((ROOT / package).rglob("*.py")) if not _allowed(p)
                 for line, text in _sql_strings(p)]
    assert not offenders, "SQL outside store modules:\n" + "\n".join(offenders)


def test_the_check_finds_the_sql_of_a_store_module_and_skips_its_docstring() -> None:
    found = _sql_strings(ROOT / "api" / "ladder" / "events_store.py")
    assert any(text.startswith("CREATE TABLE api_events") for _, text in found)
    assert all(line > 8 for line, _ in found)  # the module docstring (lines 1-7) is prose


@pytest.mark.parametrize("text", [
    '"SELECT id FROM api_events WHERE tenant = ?"',
    '"INSERT INTO t (a) VALUES (?)"',
    '"""CREATE TABLE x (\n id INTEGER)"""',
    '"DELETE FROM cache_entries WHERE id = ?"',
    "'UPDATE cache_entries SET hits = hits + 1'",
])
def test_the_check_recognises_sql(text: str) -> None:
    assert SQL.search(text)


@pytest.mark.parametrize("text", ['"select a model"', '"Please delete from your notes"', '"update the index"'])
def test_the_check_ignores_prose(text: str) -> None:
    assert not SQL.search(text)
