"""``lastline fallback``: the ladder, defaults and events from a shell, on a real database."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from lastline import Embedder, NotFound
from lastline.api.cli import app

runner = CliRunner()


def lastline(*args: str, db: Path) -> tuple[int, str, BaseException | None]:
    result = runner.invoke(app, ["fallback", *args, "--db", str(db)])
    return result.exit_code, result.stdout, result.exception


def test_run_answers_from_a_declared_default_and_records_an_event(tmp_path: Path, embedder: Embedder) -> None:
    db = tmp_path / "cli.db"
    assert lastline("put-default", "greeting", "--answer", "Hello from the fallback.", db=db)[0] == 0
    code, out, _ = lastline("run", "hi there", "--task", "greeting", "--reason", "outage", "--json", db=db)
    assert code == 0, out
    answer = json.loads(out)
    assert (answer["source"], answer["degradation_depth"], answer["answer"]) == ("default", 4,
                                                                                 "Hello from the fallback.")
    events = json.loads(lastline("events", "--json", db=db)[1])
    assert events[0]["route"] == "cli" and events[0]["reason"] == "outage" and events[0]["prompt"] is None


def test_defaults_list_and_delete(tmp_path: Path) -> None:
    db = tmp_path / "d.db"
    lastline("put-default", "pay", "--side-effects", db=db)
    assert json.loads(lastline("defaults", "--json", db=db)[1]) == {"pay": {"answer": None, "side_effects": True}}
    assert lastline("delete-default", "pay", db=db)[0] == 0
    assert isinstance(lastline("delete-default", "pay", db=db)[2], NotFound)


def test_write_exits_2_with_no_degraded_writes(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "lastline.api", "fallback", "run", "delete my account", "--write",
         "--idempotency-key", "d-1", "--db", str(tmp_path / "w.db")],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )
    assert result.returncode == 2
    assert "refusing to degrade a write" in result.stderr
