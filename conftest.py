"""Fixtures shared by the whole suite.

Tests opt in to real services by asking for a fixture (`clickhouse`, `redis_db`, `db` from pytest-django), so
pure tests (analytics/) stay fast and need nothing running.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="session")
def clickhouse_schema() -> Iterator[None]:
    """A fresh ClickHouse test database with every migration applied, once per session."""
    from backend.clickhouse import migrate
    from backend.testing import drop_database

    drop_database()
    migrate.apply_all()
    yield


@pytest.fixture
def clickhouse(clickhouse_schema: None) -> Iterator[None]:
    """ClickHouse with the schema applied. Test ids restart with each PostgreSQL test database, so the
    tables are emptied before each test that uses them."""
    from backend.clickhouse import client, engines
    from backend.clickhouse.migrate import discover
    from backend.testing import truncate

    del discover  # imported to make sure migrations are importable
    shape = engines.current()
    for (table,) in client.execute(
        "SELECT name FROM system.tables WHERE database = %(db)s AND name != 'schema_migrations'",
        {"db": client.database()},
        tag="tests.list_tables",
    ):
        if not shape.is_cluster:
            client.execute(f"TRUNCATE TABLE {table}", tag="tests.truncate")
        elif not table.endswith(engines.LOCAL_SUFFIX):
            # On a cluster a TRUNCATE goes to each shard and waits for the replicas: only for tables with rows.
            ((count,),) = client.execute(f"SELECT count() FROM {table}", tag="tests.count")
            if count:
                truncate(table)
    yield


@pytest.fixture
def owner(db: None) -> Any:
    """A user who owns the tests a test creates: a maintainer of the default project, so that he may also set
    his components' baselines, KPIs and subscriptions."""
    from django.contrib.auth.models import User

    from backend.projects.models import Membership, Role, default_project

    user = User.objects.create_user("owner", password="x")
    Membership.objects.update_or_create(project=default_project(), user=user, defaults={"role": Role.MAINTAINER})
    return user


@pytest.fixture
def owner_api(owner: Any) -> Any:
    """A DRF client authenticated with an API token of `owner`."""
    from backend.testing import api_client_for

    return api_client_for(owner)


@pytest.fixture
def other_api(db: None) -> Any:
    """A DRF client of another user, for checking that others' tests are read-only or hidden."""
    from django.contrib.auth.models import User

    from backend.testing import api_client_for

    return api_client_for(User.objects.create_user("other", password="x"))


@pytest.fixture
def put_phout(
    owner_api: Any,
    clickhouse: None,
    redis_db: object,
    settings: Any,
    tmp_path: Any,
    django_capture_on_commit_callbacks: Any,
) -> Any:
    """`put_phout(test_id, body, api=owner_api)`: PUT a phout body into a test through the API, ingestion and
    post-processing run inline (files under tmp_path); returns the test once its upload is ready."""
    from backend.loadtests.models import Test, UploadStatus

    settings.VAR_DIR = tmp_path

    def put(test_id: int, body: bytes, api: Any = None) -> Test:
        with django_capture_on_commit_callbacks(execute=True):
            response = (api or owner_api).generic(
                "PUT", f"/api/v1/tests/{test_id}/phout", body, content_type="application/octet-stream"
            )
        assert response.status_code == 202, response.content
        test = Test.objects.get(pk=test_id)
        assert test.active_upload is not None and test.active_upload.status == UploadStatus.READY
        return test

    return put


@pytest.fixture
def anon_api() -> Any:
    from rest_framework.test import APIClient

    return APIClient()


@pytest.fixture
def live_asgi(
    transactional_db: None, clickhouse: None, redis_db: object, settings: Any, tmp_path: Any
) -> Iterator[Any]:
    """The production entry served from threads of this process (backend.testing.LiveASGIServer) on the suite's
    databases, uploads stored under tmp_path; Celery runs the ingestion inline."""
    from backend.testing import LiveASGIServer

    settings.VAR_DIR = tmp_path
    with LiveASGIServer() as live:
        yield live


@pytest.fixture
def live_user(live_asgi: Any) -> Any:
    """A user with an API token (backend.testing.TokenUser), for clients of `live_asgi`."""
    from backend.testing import make_token_user

    return make_token_user("client")


@pytest.fixture
def redis_db() -> Iterator[object]:
    """The test Redis database, emptied before the test."""
    import redis
    from django.conf import settings

    conn = redis.Redis.from_url(settings.REDIS_URL)
    conn.flushdb()
    yield conn
    conn.flushdb()


# ── Current-ClickHouse compatibility ─────────────────────────────────────────────────────────────────────
# Every read query the suite runs on the local ClickHouse 18.16 is recorded (rendered with its bound values),
# and the last test of the session replays them on chDB, an in-process current ClickHouse, against the same
# schema. So "the SQL runs on 18.16 and on current releases" is checked for the queries we really run.
_READ_PREFIXES = ("SELECT", "WITH")
# The replay runs with chDB's default max_query_size (256 KiB); a longer query (a list of a thousand long case
# names) is left to the local server's run.
MAX_RECORDED_QUERY_CHARS = 256 * 1024 - 1024


def _record_query(sql: str, params: object) -> None:
    head = sql.lstrip().split(None, 1)[0].upper() if sql.strip() else ""
    # Tables a test makes for itself are named scratch_*: the replay's schema (the migrations) has no such table.
    if head not in _READ_PREFIXES or "system." in sql or "scratch_" in sql:
        return
    from clickhouse_driver import Client

    renderer = Client("127.0.0.1")
    rendered = renderer.substitute_params(sql, params or {}, renderer.connection.context)
    from backend.testing import RECORDED_QUERIES

    normalized = " ".join(rendered.split())
    # Whole queries only: a cut one is no SQL (a case list of a thousand names is long, and must replay as it ran).
    if len(normalized) <= MAX_RECORDED_QUERY_CHARS:
        RECORDED_QUERIES.setdefault(normalized, sql)


def pytest_configure(config: pytest.Config) -> None:
    try:
        from backend.clickhouse import client
    except Exception:  # analytics-only runs without Django settings
        return
    client.add_observer(_record_query)


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    # The replay must see every query the rest of the session ran: move it last.
    last = [item for item in items if item.get_closest_marker("replays_recorded_queries")]
    items[:] = [item for item in items if item not in last] + last
