"""Issue 19's upload findings, each on the real stores: bombs, NUL bytes, internal errors, refused uploads and
their tests, files left behind, and the queue that keeps ingestion away from the tank's flush."""

from __future__ import annotations

import gzip
import os
import time
import zlib
from pathlib import Path
from typing import Any, cast

import pytest
from django.conf import settings

from backend.loadtests.models import Test, TestStatus, Upload, UploadStatus
from backend.testing import TokenUser
from backend.uploads import ingest, load, outcome, storage
from backend.uploads.tests.conftest import GOLDEN
from backend.uploads.tests.test_ingest import phout_line, stored_upload
from backend.uploads.tests.test_upload_api import put_phout, sample_count


def good_lines(n: int, first_ts: float = 1_700_000_000) -> bytes:
    return b"".join(phout_line(first_ts + i / 100, "a", 1000 + i) for i in range(n))


def gzip_of(parts: list[tuple[bytes, int]]) -> bytes:
    """gzip of each part repeated so many times, compressed as it goes (never the whole inflated body in memory)."""
    packer = zlib.compressobj(6, zlib.DEFLATED, 31)
    out = [packer.compress(part) for part, times in parts for _ in range(times)]
    return b"".join(out) + packer.flush()


@pytest.fixture
def waiting_test(owner: TokenUser) -> Test:
    """A test made to receive an upload, as POST /api/v1/tests/ makes it."""
    return Test.objects.create(owner=owner.user, name="waits for phout", status=TestStatus.PROCESSING)


# ── item 3: bombs ───────────────────────────────────────────────────────────────────────────────────────────
def test_a_gzip_of_good_lines_then_line_ends_fails_early_with_the_reason(
    waiting_test: Test, django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 19's bomb at a quarter of its size: 300 good lines, then 256 MiB of line ends in ~260 KB of gzip.
    body = gzip_of([(good_lines(300), 1), (b"\n" * (1 << 20), 256)])
    assert len(body) < 1 << 20
    read: list[int] = []
    real_readinto = storage._Inflating.readinto

    def counting(self: Any, buffer: Any) -> int:
        n = real_readinto(self, buffer)
        read.append(n)
        return n

    monkeypatch.setattr(storage._Inflating, "readinto", counting)
    upload = stored_upload(waiting_test, body)
    with django_capture_on_commit_callbacks(execute=True):
        assert ingest.ingest_upload(upload.pk) == UploadStatus.FAILED
    upload.refresh_from_db()
    assert "blank lines for 300 phout lines" in upload.error
    assert sum(read) < 64 << 20  # stopped after a few blocks, not after inflating it all
    waiting_test.refresh_from_db()
    assert waiting_test.status == TestStatus.FAILED and "blank lines" in waiting_test.error
    assert not storage.upload_path(upload.pk).exists()


def test_the_bomb_is_refused_at_the_door_from_its_first_bytes(
    owner: TokenUser, waiting_test: Test, uploads_env: Path, django_capture_on_commit_callbacks: Any
) -> None:
    body = gzip_of([(good_lines(300), 1), (b"\n" * (1 << 20), 64)])
    response = put_phout(owner, waiting_test, body, django_capture_on_commit_callbacks)
    assert response.status_code == 400 and "blank lines for 300 phout lines" in response.json()["error"]
    waiting_test.refresh_from_db()
    assert waiting_test.status == TestStatus.FAILED
    assert list((uploads_env / "uploads").glob("*")) == []


def test_a_gzip_inflating_beyond_its_ratio_is_refused(
    waiting_test: Test, django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(storage, "INFLATE_FREE_BYTES", 1 << 20)
    monkeypatch.setattr(settings, "TANKODROM_MAX_INFLATE_RATIO", 10)
    body = gzip_of([(good_lines(1), 40_000)])  # the same good line over and over: ~4 MB from a few KB
    upload = stored_upload(waiting_test, body)
    with django_capture_on_commit_callbacks(execute=True):
        assert ingest.ingest_upload(upload.pk) == UploadStatus.FAILED
    upload.refresh_from_db()
    assert f"inflates to more than {1 << 20} bytes" in upload.error
    assert "TANKODROM_MAX_INFLATE_RATIO" in upload.error and upload.status == UploadStatus.FAILED


def test_the_inflate_limit_follows_the_size_and_the_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(settings, "TANKODROM_MAX_INFLATE_RATIO", 100)
    monkeypatch.setattr(settings, "TANKODROM_MAX_INFLATED_BYTES", 10 << 30)
    assert storage.max_inflated_bytes(1 << 20) == storage.INFLATE_FREE_BYTES
    assert storage.max_inflated_bytes(50 << 20) == 5000 << 20
    assert storage.max_inflated_bytes(1 << 30) == 10 << 30


def test_phout_ingestion_and_the_tank_flush_are_on_queues_of_their_own() -> None:
    from backend.celery_app import app
    from backend.core import host_queues

    def queue_of(task: str) -> str:
        return str(app.amqp.router.route({}, task)["queue"].name)

    flush = queue_of("backend.tankapi.tasks.flush_buffer")
    assert queue_of("backend.tankapi.tasks.finish_test") == flush
    uploads = {queue_of("backend.uploads.tasks.ingest_upload"), queue_of("backend.uploads.tasks.follow_upload")}
    # The receiving host's own uploads queue (backend/core/host_queues.py), which only uploads workers consume.
    assert uploads == {host_queues.upload_queue()} and host_queues.upload_queue().startswith("uploads.")
    assert not flush.startswith("uploads")


# ── item 5: NUL bytes, internal errors, files left behind ───────────────────────────────────────────────────
def test_a_nul_in_a_bad_line_is_a_named_bad_line_not_a_database_error(
    owner: TokenUser, test_row: Test, django_capture_on_commit_callbacks: Any
) -> None:
    body = good_lines(20) + b"1700000001.000\tin\x00dex\t1000\t0\n" + good_lines(20, 1_700_000_010)
    response = put_phout(owner, test_row, body, django_capture_on_commit_callbacks)
    assert response.status_code == 202, response.content
    upload = Upload.objects.get(pk=response.json()["upload_id"])
    assert upload.status == UploadStatus.READY, upload.error
    assert (upload.lines_total, upload.lines_bad) == (41, 1)
    assert upload.bad_examples[0]["line"] == 21
    assert upload.bad_examples[0]["text"] == "1700000001.000\tin\\x00dex\t1000\t0"
    assert sample_count(test_row.pk, upload.pk) == 40


def test_an_internal_failure_tells_no_internals_and_removes_the_file(
    waiting_test: Test, django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_args: Any, **_kwargs: Any) -> None:
        raise RuntimeError('relation "secret_table" does not exist LINE 1: SELECT password FROM secret_table')

    monkeypatch.setattr(load, "recompute_seconds", broken)
    body = good_lines(50) + phout_line(1_700_000_000, "late", 1000)  # a late second: _recompute_seconds runs
    monkeypatch.setattr(load, "SecondWindow", lambda: _LateWindow())
    upload = stored_upload(waiting_test, body)
    with django_capture_on_commit_callbacks(execute=True):
        assert ingest.ingest_upload(upload.pk) == UploadStatus.FAILED
    upload.refresh_from_db()
    waiting_test.refresh_from_db()
    for text in (upload.error, waiting_test.error):
        assert "internal error while ingesting upload" in text and "server's log" in text
        assert "secret_table" not in text and "RuntimeError" not in text and "SELECT" not in text
    assert waiting_test.status == TestStatus.FAILED
    assert not storage.upload_path(upload.pk).exists()


class _LateWindow:
    """A second window that reports one late second, so the ingestion reaches `_recompute_seconds`."""

    def __init__(self) -> None:
        from analytics.second_window import SecondWindow

        self._inner = SecondWindow()
        self.late_seconds = {1_700_000_000}

    def add(self, batch: Any) -> Any:
        return self._inner.add(batch)

    def finish(self) -> Any:
        return self._inner.finish()


def test_orphan_files_are_removed_and_uploads_in_flight_keep_theirs(test_row: Test, uploads_env: Path) -> None:
    def upload_with_file(status: str, age_s: float) -> int:
        upload = Upload.objects.create(test=test_row, size_bytes=10, status=status)
        path = storage.upload_path(upload.pk)
        path.write_bytes(b"0123456789")
        os.utime(path, (time.time() - age_s, time.time() - age_s))
        return int(upload.pk)

    old = 2 * outcome.ORPHAN_GRACE_S
    failed = upload_with_file(UploadStatus.FAILED, old)
    ready = upload_with_file(UploadStatus.READY, old)
    receiving = upload_with_file(UploadStatus.RECEIVING, old)  # a resumable upload between pieces
    parsing = upload_with_file(UploadStatus.PARSING, old)
    young = upload_with_file(UploadStatus.FAILED, 1)
    deleted = upload_with_file(UploadStatus.FAILED, old)
    Upload.objects.filter(pk=deleted).delete()
    other = storage.upload_dir() / "notes.txt"
    other.write_text("not an upload")
    assert outcome.remove_orphan_files() == sorted([failed, ready, deleted])
    left = {p.name for p in storage.upload_dir().iterdir()}
    assert left == {f"{receiving}.phout", f"{parsing}.phout", f"{young}.phout", "notes.txt"}


def test_the_periodic_task_removes_orphans(test_row: Test, uploads_env: Path) -> None:
    from backend.uploads.tasks import expire_abandoned_uploads

    upload = Upload.objects.create(test=test_row, size_bytes=10, status=UploadStatus.FAILED)
    path = storage.upload_path(upload.pk)
    path.write_bytes(b"x")
    os.utime(path, (time.time() - 2 * outcome.ORPHAN_GRACE_S,) * 2)
    expire_abandoned_uploads()
    assert not path.exists()


# ── item 6: a refused upload releases its test ──────────────────────────────────────────────────────────────
def test_a_refused_upload_fails_the_test_that_waited_for_it(
    owner: TokenUser, waiting_test: Test, uploads_env: Path, django_capture_on_commit_callbacks: Any
) -> None:
    body = (GOLDEN / "not_phout.txt").read_bytes()
    response = put_phout(owner, waiting_test, body, django_capture_on_commit_callbacks)
    assert response.status_code == 400 and "does not look like phout" in response.json()["error"]
    waiting_test.refresh_from_db()
    assert waiting_test.status == TestStatus.FAILED
    assert f"phout upload {response.json()['upload_id']} failed: this does not look like phout" in waiting_test.error
    assert list((uploads_env / "uploads").glob("*")) == []


def test_a_refused_upload_leaves_a_test_with_data_as_it_was(
    owner: TokenUser, test_row: Test, django_capture_on_commit_callbacks: Any
) -> None:
    good = put_phout(owner, test_row, (GOLDEN / "bfg.phout").read_bytes(), django_capture_on_commit_callbacks)
    assert good.status_code == 202
    test_row.refresh_from_db()
    assert test_row.status == TestStatus.READY
    refused = put_phout(owner, test_row, (GOLDEN / "not_phout.txt").read_bytes(), django_capture_on_commit_callbacks)
    assert refused.status_code == 400
    test_row.refresh_from_db()
    assert test_row.status == TestStatus.READY and test_row.error == ""
    assert test_row.active_upload_id == good.json()["upload_id"]


def test_a_refused_upload_leaves_the_test_to_another_upload_in_flight(
    owner: TokenUser, waiting_test: Test, django_capture_on_commit_callbacks: Any
) -> None:
    body = gzip.compress(good_lines(100))
    piece = owner.client().generic(
        "PUT",
        f"/api/v1/tests/{waiting_test.pk}/phout",
        cast(Any, body[:100]),
        content_type="application/octet-stream",
        HTTP_CONTENT_RANGE=f"bytes 0-99/{len(body)}",
    )
    assert piece.status_code == 202 and piece.json()["status"] == "receiving", piece.content
    refused = put_phout(
        owner, waiting_test, (GOLDEN / "not_phout.txt").read_bytes(), django_capture_on_commit_callbacks
    )
    assert refused.status_code == 400
    waiting_test.refresh_from_db()
    assert waiting_test.status == TestStatus.PROCESSING  # the resumable upload may still bring its data


def test_the_stacks_start_workers_that_keep_the_flush_and_the_uploads_apart() -> None:
    import re

    import yaml

    root = Path(__file__).resolve().parents[3]
    routed = {route["queue"] for route in settings.CELERY_TASK_ROUTES.values()}
    routed.add(settings.CELERY_TASK_DEFAULT_QUEUE)
    lib = (root / "deploy" / "lib.sh").read_text()
    local = [set(match.split(",")) for match in re.findall(r'^[A-Z]+_WORKER_QUEUES="([^"]+)"', lib, re.M)]
    assert len(local) == 3
    for script in ("app.sh", "e2e.sh"):
        assert "start_workers" in (root / "deploy" / script).read_text()
    compose = yaml.safe_load((root / "docker-compose.yml").read_text())
    served = [
        set(command[command.index("-Q") + 1].split(","))
        for service in compose["services"].values()
        if "worker" in (command := service.get("command") or [])
    ]
    for workers in (local, served):
        assert set().union(*workers) >= routed  # every routed queue has a worker
        assert not any({"ingest", "uploads"} <= queues for queues in workers)  # never in the same one
        # What users configure (outbound calls) runs in a pool of its own (issue 29).
        assert [queues for queues in workers if "outbound" in queues] == [{"outbound"}]
