"""Fault runs of a big phout ingestion in a real Celery worker, on a ClickHouse of its own (never the shared one):
the worker killed -9 mid-ingest, and ClickHouse restarted mid-ingest. Each ends with the upload ready and every
line stored exactly once (counted in `samples` and in the per-second rows), or failed with a clear reason.
"""

from __future__ import annotations

import os
import shutil
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from backend.celery_app import app as celery_app
from backend.clickhouse import client as ch
from backend.clickhouse.queries import uploads as q_uploads
from backend.clickhouse.tables import samples, second_aggregates
from backend.loadtests.models import Test, TestStatus, Upload, UploadStatus
from backend.testing import SpareClickHouse, TokenUser, WorkerProcess, serving_spare_clickhouse, worker_env
from backend.uploads import tasks
from backend.uploads.storage import upload_path
from backend.uploads.tests.conftest import final_upload

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

LINES = 2_000_000
FIRST_TS = 1_795_500_000
DATABASE = "uploads_fault"


@pytest.fixture(scope="module")
def big_phout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """LINES lines over ~1,000 seconds, three cases: ~140 MB, a few seconds of a worker's ingestion."""
    path = tmp_path_factory.mktemp("faults") / "big.phout"
    step_ms = 1_000_000 // (LINES // 1000)
    with path.open("w") as out:
        for start in range(0, LINES, 100_000):
            out.write(
                "".join(
                    f"{FIRST_TS + i * step_ms / 1e6:.3f}\tcase{i % 3}\t{1000 + i % 9973}\t10\t20\t{900 + i % 500}\t70"
                    f"\t0\t100\t{200 + i % 50}\t0\t{200 if i % 101 else 503}\n"
                    for i in range(start, start + 100_000)
                )
            )
    return path


@pytest.fixture
def own_clickhouse(settings: Any, uploads_env: Path) -> Iterator[SpareClickHouse]:
    with serving_spare_clickhouse(settings, "uploads-fault-ch", DATABASE) as server:
        yield server


@pytest.fixture
def worker_for(own_clickhouse: SpareClickHouse, uploads_env: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Starts real workers on the `uploads` queue against the spare ClickHouse; tasks sent here go to them."""
    monkeypatch.setitem(celery_app.conf, "task_always_eager", False)
    started: list[WorkerProcess] = []

    def start() -> WorkerProcess:
        env = worker_env(
            CLICKHOUSE_PORT=str(own_clickhouse.tcp_port),
            CLICKHOUSE_TEST_DATABASE=DATABASE,
            TANKODROM_VAR_DIR=str(uploads_env),
        )
        worker = WorkerProcess(env=env, queues="uploads", log_path=uploads_env / f"worker{len(started)}.log")
        worker.start()
        started.append(worker)
        return worker

    yield start
    for worker in started:
        worker.stop()


def queued_upload(owner: TokenUser, big_phout: Path) -> Upload:
    test = Test.objects.create(owner=owner.user, name="fault run", status=TestStatus.PROCESSING)
    upload = Upload.objects.create(test=test, size_bytes=big_phout.stat().st_size, status=UploadStatus.PARSING)
    path = upload_path(upload.pk)
    shutil.copyfile(big_phout, path)
    Upload.objects.filter(pk=upload.pk).update(file_path=str(path), progress_bytes=0)
    from backend.uploads.tasks import ingest_upload

    ingest_upload.delay(upload.pk)
    return upload


def wait_mid_ingest(upload_id: int, timeout_s: float = 60) -> None:
    """Until the worker has parsed a first part of the file (it reports progress every 32 MB)."""
    deadline = time.monotonic() + timeout_s
    while not Upload.objects.filter(pk=upload_id, status=UploadStatus.PARSING, progress_bytes__gt=0).exists():
        assert time.monotonic() < deadline, Upload.objects.filter(pk=upload_id).values("status", "error").first()
        time.sleep(0.02)


def stored(test_id: int, upload_id: int) -> tuple[int, int]:
    """(rows in samples, requests counted by the per-second overall rows), once pending deletions are done."""
    q_uploads.wait_for_mutations(samples.NAME)
    q_uploads.wait_for_mutations(second_aggregates.NAME)
    params = {"t": test_id, "u": upload_id}
    rows = ch.execute(
        f"SELECT count() FROM {samples.NAME} WHERE test_id = %(t)s AND upload_id = %(u)s", params, tag="tests.fault"
    )
    resps = ch.execute(
        f"SELECT sum(resps) FROM {second_aggregates.NAME} FINAL "
        "WHERE test_id = %(t)s AND source_id = %(u)s AND case = ''",
        params,
        tag="tests.fault",
    )
    return int(rows[0][0]), int(resps[0][0] or 0)


def test_a_worker_killed_mid_ingest_is_resumed_and_nothing_is_doubled(
    owner: TokenUser, big_phout: Path, worker_for: Any
) -> None:
    first = worker_for()
    upload = queued_upload(owner, big_phout)
    wait_mid_ingest(upload.pk)
    assert first.process is not None
    os.kill(first.process.pid, signal.SIGKILL)  # the whole worker: the broker would redeliver only in an hour
    first.process.wait()
    first.process = None
    worker_for()
    deadline = time.monotonic() + 10
    while not (resumed := tasks.resume_stalled_uploads(grace_s=0)):  # what beat runs every minute
        assert time.monotonic() < deadline, "the dead worker's lock was never released"
        time.sleep(0.2)
    assert resumed == [upload.pk]
    assert tasks.resume_stalled_uploads(grace_s=0) == []  # queued once, not at every sweep
    done = final_upload(upload.pk, timeout_s=90)
    assert done.status == UploadStatus.READY, done.error
    assert (done.lines_total, done.lines_bad) == (LINES, 0)
    assert stored(done.test_id, upload.pk) == (LINES, LINES)
    assert not upload_path(upload.pk).exists()


def test_clickhouse_restarted_mid_ingest_the_upload_completes_once(
    owner: TokenUser, big_phout: Path, worker_for: Any, own_clickhouse: SpareClickHouse
) -> None:
    worker_for()
    upload = queued_upload(owner, big_phout)
    wait_mid_ingest(upload.pk)
    own_clickhouse.stop()
    time.sleep(1)
    own_clickhouse.start()
    ch.reset_connections()
    done = final_upload(upload.pk, timeout_s=120)  # the task retries 30 s after the outage
    assert done.status == UploadStatus.READY, done.error
    assert (done.lines_total, done.lines_bad) == (LINES, 0)
    assert stored(done.test_id, upload.pk) == (LINES, LINES)
    test = Test.objects.get(pk=done.test_id)
    assert test.status == TestStatus.READY and test.active_upload_id == upload.pk
