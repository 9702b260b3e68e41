"""Shared fixtures: the real bundled model once per session; a fresh database per test on each backend.

Backends: tests that take the ``storage`` fixture (or ``backend``) run on SQLite, and also on
PostgreSQL when their module or function carries ``@pytest.mark.backends("sqlite", "postgresql")``.
The PostgreSQL cluster is the one ``.ci/run`` started (``LASTLINE_TEST_PG_URL``, a superuser URL), or one
this session starts from the ``pgserver`` wheel; every test gets its own database, an owner role that
runs migrations and an application role bound by row-level security.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import pg_cluster

from lastline import Embedder, PostgresStorage, SQLiteStorage, get_embedder, open_storage

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    """The default bundled embedder, loaded once for the whole run."""
    emb = get_embedder("use", 1)
    emb.load()
    return emb


@pytest.fixture(scope="session")
def english_embedder() -> Embedder:
    """The KB's default English-space model (LASTLINE_KB_ENGLISH_EMBEDDER), loaded once."""
    emb = get_embedder("minilm-onnx", 1)
    emb.load()
    return emb


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "lastline.db"


BACKENDS = ("sqlite", "postgresql")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """``backend`` is SQLite unless the test is marked ``backends(...)`` (see the module docstring)."""
    if "backend" in metafunc.fixturenames:
        marker = metafunc.definition.get_closest_marker("backends")
        names = marker.args if marker else ("sqlite",)
        unknown = set(names) - set(BACKENDS)
        if unknown:
            raise pytest.UsageError(f"unknown backend(s) {sorted(unknown)}; choose from {BACKENDS}")
        metafunc.parametrize("backend", names, scope="function")


@pytest.fixture(scope="session")
def pg_superuser_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The test cluster's superuser URL: the one ``.ci/run`` started, else one started for this session."""
    url = os.environ.get("LASTLINE_TEST_PG_URL")
    if url:
        yield url
        return
    datadir = tmp_path_factory.mktemp("pgcluster")
    yield pg_cluster.start(datadir)
    pg_cluster.stop(datadir, remove=True)


@pytest.fixture
def pg_urls(pg_superuser_url: str) -> Iterator[tuple[str, str]]:
    """(application URL, owner URL) of a fresh database with pgvector, dropped after the test."""
    app, owner = pg_cluster.create_database(pg_superuser_url)
    yield app, owner
    pg_cluster.drop_database(pg_superuser_url, app)


@pytest.fixture
def backend_env(request: pytest.FixtureRequest, backend: str, db_path: Path) -> dict[str, str]:
    """Environment naming this test's database, for a ``lastline`` process (CLI or server)."""
    if backend == "sqlite":
        return {"LASTLINE_DB": str(db_path)}
    app, owner = request.getfixturevalue("pg_urls")
    return {"LASTLINE_DATABASE_URL": app, "LASTLINE_DATABASE_OWNER_URL": owner}


@pytest.fixture
def storage(request: pytest.FixtureRequest, backend: str, db_path: Path) -> Iterator[SQLiteStorage | PostgresStorage]:
    """A fresh database on the test's backend."""
    if backend == "sqlite":
        store: SQLiteStorage | PostgresStorage = open_storage(db_path)
    else:
        app, owner = request.getfixturevalue("pg_urls")
        store = open_storage(app, owner_url=owner)
    yield store
    store.close()


@pytest.fixture
def shared_data() -> Path:
    """The evaluation data beside the project; tests that need it skip loudly when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"evaluation data not found at {SHARED_DATA}")
    return SHARED_DATA


class LiveServer:
    """A real ``lastline serve`` process on 127.0.0.1 with its own database."""

    def __init__(self, base_url: str, db: Path, process: subprocess.Popen[bytes]) -> None:
        self.base_url = base_url
        self.db = db
        self.process = process

    def url(self, path: str) -> str:
        return self.base_url + path


def start_server(tmp: Path, env: dict[str, str] | None = None, timeout_s: float = 60.0) -> LiveServer:
    """Start the CLI's server on a free loopback port and wait for /readyz."""
    import socket
    import subprocess
    import sys
    import time

    import httpx

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    db = tmp / "server.db"
    # One worker unless a test asks for more: telemetry written by one worker reaches another's reads
    # only after the writer's flush interval, and most tests read their own writes at once.
    full_env = {**os.environ, "LASTLINE_DB": str(db), "LASTLINE_WORKERS": "1", **(env or {})}
    log = open(tmp / "server.log", "wb")  # noqa: SIM115 - closed with the process
    process = subprocess.Popen(
        [sys.executable, "-m", "lastline.api", "serve", "--host", "127.0.0.1", "--port", str(port)],
        env=full_env, stdout=log, stderr=subprocess.STDOUT, cwd=tmp,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            log.close()
            raise RuntimeError((tmp / "server.log").read_text())
        try:
            if httpx.get(base + "/readyz", timeout=1.0).status_code == 200:
                server = LiveServer(base, db, process)
                server.log = log  # closed by stop_server (an unclosed file is a ResourceWarning)
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    process.kill()
    log.close()
    raise RuntimeError("server did not become ready:\n" + (tmp / "server.log").read_text())


def stop_server(server: LiveServer) -> None:
    server.process.terminate()
    try:
        server.process.wait(timeout=10)
    except Exception:
        server.process.kill()
    log = getattr(server, "log", None)
    if log is not None:
        log.close()


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One shared server for the session (single-tenant, empty database)."""
    server = start_server(tmp_path_factory.mktemp("live"))
    yield server
    stop_server(server)


@pytest.fixture(scope="session")
def tenant_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A shared server with two API keys: ``key-a`` → tenant ``acme``, ``key-b`` → ``globex``."""
    env = {"LASTLINE_API_KEYS": '{"key-a": "acme", "key-b": "globex"}'}
    server = start_server(tmp_path_factory.mktemp("tenants"), env)
    yield server
    stop_server(server)
