"""/healthz answers 200 with all four dependencies up, and 503 naming ClickHouse while it is stopped."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.test import Client, override_settings

from backend.clickhouse import client as ch
from backend.testing import SpareClickHouse, WorkerProcess, worker_env


@pytest.fixture
def worker(transactional_db: None, tmp_path: Path) -> Iterator[WorkerProcess]:
    process = WorkerProcess(env=worker_env(), log_path=tmp_path / "worker.log")
    process.start()
    yield process
    process.stop()


@pytest.fixture
def spare_clickhouse(tmp_path: Path) -> Iterator[SpareClickHouse]:
    server = SpareClickHouse(base_dir=tmp_path / "ch")
    server.start()
    yield server
    server.stop()


def test_all_dependencies_up_then_clickhouse_down_then_up(
    worker: WorkerProcess, spare_clickhouse: SpareClickHouse
) -> None:
    from django.conf import settings

    with override_settings(CLICKHOUSE={**settings.CLICKHOUSE, "port": spare_clickhouse.tcp_port}):
        ch.reset_connections()
        up = Client().get("/healthz?deep=1")
        assert up.status_code == 200, up.content
        body = up.json()
        assert body["down"] == []
        assert set(body["checks"]) == {"clickhouse", "postgres", "redis", "celery"}
        assert all(check["ok"] for check in body["checks"].values())

        spare_clickhouse.stop()
        down = Client().get("/healthz?deep=1")
        assert down.status_code == 503
        assert down.json()["down"] == ["clickhouse"]
        assert "clickhouse" in down.json()["error"]

        spare_clickhouse.start()
        again = Client().get("/healthz?deep=1")
        assert again.status_code == 200, again.content
    ch.reset_connections()


def test_celery_down_is_named(db: None) -> None:
    # No worker consumes the test broker here: the check must say so rather than hang or pass.
    response = Client().get("/healthz?deep=1")
    assert response.status_code == 503
    assert "celery" in response.json()["down"]
