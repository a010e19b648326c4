"""Issue 29: two targets that never answered delayed another user's live pushes reaching ClickHouse from ~1 s to
20 s, because deliveries ran on the stream worker. Here the stream worker runs exactly as deploy/lib.sh starts it
(its queues, one process, with beat), deliveries to receivers that accept and never answer are queued as the code
queues them, and a tank's push must still reach ClickHouse within a few flushes. Marked slow: a worker starts."""

from __future__ import annotations

import re
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from backend.clickhouse import client as ch
from backend.clickhouse.tables import second_aggregates
from backend.loadtests.models import Test, TestStatus
from backend.loadtests.tokens import create_token
from backend.notify import tasks
from backend.notify.models import Delivery, Event, Target, TargetKind
from backend.notify.secrets import encrypt
from backend.testing import WorkerProcess, clear_push_caches, worker_env

pytestmark = pytest.mark.probe

ROOT = Path(__file__).resolve().parents[3]
TANK_FIXTURES = ROOT / "backend" / "tankapi" / "tests" / "fixtures"
TIMEOUT_S = 10


def lib_queues(name: str) -> str:
    found = re.search(rf'^{name}_WORKER_QUEUES="([^"]+)"', (ROOT / "deploy" / "lib.sh").read_text(), re.M)
    assert found is not None
    return found.group(1)


class Stuck:
    """Receivers that accept connections and never answer (a dead chat server behind a live load balancer)."""

    def __init__(self, count: int) -> None:
        self.sockets = []
        for _ in range(count):
            sock = socket.socket()
            sock.bind(("127.0.0.1", 0))
            sock.listen(64)
            self.sockets.append(sock)

    @property
    def urls(self) -> list[str]:
        return [f"http://127.0.0.1:{sock.getsockname()[1]}/hook" for sock in self.sockets]

    def close(self) -> None:
        for sock in self.sockets:
            sock.close()


@pytest.fixture
def stream_worker(transactional_db: None, clickhouse: None, redis_db: object, tmp_path: Path) -> Iterator[None]:
    worker = WorkerProcess(
        env=worker_env(TANKODROM_NOTIFY_TIMEOUT_S=str(TIMEOUT_S), TANKODROM_NOTIFY_RETRIES="0"),
        queues=lib_queues("STREAM"),
        beat=True,
        pool="prefork",
        concurrency=1,
        log_path=tmp_path / "stream-worker.log",
    )
    worker.start()
    try:
        yield
    finally:
        worker.stop()


def rows_of(job: int) -> int:
    ((count,),) = ch.execute(
        f"SELECT count() FROM {second_aggregates.NAME} WHERE test_id = %(t)s AND source_id = 0",
        {"t": job},
        tag="tests.notify.isolation",
    )
    return int(count)


@pytest.mark.slow
def test_stuck_receivers_do_not_delay_the_tank_stream(stream_worker: None, settings: Any) -> None:
    settings.CELERY_TASK_ALWAYS_EAGER = False
    from backend.celery_app import app

    app.conf.task_always_eager = False
    clear_push_caches()
    owner = User.objects.create_user("hook-owner", password="x-not-used")
    tester = User.objects.create_user("tester", password="x-not-used")
    stuck = Stuck(2)
    try:
        test = Test.objects.create(owner=owner, name="run", component="api", status=TestStatus.READY)
        for index, url in enumerate(stuck.urls * 3):
            target = Target.objects.create(
                owner=owner, kind=TargetKind.SLACK, name=f"dead {index}", address_encrypted=encrypt(url)
            )
            delivery = Delivery.objects.create(
                target=target, test=test, component="api", event=Event.TEST_FINISHED, message={"title": "t", "url": "u"}
            )
            tasks.deliver.delay(delivery.pk)  # 6 × 10 s of a stuck worker, were they on its queues
        time.sleep(1)  # the worker would have taken the first one by now

        _token, raw = create_token(tester, "tank")
        http = Client()
        created = http.post(
            f"/api/job/create.json?api_token={raw}",
            data=(TANK_FIXTURES / "create.json").read_bytes(),
            content_type="application/json",
        )
        (answer,) = created.json()
        job, upload = int(answer["job"]), str(answer["upload_token"])
        pushed_at = time.monotonic()
        pushed = http.post(
            f"/api/job/{job}/push_data.json?upload_token={upload}&api_token={raw}",
            data=(TANK_FIXTURES / "push_data_bfg_1795316038.json").read_bytes(),
            content_type="application/json",
        )
        assert pushed.status_code == 200, pushed.content
        while rows_of(job) == 0 and time.monotonic() - pushed_at < 3 * TIMEOUT_S:
            time.sleep(0.1)
        latency_s = time.monotonic() - pushed_at
    finally:
        stuck.close()
        app.conf.task_always_eager = True
    assert rows_of(job) > 0
    # The beat flushes every second; behind a stuck delivery the flush waited for its timeout (9 s here).
    assert latency_s < TIMEOUT_S / 2, latency_s
