"""``lastline serve`` on PostgreSQL: ready once every tier is built, a clean stop, a bad URL named at start."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import httpx
import psycopg
import pytest
from conftest import server_database, start_server
from psycopg.conninfo import conninfo_to_dict

pytestmark = pytest.mark.backends("postgresql")


def _connections(superuser_url: str, database_url: str) -> int:
    name = conninfo_to_dict(database_url)["dbname"]
    with psycopg.connect(superuser_url, autocommit=True) as conn:
        row = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s", (name,)).fetchone()
    return int(row[0]) if row else 0


def test_sigterm_closes_every_pooled_connection(request: pytest.FixtureRequest, tmp_path: Path, backend: str,
                                                pg_superuser_url: str) -> None:
    env = {**server_database(request, backend), "LASTLINE_KB_ENGLISH_EMBEDDER": "none"}
    server = start_server(tmp_path, env, timeout_s=120)
    try:
        ready = httpx.get(server.url("/readyz")).json()
        assert ready["status"] == "ready" and all(ready["checks"].values())
        httpx.post(server.url("/v1/fallback"), json={"prompt": "anything"})  # the pool is in use
        assert server.database_url is not None
        assert _connections(pg_superuser_url, server.database_url) >= 1
        server.process.send_signal(signal.SIGTERM)
        # uvicorn re-raises the signal once its shutdown is done: killed by SIGTERM, after a clean stop
        assert server.process.wait(timeout=30) in (0, -signal.SIGTERM)
    finally:
        if server.process.poll() is None:
            server.process.kill()
        server.log.close()  # type: ignore[attr-defined]
    assert _connections(pg_superuser_url, server.database_url) == 0
    log = server.log_path.read_text(errors="replace")
    assert "Application shutdown complete" in log and "Traceback" not in log


@pytest.mark.parametrize("workers", ["1", "2"])
def test_an_unreachable_database_fails_at_start_naming_the_setting_without_the_password(
        tmp_path: Path, workers: str) -> None:
    env = {"LASTLINE_DATABASE_URL": "postgresql://lastline_app:s3cret-pw@127.0.0.1:1/lastline",
           "LASTLINE_WORKERS": workers, "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-m", "lastline.api", "serve", "--port", "1"], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.startswith("error: LASTLINE_DATABASE_URL: cannot use postgresql://lastline_app@127.0.0.1:1/")
    assert "s3cret-pw" not in done.stderr + done.stdout and "Traceback" not in done.stderr
