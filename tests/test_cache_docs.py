"""The Python example in docs/cache.md runs as written."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "cache.md"


def test_python_example_in_docs_runs(tmp_path: Path, embedder: object, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
    assert blocks, "docs/cache.md has no python example"
    monkeypatch.chdir(tmp_path)
    for code in blocks:
        exec(compile(code, str(DOC), "exec"), {"__name__": "docs_example"})
    assert os.path.exists(tmp_path / "cache-example.db")
