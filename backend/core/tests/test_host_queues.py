"""Web and workers on several hosts (backend/core/host_queues.py): an upload's file is on the disk of the host that
received it, so its ingestion goes to that host's queue and only that host's workers take it."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from backend.core import host_queues
from backend.loadtests.models import Test, Upload, UploadStatus
from backend.testing import WorkerProcess, api_client_for, worker_env

GOLDEN = Path(__file__).resolve().parents[3] / "analytics" / "tests" / "golden" / "phout"


def test_the_queue_names_the_host(settings: Any) -> None:
    settings.HOST_NAME = "web-3"
    assert host_queues.upload_queue() == "uploads.web-3"
    assert host_queues.upload_queue("web-4") == "uploads.web-4"


def test_uploads_are_routed_to_this_hosts_queue_and_other_tasks_by_name(settings: Any) -> None:
    from backend.celery_app import app

    settings.HOST_NAME = "web-3"
    router = app.amqp.router
    assert router.route({}, "backend.uploads.tasks.ingest_upload", (1,), {})["queue"].name == "uploads.web-3"
    assert router.route({}, "backend.uploads.tasks.follow_upload", (1,), {})["queue"].name == "uploads.web-3"
    assert router.route({}, "backend.tankapi.tasks.flush_buffer", (), {})["queue"].name == "ingest"


def test_an_ingest_worker_adds_its_hosts_queue_and_others_do_not(settings: Any, monkeypatch: Any) -> None:
    from backend.celery_app import app

    settings.HOST_NAME = "web-3"
    monkeypatch.setattr(app.amqp.queues, "_consume_from", None)  # this process's selection, given back after

    class Worker:
        def __init__(self, consume: list[str]) -> None:
            self.app = app
            app.amqp.queues.select(consume)

    try:
        host_queues.consume_own_queue(Worker(["uploads", "analysis"]))
        assert set(app.amqp.queues.consume_from) == {"uploads", "analysis", "uploads.web-3"}
        host_queues.consume_own_queue(Worker(["ingest", "default"]))
        assert set(app.amqp.queues.consume_from) == {"ingest", "default"}
    finally:
        app.amqp.queues.deselect(["uploads.web-3"])


def _worker(tmp_path: Path, host: str) -> WorkerProcess:
    var = tmp_path / host
    var.mkdir(exist_ok=True)
    env = worker_env(TANKODROM_VAR_DIR=str(var), TANKODROM_HOST_NAME=host)
    return WorkerProcess(env=env, queues="uploads", log_path=tmp_path / f"{host}.log")


@pytest.fixture
def workers(transactional_db: Any, redis_db: Any, clickhouse: None, tmp_path: Path) -> Iterator[list[WorkerProcess]]:
    started: list[WorkerProcess] = []
    yield started
    for worker in started:
        worker.stop()


@pytest.mark.slow
def test_an_upload_waits_for_a_worker_of_its_host_not_another_hosts(
    workers: list[WorkerProcess], tmp_path: Path, settings: Any, monkeypatch: Any
) -> None:
    from backend.celery_app import app

    monkeypatch.setitem(app.conf, "task_always_eager", False)
    settings.VAR_DIR = tmp_path / "host-a"  # this process is web host A
    settings.HOST_NAME = "host-a"
    owner = User.objects.create_user("hosts-owner", password="x" * 12)
    test = Test.objects.create(owner=owner, name="two hosts")
    host_b = _worker(tmp_path, "host-b")
    host_b.start()
    workers.append(host_b)

    body = (GOLDEN / "bfg_capture.phout").read_bytes()
    answer = api_client_for(owner).generic(
        "PUT", f"/api/v1/tests/{test.pk}/phout", body, content_type="application/octet-stream"
    )
    assert answer.status_code == 202, answer.content
    upload_id = answer.json()["upload_id"]
    time.sleep(4)  # host B's worker is idle all along: the upload is not its to take
    assert Upload.objects.get(pk=upload_id).status not in (UploadStatus.READY, UploadStatus.FAILED)
    assert "ingest_upload[" not in (tmp_path / "host-b.log").read_text()

    host_a = _worker(tmp_path, "host-a")
    host_a.start()
    workers.append(host_a)
    deadline = time.monotonic() + 60
    while Upload.objects.get(pk=upload_id).status != UploadStatus.READY:
        if time.monotonic() > deadline:
            pytest.fail(f"not ingested by host A's worker; its log:\n{(tmp_path / 'host-a.log').read_text()[-3000:]}")
        time.sleep(0.3)
    assert "ingest_upload[" in (tmp_path / "host-a.log").read_text()
