"""A throwaway PostgreSQL 16 + pgvector cluster on 127.0.0.1, from the PyPI ``pgserver`` wheel.

Debian's PostgreSQL here has no pgvector; the ``pgserver`` wheel bundles both. Its own launcher listens
on a Unix socket only, so this drives the bundled ``initdb``/``pg_ctl`` directly to listen on loopback
TCP, as a deployment would. Used by ``.ci/run`` (start before the suite, stop after), by the test
fixtures when no cluster was started for them, and by the PostgreSQL benches.

    python tests/pg_cluster.py start DIR [--port N]   # prints the superuser URL
    python tests/pg_cluster.py stop DIR
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import pwd
import shutil
import socket
import subprocess
import sys
from pathlib import Path

SUPERUSER = "postgres"
_SYSTEM_USER = "pgserver"  # postgres refuses to run as root


def _bin(name: str) -> str:
    # Located without importing the package: its import starts runtime-dir machinery we do not use.
    spec = importlib.util.find_spec("pgserver")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the pgserver wheel is not installed (it is in the test extra)")
    return str(Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin" / name)


def _as_user() -> dict[str, object]:
    """Run the server binaries as an unprivileged user when we are root."""
    if os.geteuid() != 0:
        return {}
    try:
        pwd.getpwnam(_SYSTEM_USER)
    except KeyError:
        subprocess.run(["useradd", "-s", "/bin/sh", _SYSTEM_USER], check=True, capture_output=True)
    return {"user": _SYSTEM_USER}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _grant_path(path: Path) -> None:
    """Let the unprivileged server user traverse to and own its data directory."""
    if os.geteuid() != 0:
        return
    entry = pwd.getpwnam(_SYSTEM_USER)
    os.chown(path, entry.pw_uid, entry.pw_gid)
    for parent in path.resolve().parents:
        parent.chmod(parent.stat().st_mode | 0o011)
    bin_dir = Path(_bin("postgres")).parent.parent
    for parent in (bin_dir, *bin_dir.parents):
        parent.chmod(parent.stat().st_mode | 0o055)


def url_for(port: int, database: str = SUPERUSER, user: str = SUPERUSER) -> str:
    return f"postgresql://{user}@127.0.0.1:{port}/{database}"


def start(datadir: Path, port: int | None = None, *, durable: bool = False) -> str:
    """Create (if new) and start the cluster; return the superuser URL.

    Tests run with ``fsync=off`` (a throwaway cluster; nothing to keep across a crash of the
    machine); ``durable=True`` keeps PostgreSQL's defaults, for benches that compare write rates.
    """
    datadir = datadir.resolve()
    port = port or _free_port()
    kwargs = _as_user()
    if not (datadir / "PG_VERSION").exists():
        datadir.mkdir(parents=True, exist_ok=True)
        _grant_path(datadir)
        subprocess.run(
            [_bin("initdb"), "-D", str(datadir), "--auth=trust", "--encoding=UTF8", "--locale=C", "-U", SUPERUSER],
            check=True, capture_output=True, **kwargs,  # type: ignore[call-overload]
        )
    options = f"-h 127.0.0.1 -p {port} -k {datadir} -c max_connections=300" + ("" if durable else " -c fsync=off")
    subprocess.run(
        [_bin("pg_ctl"), "-D", str(datadir), "-w", "-t", "60", "-l", str(datadir / "server.log"), "-o", options,
         "start"],
        check=True, capture_output=True, **kwargs,  # type: ignore[call-overload]
    )
    return url_for(port)


OWNER_ROLE = "lastline_owner"
APP_ROLE = "lastline_app"


def create_database(superuser_url: str, name: str | None = None) -> tuple[str, str]:
    """A fresh database with pgvector, owned by the owner role; return (application URL, owner URL).

    The two roles are what a deployment has (docs/deploy.md): the owner runs migrations, the
    application role is bound by row-level security. Both are created on first use.
    """
    import uuid

    import psycopg
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    name = name or f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(superuser_url, autocommit=True) as conn:
        for role in (OWNER_ROLE, APP_ROLE):
            if not conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone():
                # another session may create it meanwhile
                with contextlib.suppress(psycopg.errors.DuplicateObject, psycopg.errors.UniqueViolation):
                    conn.execute(f"CREATE ROLE {role} LOGIN NOSUPERUSER NOBYPASSRLS")
        conn.execute(f"CREATE DATABASE {name} OWNER {OWNER_ROLE}")
    parts = conninfo_to_dict(superuser_url)
    with psycopg.connect(make_conninfo(**{**parts, "dbname": name}), autocommit=True) as conn:
        conn.execute("CREATE EXTENSION vector")  # pgvector 0.6 is not a trusted extension: superuser
    host, port = parts.get("host", "127.0.0.1"), parts.get("port", "5432")
    return f"postgresql://{APP_ROLE}@{host}:{port}/{name}", f"postgresql://{OWNER_ROLE}@{host}:{port}/{name}"


def drop_database(superuser_url: str, url: str) -> None:
    """Drop the database ``url`` names (connections to it are closed first)."""
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    name = conninfo_to_dict(url)["dbname"]
    with psycopg.connect(superuser_url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def stop(datadir: Path, *, remove: bool = False) -> None:
    """Stop the cluster (fast shutdown); remove its directory when asked."""
    datadir = datadir.resolve()
    if (datadir / "postmaster.pid").exists():
        subprocess.run([_bin("pg_ctl"), "-D", str(datadir), "-w", "-m", "fast", "stop"],
                       check=False, capture_output=True, **_as_user())  # type: ignore[call-overload]
    if remove:
        shutil.rmtree(datadir, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=["start", "stop"])
    parser.add_argument("datadir", type=Path)
    parser.add_argument("--port", type=int, default=None)
    parser.add_argument("--remove", action="store_true", help="stop: delete the data directory too")
    args = parser.parse_args(argv)
    if args.action == "start":
        print(start(args.datadir, args.port))
    else:
        stop(args.datadir, remove=args.remove)
    return 0


if __name__ == "__main__":
    sys.exit(main())
