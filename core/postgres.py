"""PostgreSQL storage: one database shared by every replica, with tenant isolation in the database.

Selected by ``LASTLINE_DATABASE_URL=postgresql://…``; SQLite stays the embedded default. Two roles
(docs/deploy.md):

- the **application role** (``LASTLINE_DATABASE_URL``) runs every request. It is not the owner of
  the tables, so row-level security binds it: each transaction opened with a tenant runs
  ``set_config('lastline.tenant', …, true)`` (``SET LOCAL``), and every tenant table's policy admits
  only that tenant's rows. With no tenant set it sees no tenant rows at all (fails closed).
- the **owner role** (``LASTLINE_DATABASE_OWNER_URL``; defaults to the same URL) runs the named
  migrations and the few cross-tenant maintenance jobs (rebuilding a replica's in-memory index, TTL and
  retention pruning). When both URLs name the same role, that role owns the tables and the policies do
  not bind it: :attr:`PostgresStorage.rls_enforced` says so and ``lastline doctor`` warns.

Connections come from ``psycopg_pool`` pools, each with pgvector's type adapters registered. A store
method runs in one transaction: a read, or a write that needs no result on the way, as one round trip
(:meth:`PostgresStorage.query`, :meth:`PostgresStorage.script`: the tenant and the statements in one
message); a write that reads as it goes in :meth:`PostgresStorage.atomic` (its BEGIN carries the
tenant). Nested blocks on the same thread reuse the connection as savepoints, like the SQLite
backend. Round trips are what a lookup waits on here: a tenant-scoped read costs one (≈0.5 ms on a
loaded 2-core host) where BEGIN, ``set_config``, the read and COMMIT each apart cost four (≈2.5 ms).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import psycopg
from pgvector.psycopg import register_vector
from psycopg import sql as pgsql
from psycopg.conninfo import conninfo_to_dict
from psycopg_pool import ConnectionPool, PoolTimeout

from .errors import ConfigError, StorageError
from .storage import Migration

__all__ = [
    "INDEX_BUILD_MEMORY",
    "TENANT_SETTING",
    "PostgresStorage",
    "TableCopySpec",
    "TierTables",
    "build_index_in_memory",
    "is_postgres_url",
    "redacted_url",
    "tenant_isolation",
]

#: The transaction-local setting the row-level security policies read.
TENANT_SETTING = "lastline.tenant"
#: ``maintenance_work_mem`` of a transaction that builds an HNSW index over rows already stored:
#: 100k 512-d vectors and their graph take ≈300 MB; the server default (64 MB) sends the build to
#: disk, several times slower.
INDEX_BUILD_MEMORY = "1GB"



@dataclass(frozen=True)
class TableCopySpec:
    """One table (the same name on both backends) and how ``lastline db copy`` fills it from a SQLite file.

    Declared by the store that creates the table, so a tier that adds a table says in the same
    module how an existing SQLite file's rows reach it.
    """

    table: str
    #: Target column → SQLite expression, for the columns whose names or presence differ.
    expressions: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class TierTables:
    """A tier's tables to copy, parents before children, and what to run on the target once they are in."""

    tables: tuple[TableCopySpec, ...]
    #: Statements run as the owner after the copy (a sequence moved past the copied rows, derived
    #: state the tier rebuilds from them reset).
    after: tuple[str, ...] = ()
    #: The tier's other tables: filled by the tier itself from the copied rows (triggers, re-indexing)
    #: or holding nothing a copy should carry.
    rebuilt: tuple[str, ...] = ()


_BEGIN = pgsql.SQL("BEGIN")
_BEGIN_AS = pgsql.SQL("BEGIN; SELECT set_config({}, {}, true)")
_MIGRATION_LOCK = 0x6C61_7374  # pg_advisory_xact_lock key: one migrator at a time across replicas


def is_postgres_url(target: object) -> bool:
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))


def tenant_isolation(table: str) -> list[str]:
    """DDL giving ``table`` (with a ``tenant`` column) row-level security on the request's tenant.

    Used by every tier's PostgreSQL migrations, so each tenant table gets the same policy.
    """
    predicate = f"tenant = current_setting('{TENANT_SETTING}', true)"
    return [
        f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY",
        f"CREATE POLICY {table}_tenant ON {table} USING ({predicate}) WITH CHECK ({predicate})",
    ]


def build_index_in_memory(conn: psycopg.Connection[Any], ddl: str | pgsql.Composed,
                          table: str | pgsql.Composable) -> None:
    """Run ``CREATE INDEX`` ``ddl`` on ``table`` in ``conn``'s open transaction with
    :data:`INDEX_BUILD_MEMORY`, then ``ANALYZE`` the table.

    The raised memory is transaction-local (``set_config(…, true)``): it lasts for this one build,
    never for the pooled connection's later work. Every tier that builds an HNSW graph over existing
    rows (the cache's per-model index, the KB's per-space index) goes through here.

    Why the ``ANALYZE``: a graph is built right after a bulk load (a loader, ``lastline db copy``, a
    replica's first start), when the table's statistics may still say it is empty — autovacuum
    analyzes it up to a minute later. Until then the planner estimates one row per partition and
    sorts the whole partition by distance instead of walking the graph it just built: a 10k-entry
    cache partition searched in 116 ms instead of 4 ms (``EXPLAIN ANALYZE``, quiet machine).
    """
    conn.execute("SELECT set_config('maintenance_work_mem', %s, true)", (INDEX_BUILD_MEMORY,))
    conn.execute(ddl)
    name = pgsql.Identifier(table) if isinstance(table, str) else table
    conn.execute(pgsql.SQL("ANALYZE {}").format(name))


def redacted_url(url: str) -> str:
    """The URL without its password (wherever the URL puts it), for messages and reports."""
    try:
        parts = conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "postgresql://…"
    host, port, db = parts.get("host", ""), parts.get("port", ""), parts.get("dbname", "")
    return f"postgresql://{parts.get('user', '')}@{host}{':' + str(port) if port else ''}/{db}"


def _configure(conn: psycopg.Connection[Any]) -> None:
    register_vector(conn)
    conn.autocommit = True  # transactions are explicit (conn.transaction()); idle connections hold none


class PostgresStorage:
    """Pooled connections to one PostgreSQL database; tenant-scoped transactions; named migrations."""

    backend = "postgresql"

    def __init__(self, url: str, *, owner_url: str | None = None, pool_size: int = 10,
                 timeout_s: float = 10.0) -> None:
        self.url = url
        self.owner_url = owner_url or url
        self.timeout_s = timeout_s
        self._local = threading.local()
        # the owner's connection comes first: name the setting whose URL failed
        setting, failing = ("LASTLINE_DATABASE_OWNER_URL", self.owner_url) if owner_url else \
            ("LASTLINE_DATABASE_URL", url)
        try:
            with psycopg.connect(self.owner_url, autocommit=True, connect_timeout=int(timeout_s)) as conn, \
                    conn.transaction():
                # IF NOT EXISTS races between replicas starting together; the lock orders them.
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
                conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
                conn.execute("CREATE TABLE IF NOT EXISTS schema_migrations ("
                             " name TEXT PRIMARY KEY, applied_at DOUBLE PRECISION NOT NULL)")
                self.owner_role = str(conn.execute("SELECT current_user").fetchone()[0])  # type: ignore[index]
            setting, failing = "LASTLINE_DATABASE_URL", url
            with psycopg.connect(self.url, autocommit=True, connect_timeout=int(timeout_s)) as conn:
                row = conn.execute("SELECT current_user, rolsuper OR rolbypassrls FROM pg_roles"
                                   " WHERE rolname = current_user").fetchone()
                assert row is not None
                self.app_role, app_bypasses = str(row[0]), bool(row[1])
        except psycopg.Error as exc:
            raise ConfigError(f"{setting}: cannot use {redacted_url(failing)}: {exc}".strip()) from exc
        #: False when the application role owns the tables or bypasses RLS (one URL for both roles).
        self.rls_enforced = self.app_role != self.owner_role and not app_bypasses
        self.pool = self._pool(self.url, pool_size)
        self.owner_pool = self.pool if self.owner_url == self.url else self._pool(self.owner_url, 2)

    def _pool(self, url: str, size: int) -> ConnectionPool[psycopg.Connection[Any]]:
        pool: ConnectionPool[psycopg.Connection[Any]] = ConnectionPool(
            url, min_size=1, max_size=max(1, size), configure=_configure, timeout=self.timeout_s,
            open=False, name="lastline",
        )
        pool.open(wait=True, timeout=self.timeout_s)
        return pool

    # -- transactions -----------------------------------------------------------------------------
    @contextmanager
    def atomic(self, tenant: str | None = None) -> Iterator[psycopg.Connection[Any]]:
        """One transaction as the application role, scoped to ``tenant`` (row-level security).

        Nested on the same thread it becomes a savepoint of the outer transaction; the tenant of a
        nested block must match the outer one (a store method never mixes tenants in a transaction).
        """
        with self._transaction(self.pool, tenant) as conn:
            yield conn

    @contextmanager
    def maintenance(self) -> Iterator[psycopg.Connection[Any]]:
        """One transaction as the owner role, across tenants (index rebuilds, pruning, migrations)."""
        with self._transaction(self.owner_pool, None, owner=True) as conn:
            yield conn

    @contextmanager
    def _transaction(self, pool: ConnectionPool[psycopg.Connection[Any]], tenant: str | None, *,
                     owner: bool = False) -> Iterator[psycopg.Connection[Any]]:
        outer = getattr(self._local, "open", None)
        if outer is not None:
            conn, outer_tenant, outer_owner = outer
            if (tenant is not None and tenant != outer_tenant) or owner != outer_owner:
                raise StorageError("a nested transaction must keep the outer one's tenant and role")
            with self._errors(), conn.transaction():
                yield conn
            return
        try:
            with pool.connection() as conn:
                self._local.open = (conn, tenant, owner)
                try:
                    with self._errors():
                        # BEGIN and the tenant in one round trip (a simple query may hold two
                        # statements, bind parameters none: the tenant goes as a quoted literal).
                        # Nested blocks see a transaction in progress and become savepoints.
                        conn.execute(_BEGIN if tenant is None else
                                     _BEGIN_AS.format(pgsql.Literal(TENANT_SETTING), pgsql.Literal(tenant)))
                        try:
                            yield conn
                        except BaseException:
                            conn.rollback()
                            raise
                        conn.commit()
                finally:
                    self._local.open = None
        except PoolTimeout as exc:
            raise StorageError(f"no database connection free within {self.timeout_s:g} s: {exc}") from exc

    @contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except psycopg.Error as exc:
            raise StorageError(f"PostgreSQL ({redacted_url(self.url)}): {exc}".strip()) from exc

    def switch_tenant(self, conn: psycopg.Connection[Any], tenant: str) -> None:
        """Scope this thread's open :meth:`atomic` transaction to ``tenant`` from here on.

        For the one writer that commits several tenants' rows in one transaction (a background
        writer's batch of events, all or none): each group's rows pass their own tenant's policy.
        Blocks nested after the switch must keep the new tenant.
        """
        outer = getattr(self._local, "open", None)
        if outer is None or outer[0] is not conn or outer[2]:
            raise StorageError("switch_tenant needs this thread's open application-role transaction")
        with self._errors():
            conn.execute("SELECT set_config(%s, %s, true)", (TENANT_SETTING, tenant))
        self._local.open = (conn, tenant, False)

    def query(self, sql: str, params: Sequence[Any] = (), *, tenant: str | None = None) -> list[Any]:
        """Run a read scoped to ``tenant`` and return all rows (tuples), in one round trip.

        Inside an open transaction of this thread (same tenant), the read joins it.
        """
        return self.script([(sql, params)], tenant=tenant)

    def script(self, statements: Sequence[tuple[str, Sequence[Any]]], *, tenant: str | None = None) -> list[Any]:
        """Run ``statements`` as one transaction scoped to ``tenant``; return the last one's rows.

        One round trip: the tenant's ``set_config`` and the statements, bound on the client, go as
        one simple query, which PostgreSQL runs as one implicit transaction (all or nothing), so
        the transaction-local tenant binds every statement and nothing stays open after it.
        :meth:`atomic` costs three round trips more (BEGIN, COMMIT, and each statement apart):
        it is for writes that read their own results on the way. Inside an open transaction of
        this thread the statements join it (its tenant must be the same).
        """
        outer = getattr(self._local, "open", None)
        if outer is not None:
            conn, outer_tenant, outer_owner = outer
            if outer_owner or (tenant is not None and tenant != outer_tenant):
                raise StorageError("a nested transaction must keep the outer one's tenant and role")
            rows: list[Any] = []
            with self._errors():  # no savepoint: a failed statement fails the open transaction anyway
                for sql, params in statements:
                    cur = conn.execute(sql, params)
                    rows = cur.fetchall() if cur.description else []
            return rows
        parts, args = [], []
        if tenant is not None:
            parts.append("SELECT set_config(%s, %s, true)")
            args += [TENANT_SETTING, tenant]
        for sql, params in statements:
            parts.append(sql)
            args += list(params)
        try:
            with self.pool.connection() as conn, self._errors():
                cur = psycopg.ClientCursor(conn)
                cur.execute("; ".join(parts), args)
                while cur.nextset():  # to the last statement's result
                    pass
                return cur.fetchall() if cur.description else []
        except PoolTimeout as exc:
            raise StorageError(f"no database connection free within {self.timeout_s:g} s: {exc}") from exc

    # -- schema ---------------------------------------------------------------------------------
    def migrate(self, migrations: Sequence[Migration]) -> list[str]:
        """Apply, in order, the migrations not yet recorded (as the owner; one replica at a time)."""
        applied_now: list[str] = []
        for migration in migrations:
            with self.maintenance() as conn:
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
                if conn.execute("SELECT 1 FROM schema_migrations WHERE name = %s", (migration.name,)).fetchone():
                    continue
                migration.apply(conn)
                conn.execute("INSERT INTO schema_migrations (name, applied_at) VALUES (%s, %s)",
                             (migration.name, time.time()))
                self.grant_app_role(conn)  # in the same commit: a replica that sees it recorded may use its tables
                applied_now.append(migration.name)
        return applied_now

    def grant_app_role(self, conn: psycopg.Connection[Any], table: str | None = None) -> None:
        """Give the application role rows (not the schema) of ``table``, or of every table, in ``conn``'s
        owner transaction.

        Every table after each migration; one ``table`` for a store that makes a table outside a
        migration (a KB vector space, whose dimension comes from the model), in the transaction
        that creates it — that one only, so it never races a migration granting on all of them.
        Nothing to grant when one role is both.
        """
        if self.app_role == self.owner_role:
            return
        role = pgsql.Identifier(self.app_role)
        if table is not None:
            conn.execute(pgsql.SQL("GRANT SELECT, INSERT, UPDATE, DELETE ON {} TO {}").format(
                pgsql.Identifier(table), role))
            return
        for statement in (
            "GRANT USAGE ON SCHEMA public TO {}",
            "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {}",
            "GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO {}",
        ):
            conn.execute(pgsql.SQL(statement).format(role))

    def applied_migrations(self) -> list[str]:
        with self.maintenance() as conn:
            return [r[0] for r in conn.execute("SELECT name FROM schema_migrations ORDER BY applied_at, name")]

    def versions(self) -> dict[str, str]:
        with self.maintenance() as conn:
            row = conn.execute("SELECT current_setting('server_version'),"
                               " (SELECT extversion FROM pg_extension WHERE extname = 'vector')").fetchone()
        assert row is not None
        return {"postgresql": str(row[0]), "pgvector": str(row[1])}

    def checkpoint(self) -> None:
        """Nothing to fold back: the server owns durability (kept for the shutdown path's symmetry)."""

    def close(self) -> None:
        self.pool.close()
        if self.owner_pool is not self.pool:
            self.owner_pool.close()
