"""SQL lives in store modules only: the stores are the seam a second backend implements.

Every string literal of the package's sources is read (with ``tokenize``, so comments and names do
not count); one that reads as SQL may appear only in a module whose file name says ``store`` or
``schema``, or in ``core/storage.py`` (connections, transactions and migrations themselves).
"""

from __future__ import annotations

import io
import re
import tokenize
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
    return "store" in path.name or "schema" in path.name or path == ROOT / "core" / "storage.py"


def _sql_strings(path: Path) -> list[tuple[int, str]]:
    found = []
    for tok in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
        if tok.type == tokenize.STRING and SQL.search(tok.string):
            found.append((tok.start[0], " ".join(tok.string.split())[:80]))
    return found


#: Packages whose store seam is still being cut: strict xfail, so the mark must go once they are clean.
PENDING = {"cache": "cache entries/sync/thresholds store seam", "kb": "KB documents/chunks/search store seam"}


@pytest.mark.parametrize("package", [
    pytest.param(pkg, marks=pytest.mark.xfail(strict=True, reason=PENDING[pkg])) if pkg in PENDING else pkg
    for pkg in PACKAGES
])
def test_no_sql_string_outside_store_modules(package: str) -> None:
    offenders = [f"{p.relative_to(ROOT)}:{line}: {text}"
                 for p in sorted((ROOT / package).rglob("*.py")) if not _allowed(p)
                 for line, text in _sql_strings(p)]
    assert not offenders, "SQL outside store modules:\n" + "\n".join(offenders)


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
