"""``lastline fallback``: the ladder, defaults and events from a shell, on a real database."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def lastline(*args: str, db: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "lastline.api", "fallback", *args, "--db", str(db)],
                          capture_output=True, text=True, timeout=120, cwd=db.parent)


def test_run_answers_from_a_declared_default_and_records_an_event(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    assert lastline("put-default", "greeting", "--answer", "Hello from the fallback.", db=db).returncode == 0
    result = lastline("run", "hi there", "--task", "greeting", "--reason", "outage", "--json", db=db)
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert (answer["source"], answer["degradation_depth"], answer["answer"]) == ("default", 4,
                                                                                 "Hello from the fallback.")
    events = json.loads(lastline("events", "--json", db=db).stdout)
    assert events[0]["route"] == "cli" and events[0]["reason"] == "outage" and events[0]["prompt"] is None


def test_write_exits_2_with_no_degraded_writes(tmp_path: Path) -> None:
    result = lastline("run", "delete my account", "--write", "--idempotency-key", "d-1", db=tmp_path / "w.db")
    assert result.returncode == 2
    assert "refusing to degrade a write" in result.stderr


def test_defaults_list_and_delete(tmp_path: Path) -> None:
    db = tmp_path / "d.db"
    lastline("put-default", "pay", "--side-effects", db=db)
    assert json.loads(lastline("defaults", "--json", db=db).stdout) == {
        "pay": {"answer": None, "side_effects": True}
    }
    assert lastline("delete-default", "pay", db=db).returncode == 0
    missing = lastline("delete-default", "pay", db=db)
    assert missing.returncode == 2 and "no stored default" in missing.stderr
