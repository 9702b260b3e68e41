"""Crash safety, quick version of bench/crash.py: SIGKILL under 8 concurrent writers loses no acknowledged entry."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from conftest import ROOT, LiveServer, start_server


def _harness() -> ModuleType:
    sys.path.insert(0, str(ROOT / "bench"))
    spec = importlib.util.spec_from_file_location("bench_crash", ROOT / "bench" / "crash.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve their annotations through it
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_sigkill_under_concurrent_writers_loses_no_acknowledged_entry(tmp_path: Path) -> None:
    crash = _harness()
    servers: list[LiveServer] = []
    env = {"LASTLINE_KB_ENGLISH_EMBEDDER": "none"}

    def start() -> tuple[subprocess.Popen[bytes], str]:
        server = start_server(tmp_path, env, timeout_s=120)
        servers.append(server)
        return server.process, server.base_url

    try:
        report = crash.crash_cycles(start, 5, seed=12)
        assert report.cycles == 5
        assert len(report.acknowledged) >= 20, "too few writes were acknowledged to say anything"
        report = crash.verify(start, tmp_path / "server.db", report)
    finally:
        for server in servers:
            if server.process.poll() is None:
                server.process.kill()
                server.process.wait()
            server.log.close()  # type: ignore[attr-defined]
    assert report.lost_rows == []
    assert report.lost_in_index == []
