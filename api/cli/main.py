"""The ``lastline`` command line: the same operations as the Python API, with the same names.

Domain errors print one readable line and exit with code 2; data goes to stdout, as JSON with
``--json``.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from ipaddress import ip_address
from typing import Annotated, Any

import typer

from lastline import (
    ConfigError,
    LastlineError,
    PostgresStorage,
    SQLiteStorage,
    __version__,
    get_embedder,
    load_settings,
    open_storage,
)
from lastline.postgres import redacted_url

from ..http.balance import balanced_workers
from ..http.protocol import uvicorn_options
from . import cache as cli_cache
from . import db as cli_db
from . import fallback as cli_fallback
from . import kb as cli_kb
from . import rules as cli_rules
from .common import DbOption, JsonOption, emit, open_runtime

__all__ = ["app", "main"]

app = typer.Typer(
    name="lastline",
    help="The tier an LLM agent calls when every model provider is down.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
app.add_typer(cli_cache.app, name="cache")
app.add_typer(cli_db.app, name="db")
app.add_typer(cli_kb.app, name="kb")
app.add_typer(cli_rules.app, name="rules")
app.add_typer(cli_fallback.app, name="fallback")

@app.command()
def version() -> None:
    """Print the lastline version.

    Example: lastline version
    """
    typer.echo(__version__)


@app.command()
def doctor(db: DbOption = None, as_json: JsonOption = False) -> None:
    """Check the installation: models (and the KB's English space) and the database.

    On SQLite: its path and versions, sqlite-vec and FTS5. On PostgreSQL: host and database (no
    password), server and pgvector versions, the application and owner roles, and whether row-level
    security binds the application role (tenant_isolation_enforced).

    Example: lastline doctor --json
    """
    runtime = open_runtime(db)
    started = time.perf_counter()
    runtime.embedder.load()
    load_s = time.perf_counter() - started
    english_name = runtime.settings.kb_english_embedder
    english: dict[str, Any] = {"embedder": english_name}
    if english_name != "none":
        english_model = get_embedder(english_name, runtime.settings.embed_threads)
        english_model.load()
        english.update(model_id=english_model.model_id, dim=english_model.dim)
    report = {
        "version": __version__,
        "embedder": runtime.settings.embedder,
        "model_id": runtime.embedder.model_id,
        "dim": runtime.embedder.dim,
        "model_load_s": round(load_s, 3),
        **_storage_report(runtime.storage),
        "migrations": runtime.storage.applied_migrations(),
        "tenants": runtime.settings.tenants,
        "kb_english_space": english,
    }
    runtime.close()
    emit(report, as_json)


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Bind address (default 127.0.0.1).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (default 8765).")] = None,
    db: DbOption = None,
    workers: Annotated[int | None, typer.Option(min=1, max=64, help="Server processes (default: the core count).")
                       ] = None,
) -> None:
    """Run the HTTP service: N worker processes on one SQLite file (LASTLINE_WORKERS, default: cores).

    Without API keys (LASTLINE_API_KEYS) it is single-tenant and only binds to loopback. The workers
    share the database (each keeps its index in step with the others' writes) and /metrics sums
    their counters. With LASTLINE_DATABASE_URL they, and any other replica, share one PostgreSQL
    database instead (docs/deploy.md). SIGTERM drains: new requests get 503 overloaded, in-flight
    ones finish, the telemetry writer flushes and the WAL is checkpointed (on PostgreSQL: the
    connection pools close) before the process exits.

    Example: lastline serve --port 8765 --db ./lastline.db --workers 2
    """
    import os

    import uvicorn

    overrides: dict[str, Any] = {}
    if host is not None:
        overrides["host"] = host
    if port is not None:
        overrides["port"] = port
    if db is not None:
        overrides["db"] = db
    if workers is not None:
        overrides["workers"] = workers
    settings = load_settings(**overrides)
    if not settings.api_keys and not _is_loopback(settings.host):
        raise ConfigError(
            f"LASTLINE_HOST: {settings.host} is not loopback; set LASTLINE_API_KEYS to serve other hosts"
        )
    if settings.database_url is not None:
        # Reach PostgreSQL (both roles) once here, so a bad URL is one line naming the setting
        # before any worker starts, not a failure per worker.
        open_storage(settings.database_url, owner_url=settings.database_owner_url, pool_size=1).close()
    n = settings.workers or os.cpu_count() or 1
    if n == 1:
        from ..app import create_app

        uvicorn.run(create_app(settings), host=settings.host, port=settings.port,
                    **uvicorn_options(access_log=settings.access_log))
        return
    # Each worker reads its settings from the environment: the command line's overrides go there.
    os.environ["LASTLINE_DB"] = str(settings.db)
    if settings.kb_seed is not None:
        _seed_before_workers()
    # add_reader on a listening socket needs a selector loop: POSIX (uvloop has no Windows build).
    balance = balanced_workers() if os.name == "posix" else nullcontext()
    with _multiprocess_metrics(), balance:
        uvicorn.run("lastline.api.app:create_app", factory=True, workers=n, host=settings.host,
                    port=settings.port, **uvicorn_options(access_log=settings.access_log))


def _seed_before_workers() -> None:
    """Seed an empty knowledge base once, in a process of its own, before the workers start.

    Every worker seeds an empty KB when it opens it; N workers opening a new file at once each found it
    empty and ingested the folder together, so one could answer a search while another was rewriting
    the same documents. The seeding process exits before the workers start (its model copy with it), and
    each worker then finds the KB filled and leaves it alone.
    """
    import multiprocessing

    process = multiprocessing.get_context("spawn").Process(target=_seed_knowledge_base, name="lastline-kb-seed")
    process.start()
    process.join()
    if process.exitcode != 0:
        raise ConfigError(f"LASTLINE_KB_SEED: seeding the knowledge base failed (exit code {process.exitcode})")


def _seed_knowledge_base() -> None:
    from ..ladder.runtime import Runtime

    runtime = Runtime.open()
    try:
        kb = runtime.kb  # an empty KB is seeded here, for every tenant
        documents = sum(kb.count(tenant=tenant) for tenant in runtime.settings.tenants)
        print(f"knowledge base: {documents} documents before the workers start (seed: {runtime.settings.kb_seed})",
              file=sys.stderr)
    finally:
        runtime.close()


@contextmanager
def _multiprocess_metrics() -> Iterator[None]:
    """A fresh PROMETHEUS_MULTIPROC_DIR for the workers' counters, removed when they have stopped."""
    import os
    import shutil
    import tempfile

    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        yield  # the operator chose the folder (and cleans it)
        return
    folder = tempfile.mkdtemp(prefix="lastline-metrics-")
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = folder
    try:
        yield
    finally:
        os.environ.pop("PROMETHEUS_MULTIPROC_DIR", None)
        shutil.rmtree(folder, ignore_errors=True)


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ip_address(host).is_loopback
    except ValueError:
        return False



def main() -> None:
    """Entry point: run the app, turning lastline errors into one line and exit code 2."""
    try:
        app()
    except LastlineError as exc:
        typer.echo(f"error: {exc.detail}", err=True)
        sys.exit(2)


def _storage_report(storage: SQLiteStorage | PostgresStorage) -> dict[str, Any]:
    """What ``doctor`` says of the backend: where it is, its versions, and what it enforces."""
    if isinstance(storage, PostgresStorage):
        return {"db": redacted_url(storage.url), **storage.versions(), "app_role": storage.app_role,
                "owner_role": storage.owner_role, "tenant_isolation_enforced": storage.rls_enforced}
    return {"db": str(storage.path.resolve()), **storage.versions(), "fts5": storage.fts5_available()}
