"""A big upload is ingested while its body still arrives (backend/uploads/follow.py), with real stores.

The receiver runs in the test's thread and the follow in a second one, as a worker would: the body trickles in
through a slow stream, so the follow catches up with the transfer and has to wait for committed bytes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from backend.clickhouse.queries import uploads as q_uploads
from backend.loadtests.models import Test, TestStatus, Upload, UploadStatus
from backend.uploads import follow, ingest, load, receive, storage, tasks
from backend.uploads.digest import digest_of_bytes
from backend.uploads.tests.test_upload_api import overall_rows, sample_count

LINES = 20_000


def body_of(lines: int, t0: float = 1_700_000_000.0) -> bytes:
    return b"".join(
        f"{t0 + i / 100:.3f}\tcase{i % 3}\t{1000 + i % 700}\t1\t2\t3\t4\t5\t60\t70\t0\t200\n".encode()
        for i in range(lines)
    )


class Trickle:
    """A request body that arrives in small pieces with pauses, and may break off after `break_at` bytes."""

    def __init__(self, data: bytes, break_at: int | None = None) -> None:
        self._data = data
        self._pos = 0
        self._break_at = break_at

    def read(self, size: int = -1, /) -> bytes:
        end = min(self._pos + min(size, 32 * 1024), len(self._data))
        if self._break_at is not None:
            end = min(end, self._break_at)
        piece = self._data[self._pos : end]
        self._pos = end
        time.sleep(0.002)
        return piece


class Follows(list[threading.Thread]):
    """The follow threads started so far, and what each returned, by upload id."""

    outcomes: dict[int, str]


@pytest.fixture
def follow_env(
    transactional_db: None, clickhouse: None, redis_db: object, settings: Any, tmp_path: Path, monkeypatch: Any
) -> Iterator[Follows]:
    """Small thresholds, follows started in threads (as a worker would), completion ingestion left to the test."""
    settings.VAR_DIR = tmp_path
    monkeypatch.setattr(receive, "FOLLOW_MIN_TOTAL_BYTES", 0)
    monkeypatch.setattr(receive, "FOLLOW_AFTER_BYTES", 100_000)
    monkeypatch.setattr(receive, "FOLLOW_MIN_BYTES_PER_S", 0)
    monkeypatch.setattr(storage, "COMMIT_BYTES", 64 * 1024)
    monkeypatch.setattr(load, "PARSE_BLOCK_BYTES", 128 * 1024)
    monkeypatch.setattr(load, "PROGRESS_EVERY_BYTES", 64 * 1024)  # the follow reports progress as it reads
    monkeypatch.setattr(receive, "_queue_ingestion", lambda upload_id: None)
    threads = Follows()
    outcomes: dict[int, str] = {}

    def start_follow(upload_id: int, **kwargs: Any) -> None:
        def run() -> None:
            from django.db import connection

            try:
                outcomes[upload_id] = tasks.follow_upload(upload_id, **kwargs)
            finally:
                connection.close()

        thread = threading.Thread(target=run)
        thread.start()
        threads.append(thread)

    monkeypatch.setattr(tasks.follow_upload, "delay", start_follow)
    threads.outcomes = outcomes
    yield threads
    for thread in threads:
        thread.join(30)


def make_test() -> Test:
    user = User.objects.create_user("follower", password="x" * 12)
    return Test.objects.create(owner=user, name="followed upload")


def join_all(threads: Follows) -> dict[int, str]:
    for thread in threads:
        thread.join(30)
        assert not thread.is_alive()
    return threads.outcomes


def test_a_fast_big_body_is_ingested_while_it_arrives(follow_env: Follows) -> None:
    test = make_test()
    data = body_of(LINES)
    received = receive.receive(test, Trickle(data), len(data), None, None)
    assert received.complete and len(follow_env) == 1  # the follow started during the transfer
    upload_id = int(received.upload.pk)
    assert join_all(follow_env) == {upload_id: UploadStatus.READY}
    upload = Upload.objects.get(pk=upload_id)
    assert upload.status == UploadStatus.READY and upload.lines_total == LINES and upload.lines_bad == 0
    assert upload.content_digest == digest_of_bytes(data)
    test.refresh_from_db()
    assert test.status == TestStatus.READY and test.active_upload_id == upload_id
    assert sample_count(test.pk, upload_id) == LINES
    assert sum(resps for resps, _, _ in overall_rows(test.pk, upload_id).values()) == LINES
    assert not Path(upload.file_path).exists()


def test_only_one_side_hashes_a_followed_body(follow_env: Follows, monkeypatch: Any) -> None:
    """A whole body is hashed by its receiver, one sent in pieces by the follow; the recorded hash is right."""
    hashing: list[bool] = []
    real_init = follow.GrowingFile.__init__

    def spy(self: follow.GrowingFile, *args: Any, **kwargs: Any) -> None:
        real_init(self, *args, **kwargs)
        hashing.append(self.digest is not None)

    monkeypatch.setattr(follow.GrowingFile, "__init__", spy)
    test = make_test()
    data = body_of(LINES)
    total = len(data)
    whole = receive.receive(test, Trickle(data), total, None, None)
    join_all(follow_env)
    half = total // 2
    first = receive.receive(test, Trickle(data[:half]), half, f"bytes 0-{half - 1}/{total}", None)
    ranged = receive.receive(
        test, Trickle(data[half:]), total - half, f"bytes {half}-{total - 1}/{total}", str(first.upload.pk)
    )
    outcomes = join_all(follow_env)
    assert hashing == [False, True]
    for received in (whole, ranged):
        upload = Upload.objects.get(pk=received.upload.pk)
        assert upload.content_digest == digest_of_bytes(data)
    # The second is the same file into the same test: recognised by the hash, not ingested twice. The rows its
    # follow wrote before the hash was known were never visible (the upload is not active); their deletion is a
    # mutation that ClickHouse runs part by part, after the task returns.
    assert sorted(outcomes.values()) == [UploadStatus.READY, UploadStatus.READY]
    q_uploads.wait_for_mutations("samples")
    assert sample_count(test.pk, int(whole.upload.pk)) + sample_count(test.pk, int(ranged.upload.pk)) == LINES


def test_a_stalled_transfer_is_left_to_the_ordinary_ingestion(
    follow_env: Follows, monkeypatch: Any, django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    monkeypatch.setattr(follow, "MAX_WAIT_S", 0.5)
    test = make_test()
    data = body_of(LINES)
    half = len(data) // 2
    total = len(data)
    with pytest.raises(receive.ReceiveError) as broken:
        # One piece announced as the whole file; the connection breaks half way through.
        receive.receive(test, Trickle(data, break_at=half), total, f"bytes 0-{total - 1}/{total}", None)
    upload_id = int(broken.value.extra["upload_id"])
    resume_at = int(broken.value.extra["received_bytes"])
    assert 0 < resume_at <= half  # what was committed before the break is kept
    assert join_all(follow_env) == {upload_id: "abandoned"}
    stalled = Upload.objects.get(pk=upload_id)
    # Still where the receiver committed: the follow's read position never replaced it.
    assert stalled.status == UploadStatus.RECEIVING and stalled.progress_bytes == resume_at
    assert stalled.lines_total > 0  # the follow did report what it had parsed
    q_uploads.wait_for_mutations("samples")
    assert sample_count(test.pk, upload_id) == 0  # the follow's rows are gone
    # The client resumes; completion queues the ordinary ingestion, which reads the file from disk.
    rest = data[resume_at:]
    done = receive.receive(test, Trickle(rest), len(rest), f"bytes {resume_at}-{total - 1}/{total}", str(upload_id))
    assert done.complete
    assert ingest.ingest_upload(upload_id) == UploadStatus.READY
    upload = Upload.objects.get(pk=upload_id)
    assert upload.lines_total == LINES and sample_count(test.pk, upload_id) == LINES
    assert upload.content_digest == digest_of_bytes(data)
