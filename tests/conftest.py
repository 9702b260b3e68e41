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
# LASTLINE_SHARED_DATA: the data folder when the checkout is not beside it (a git worktree elsewhere).
SHARED_DATA = Path(os.environ.get("LASTLINE_SHARED_DATA", ROOT.parent / "shared" / "data"))


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
    if "backend" in metafunc.fixturenames and not _parametrizes_itself(metafunc, "backend"):
        marker = metafunc.definition.get_closest_marker("backends")
        names = marker.args if marker else ("sqlite",)
        unknown = set(names) - set(BACKENDS)
        if unknown:
            raise pytest.UsageError(f"unknown backend(s) {sorted(unknown)}; choose from {BACKENDS}")
        # Module scope: a module's own server fixtures (scope="module") start once per backend.
        metafunc.parametrize("backend", names, scope="module")


def _parametrizes_itself(metafunc: pytest.Metafunc, name: str) -> bool:
    """True when the test's own ``parametrize`` names ``name`` (another meaning of the word)."""
    for marker in metafunc.definition.iter_markers("parametrize"):
        names = marker.args[0]
        if name in ([n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)):
            return True
    return False


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


def postgres_env(app_url: str, owner_url: str) -> dict[str, str]:
    """The settings that put a ``lastline`` process on a PostgreSQL database."""
    return {"LASTLINE_DATABASE_URL": app_url, "LASTLINE_DATABASE_OWNER_URL": owner_url}


def open_test_storage(request: pytest.FixtureRequest, backend: str, db_path: Path) -> SQLiteStorage | PostgresStorage:
    """One more storage on the test's own database (its SQLite file, or its ``pg_urls`` database)."""
    if backend == "sqlite":
        return open_storage(db_path)
    app, owner = request.getfixturevalue("pg_urls")
    return open_storage(app, owner_url=owner)


@pytest.fixture
def backend_env(request: pytest.FixtureRequest, backend: str, db_path: Path) -> dict[str, str]:
    """Environment naming this test's database, for a ``lastline`` process (CLI or server)."""
    if backend == "sqlite":
        return {"LASTLINE_DB": str(db_path)}
    return postgres_env(*request.getfixturevalue("pg_urls"))


@pytest.fixture
def storage(request: pytest.FixtureRequest, backend: str, db_path: Path) -> Iterator[SQLiteStorage | PostgresStorage]:
    """A fresh database on the test's backend."""
    store = open_test_storage(request, backend, db_path)
    yield store
    store.close()


@pytest.fixture
def shared_data() -> Path:
    """The evaluation data beside the project; tests that need it skip loudly when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"evaluation data not found at {SHARED_DATA}")
    return SHARED_DATA


def server_database(request: pytest.FixtureRequest, backend: str) -> dict[str, str]:
    """Env naming a fresh database on ``backend`` for a server living as long as the requesting fixture.

    SQLite needs nothing (``start_server`` gives each server a file); PostgreSQL gets its own
    database, dropped when the fixture that asked is torn down.
    """
    if backend == "sqlite":
        return {}
    superuser = request.getfixturevalue("pg_superuser_url")
    app, owner = pg_cluster.create_database(superuser)
    request.addfinalizer(lambda: pg_cluster.drop_database(superuser, app))
    return postgres_env(app, owner)


class LiveServer:
    """A real ``lastline serve`` process on 127.0.0.1 with its own database (a SQLite file or PostgreSQL)."""

    def __init__(self, base_url: str, tmp: Path, env: dict[str, str], process: subprocess.Popen[bytes]) -> None:
        self.base_url = base_url
        self.tmp = tmp
        self.env = env
        self.process = process
        self.log_path = tmp / "server.log"
        #: The SQLite file, or None when the server runs on PostgreSQL (``database_url``).
        self.db: Path | None = Path(env["LASTLINE_DB"]) if "LASTLINE_DB" in env else None
        self.database_url: str | None = env.get("LASTLINE_DATABASE_URL")
        self.owner_url: str | None = env.get("LASTLINE_DATABASE_OWNER_URL")

    @property
    def backend(self) -> str:
        return "sqlite" if self.database_url is None else "postgresql"

    def url(self, path: str) -> str:
        return self.base_url + path

    def requests_logged(self, line: str) -> int:
        """How many access-log lines of the server contain ``line`` (each request is one line)."""
        return sum(1 for row in self.log_path.read_text(errors="replace").splitlines() if line in row)


def start_server(tmp: Path, env: dict[str, str] | None = None, timeout_s: float = 60.0) -> LiveServer:
    """Start the CLI's server on a free loopback port and wait for /readyz.

    ``env`` may carry a backend's settings (``backend_env``, ``server_database``): with
    ``LASTLINE_DATABASE_URL`` the server runs on that PostgreSQL database, else on ``tmp/server.db``.
    """
    import socket
    import subprocess
    import sys
    import time

    import httpx

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = dict(env or {})
    if "LASTLINE_DATABASE_URL" not in env:
        env.setdefault("LASTLINE_DB", str(tmp / "server.db"))
    # One worker unless a test asks for more: telemetry written by one worker reaches another's reads
    # only after the writer's flush interval, and most tests read their own writes at once.
    base_env = {k: v for k, v in os.environ.items() if not k.startswith("LASTLINE_DATABASE")}
    full_env = {**base_env, "LASTLINE_WORKERS": "1", **env}
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
                server = LiveServer(base, tmp, env, process)
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


class _SessionServers:
    """Servers shared by the whole session, one per (kind, backend), started on first use."""

    def __init__(self, tmp_factory: pytest.TempPathFactory) -> None:
        self.tmp_factory = tmp_factory
        self.servers: dict[tuple[str, str], LiveServer] = {}
        self.databases: list[tuple[str, str]] = []  # (superuser URL, database URL) to drop at the end
        self.failed: dict[tuple[str, str], str] = {}  # a server that did not start is not retried per test

    def get(self, request: pytest.FixtureRequest, kind: str, backend: str, env: dict[str, str]) -> LiveServer:
        if (kind, backend) in self.failed:
            raise RuntimeError(self.failed[kind, backend])
        if (kind, backend) not in self.servers:
            db_env: dict[str, str] = {}
            if backend == "postgresql":
                superuser = request.getfixturevalue("pg_superuser_url")
                app, owner = pg_cluster.create_database(superuser)
                self.databases.append((superuser, app))
                db_env = postgres_env(app, owner)
            tmp = self.tmp_factory.mktemp(f"{kind}-{backend}")
            try:
                # The shared servers keep an access log: tests that check a client sent a request
                # once count its lines (a server of one's own shows the default, off).
                self.servers[kind, backend] = start_server(tmp, {"LASTLINE_ACCESS_LOG": "1", **db_env, **env})
            except RuntimeError as exc:
                self.failed[kind, backend] = str(exc)
                raise
        return self.servers[kind, backend]

    def close(self) -> None:
        for server in self.servers.values():
            stop_server(server)
        for superuser, url in self.databases:
            pg_cluster.drop_database(superuser, url)


@pytest.fixture(scope="session")
def _session_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_SessionServers]:
    servers = _SessionServers(tmp_path_factory)
    yield servers
    servers.close()


@pytest.fixture
def live_server(request: pytest.FixtureRequest, _session_servers: _SessionServers, backend: str) -> LiveServer:
    """One server per backend shared by the session (single-tenant, empty database at first)."""
    return _session_servers.get(request, "live", backend, {})


@pytest.fixture
def tenant_server(request: pytest.FixtureRequest, _session_servers: _SessionServers, backend: str) -> LiveServer:
    """A shared server per backend with two API keys: ``key-a`` → tenant ``acme``, ``key-b`` → ``globex``."""
    env = {"LASTLINE_API_KEYS": '{"key-a": "acme", "key-b": "globex"}'}
    return _session_servers.get(request, "tenants", backend, env)
