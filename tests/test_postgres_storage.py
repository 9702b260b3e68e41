"""The PostgreSQL backend itself: roles, tenant-scoped transactions, row-level security, migrations.

Runs against a real PostgreSQL 16 + pgvector cluster (tests/pg_cluster.py). The isolation test
connects as the application role with raw SQL — the database, not lastline's code, keeps tenants
apart.
"""

from __future__ import annotations

import threading

import psycopg
import pytest

from lastline import ConfigError, Migration, PostgresStorage, StorageError, load_settings, open_storage
from lastline.rules.store import open_pack_store


@pytest.fixture
def pg(pg_urls: tuple[str, str]) -> PostgresStorage:
    app, owner = pg_urls
    storage = open_storage(app, owner_url=owner)
    assert isinstance(storage, PostgresStorage)
    yield storage
    storage.close()


def test_the_application_role_is_bound_by_row_level_security(pg: PostgresStorage) -> None:
    assert pg.backend == "postgresql" and pg.rls_enforced
    assert pg.app_role == "lastline_app" and pg.owner_role == "lastline_owner"
    assert pg.versions()["pgvector"].startswith("0.6")


def test_raw_sql_as_tenant_a_reads_none_of_tenant_bs_rows(pg: PostgresStorage) -> None:
    store = open_pack_store(pg)
    store.put("acme", "shop", "name: shop")
    store.put("globex", "secret", "name: secret")
    with psycopg.connect(pg.url, autocommit=False) as conn:  # the application role, no lastline code
        conn.execute("SELECT set_config('lastline.tenant', 'acme', true)")
        assert conn.execute("SELECT tenant, name FROM rule_packs").fetchall() == [("acme", "shop")]
        assert conn.execute("SELECT count(*) FROM rule_packs WHERE tenant = 'globex'").fetchone() == (0,)
        assert conn.execute("DELETE FROM rule_packs WHERE tenant = 'globex'").rowcount == 0
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # the policy's WITH CHECK
            conn.execute("INSERT INTO rule_packs VALUES ('globex', 'x', 'y', 0, 0)")
    with psycopg.connect(pg.url, autocommit=True) as conn:  # no tenant set: no tenant rows at all
        assert conn.execute("SELECT count(*) FROM rule_packs").fetchone() == (0,)
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # not the owner: no schema changes
            conn.execute("ALTER TABLE rule_packs DISABLE ROW LEVEL SECURITY")
    assert store.get("globex", "secret") == "name: secret"  # globex's own request still sees it


def test_migrations_are_recorded_once_even_when_replicas_race(pg_urls: tuple[str, str]) -> None:
    app, owner = pg_urls
    applied: list[list[str]] = []

    def create(conn: object) -> None:
        conn.execute("CREATE TABLE race (tenant TEXT)")  # type: ignore[attr-defined]

    def replica() -> None:
        storage = PostgresStorage(app, owner_url=owner)
        applied.append(storage.migrate([Migration("test_0001_race", create)]))
        storage.close()

    threads = [threading.Thread(target=replica) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(map(len, applied)) == [0, 0, 0, 1]
    storage = PostgresStorage(app, owner_url=owner)
    assert storage.applied_migrations().count("test_0001_race") == 1
    storage.close()


def test_a_failed_statement_rolls_back_the_whole_transaction(pg: PostgresStorage) -> None:
    store = open_pack_store(pg)
    with pytest.raises(StorageError), pg.atomic("acme") as conn:
        conn.execute("INSERT INTO rule_packs VALUES ('acme', 'a', 'y', 0, 0)")
        conn.execute("INSERT INTO rule_packs VALUES ('acme', 'a', 'y', 0, 0)")  # duplicate key
    assert store.list("acme") == []


def test_a_nested_transaction_cannot_switch_tenant(pg: PostgresStorage) -> None:
    open_pack_store(pg)
    with pytest.raises(StorageError, match="tenant"), pg.atomic("acme"), pg.atomic("globex"):
        pass


def test_switching_tenant_inside_a_transaction_scopes_the_rows_after_it_and_its_nested_blocks(
        pg: PostgresStorage) -> None:
    store = open_pack_store(pg)
    with pg.atomic("acme") as conn:
        conn.execute("INSERT INTO rule_packs VALUES ('acme', 'a', 'y', 0, 0)")
        pg.switch_tenant(conn, "globex")
        conn.execute("INSERT INTO rule_packs VALUES ('globex', 'g', 'y', 0, 0)")  # passes globex's policy
        assert pg.query("SELECT name FROM rule_packs", tenant="globex") == [("g",)]
        with pytest.raises(StorageError, match="tenant"), pg.atomic("acme"):
            pass
    assert [n for n, _ in store.list("acme")] == ["a"] and [n for n, _ in store.list("globex")] == ["g"]
    with pg.maintenance() as owner, pytest.raises(StorageError, match="application-role transaction"):
        pg.switch_tenant(owner, "acme")


def test_a_failed_nested_block_rolls_back_to_its_savepoint_only(pg: PostgresStorage) -> None:
    store = open_pack_store(pg)
    with pg.atomic("acme") as conn:
        conn.execute("INSERT INTO rule_packs VALUES ('acme', 'kept', 'y', 0, 0)")
        with pytest.raises(StorageError), pg.atomic("acme") as inner:
            inner.execute("INSERT INTO rule_packs VALUES ('acme', 'kept', 'y', 0, 0)")  # duplicate key
        conn.execute("INSERT INTO rule_packs VALUES ('acme', 'also', 'y', 0, 0)")
    assert sorted(name for name, _ in store.list("acme")) == ["also", "kept"]


def test_reads_inside_a_transaction_join_it_and_keep_its_tenant(pg: PostgresStorage) -> None:
    open_pack_store(pg)
    with pg.atomic("acme") as conn:
        conn.execute("INSERT INTO rule_packs VALUES ('acme', 'draft', 'y', 0, 0)")
        pid = conn.execute("SELECT pg_backend_pid()").fetchone()
        assert pg.query("SELECT pg_backend_pid()", tenant="acme") == [pid]  # the same connection
        assert pg.query("SELECT name FROM rule_packs") == [("draft",)]  # sees the uncommitted row
        with pytest.raises(StorageError, match="tenant"):
            pg.query("SELECT name FROM rule_packs", tenant="globex")
    assert pg.query("SELECT name FROM rule_packs", tenant="globex") == []


def test_a_tenant_with_quotes_is_set_as_a_literal_not_as_sql(pg: PostgresStorage) -> None:
    store = open_pack_store(pg)
    store.put("acme", "shop", "name: shop")
    tenant = "x', true); SELECT set_config('lastline.tenant', 'acme"
    assert pg.query("SELECT current_setting('lastline.tenant', true)", tenant=tenant) == [(tenant,)]
    assert pg.query("SELECT name FROM rule_packs", tenant=tenant) == []


def test_one_url_for_both_roles_is_reported_as_not_enforcing_isolation(pg_urls: tuple[str, str]) -> None:
    _, owner = pg_urls
    storage = PostgresStorage(owner)
    assert not storage.rls_enforced
    storage.close()


def test_an_unreachable_database_fails_by_setting_name_without_the_password() -> None:
    with pytest.raises(ConfigError, match="LASTLINE_DATABASE_URL") as err:
        PostgresStorage("postgresql://app:s3cret@127.0.0.1:1/none", timeout_s=2)
    assert "s3cret" not in str(err.value)


def test_a_bad_owner_url_fails_by_its_own_setting_name(pg_urls: tuple[str, str]) -> None:
    app, _ = pg_urls
    with pytest.raises(ConfigError, match=r"^LASTLINE_DATABASE_OWNER_URL: cannot use postgresql://own@") as err:
        PostgresStorage(app, owner_url="postgresql://own:s3cret@127.0.0.1:1/none", timeout_s=2)
    assert "s3cret" not in str(err.value)


def test_a_bad_application_url_fails_by_its_name_when_the_owner_url_works(pg_urls: tuple[str, str]) -> None:
    _, owner = pg_urls
    bad_app = owner.replace("lastline_owner", "no_such_role")
    assert bad_app != owner
    with pytest.raises(ConfigError, match=r"^LASTLINE_DATABASE_URL: cannot use postgresql://no_such_role@"):
        PostgresStorage(bad_app, owner_url=owner, timeout_s=2)


def test_database_url_must_be_postgresql() -> None:
    with pytest.raises(ConfigError, match="LASTLINE_DATABASE_URL: must be a postgresql:// URL"):
        load_settings(database_url="mysql://x/y")
