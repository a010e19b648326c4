"""Fixtures shared by the whole suite.

Tests opt in to real services by asking for a fixture (`clickhouse`, `redis_db`, `db` from pytest-django), so
pure tests (analytics/) stay fast and need nothing running.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session")
def clickhouse_schema() -> Iterator[None]:
    """A fresh ClickHouse test database with every migration applied, once per session."""
    from backend.clickhouse import client, migrate

    client.drop_database()
    migrate.apply_all()
    yield


@pytest.fixture
def clickhouse(clickhouse_schema: None) -> Iterator[None]:
    """ClickHouse with the schema applied. Test ids restart with each PostgreSQL test database, so the
    tables are emptied before each test that uses them."""
    from backend.clickhouse import client
    from backend.clickhouse.migrate import discover

    del discover  # imported to make sure migrations are importable
    for (table,) in client.execute(
        "SELECT name FROM system.tables WHERE database = %(db)s AND name != 'schema_migrations'",
        {"db": client.database()},
        tag="tests.list_tables",
    ):
        client.execute(f"TRUNCATE TABLE {table}", tag="tests.truncate")
    yield


@pytest.fixture
def redis_db() -> Iterator[object]:
    """The test Redis database, emptied before the test."""
    import redis
    from django.conf import settings

    conn = redis.Redis.from_url(settings.REDIS_URL)
    conn.flushdb()
    yield conn
    conn.flushdb()
