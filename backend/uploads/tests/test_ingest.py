"""The ingestion task on its own: failures leave nothing, re-runs change nothing, late rows stay exact."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any, cast

import numpy as np
import pytest

from backend.clickhouse import client
from backend.clickhouse.queries import uploads as q_uploads
from backend.clickhouse.tables import samples, second_aggregates
from backend.loadtests.models import Test, TestStatus, Upload, UploadStatus
from backend.testing import TokenUser
from backend.uploads import ingest, load, locks
from backend.uploads.storage import upload_path
from backend.uploads.tests.conftest import GOLDEN
from backend.uploads.tests.test_upload_api import overall_rows, put_phout, sample_count


def stored_upload(test: Test, body: bytes) -> Upload:
    """An upload whose body is on disk and complete, as receive() leaves it before the task runs."""
    upload = Upload.objects.create(test=test, size_bytes=len(body), status=UploadStatus.PARSING)
    path = upload_path(upload.pk)
    path.write_bytes(body)
    Upload.objects.filter(pk=upload.pk).update(file_path=str(path), progress_bytes=len(body))
    return Upload.objects.get(pk=upload.pk)


def phout_line(ts: float, tag: str, interval_real_us: int, http: int = 200) -> bytes:
    return f"{ts:.3f}\t{tag}\t{interval_real_us}\t0\t0\t0\t0\t0\t0\t0\t0\t{http}\n".encode()


def test_a_file_mostly_garbage_fails_and_leaves_no_rows(
    test_row: Test, django_capture_on_commit_callbacks: Any
) -> None:
    good = b"".join(phout_line(1700000000 + i / 10, "a", 1000) for i in range(load.EARLY_VERDICT_LINES // 4))
    bad = b"not phout at all\n" * load.EARLY_VERDICT_LINES
    upload = stored_upload(test_row, good + bad)
    with django_capture_on_commit_callbacks(execute=True):
        assert ingest.ingest_upload(upload.pk) == UploadStatus.FAILED
    upload.refresh_from_db()
    assert "does not look like phout" in upload.error and upload.status == UploadStatus.FAILED
    test_row.refresh_from_db()
    assert test_row.status == TestStatus.FAILED and f"phout upload {upload.pk} failed" in test_row.error
    assert test_row.active_upload_id is None
    q_uploads.wait_for_mutations(samples.NAME)
    q_uploads.wait_for_mutations(second_aggregates.NAME)
    assert sample_count(test_row.pk, upload.pk) == 0 and overall_rows(test_row.pk, upload.pk) == {}
    assert not Path(upload.file_path).exists()


def test_a_failed_upload_does_not_fail_a_test_that_has_data(
    owner: TokenUser, test_row: Test, django_capture_on_commit_callbacks: Any
) -> None:
    first = put_phout(owner, test_row, (GOLDEN / "bfg.phout").read_bytes(), django_capture_on_commit_callbacks)
    broken = stored_upload(test_row, b"\x1f\x8b not really gzip")
    with django_capture_on_commit_callbacks(execute=True):
        assert ingest.ingest_upload(broken.pk) == UploadStatus.FAILED
    test_row.refresh_from_db()
    assert test_row.active_upload_id == first.json()["upload_id"] and test_row.status == TestStatus.READY
    assert "the gzip file is damaged (Unknown compression method)" in Upload.objects.get(pk=broken.pk).error


def test_a_gzip_file_cut_short_fails_clearly_and_leaves_no_rows(
    test_row: Test, django_capture_on_commit_callbacks: Any
) -> None:
    # Past the first parse block, so that samples were sent before the cut is met (and must all be deleted).
    lines = load.PARSE_BLOCK_BYTES // len(phout_line(1700000000, "a", 1000)) * 2
    body = b"".join(phout_line(1700000000 + i / 1000, "a", 1000 + i % 500) for i in range(lines))
    packed = gzip.compress(body, compresslevel=1)
    upload = stored_upload(test_row, packed[: len(packed) * 3 // 4])
    with django_capture_on_commit_callbacks(execute=True):
        assert ingest.ingest_upload(upload.pk) == UploadStatus.FAILED
    upload.refresh_from_db()
    assert upload.error.startswith("the gzip file is damaged (it ends before its end-of-stream marker)")
    test_row.refresh_from_db()
    assert test_row.status == TestStatus.FAILED and test_row.active_upload_id is None
    q_uploads.wait_for_mutations(samples.NAME)
    q_uploads.wait_for_mutations(second_aggregates.NAME)
    assert sample_count(test_row.pk, upload.pk) == 0 and overall_rows(test_row.pk, upload.pk) == {}


def test_a_gzip_file_of_several_members_is_read_whole(test_row: Test, django_capture_on_commit_callbacks: Any) -> None:
    # `cat a.gz b.gz > c.gz` (or a writer that restarts its stream) gives one file of two gzip members.
    first = b"".join(phout_line(1700000000 + i / 10, "a", 1000) for i in range(300))
    second = b"".join(phout_line(1700000030 + i / 10, "b", 2000) for i in range(200))
    upload = stored_upload(test_row, gzip.compress(first) + gzip.compress(second))
    with django_capture_on_commit_callbacks(execute=True):
        assert ingest.ingest_upload(upload.pk) == UploadStatus.READY
    upload.refresh_from_db()
    assert (upload.lines_total, upload.lines_bad) == (500, 0)
    assert sample_count(test_row.pk, upload.pk) == 500


def test_running_the_task_again_changes_nothing(test_row: Test, django_capture_on_commit_callbacks: Any) -> None:
    body = (GOLDEN / "bfg_capture.phout").read_bytes()
    upload = stored_upload(test_row, body)
    # Rows an interrupted earlier attempt left behind: the re-run must not count them.
    client.insert_rows(
        samples.NAME,
        ("test_id", "upload_id", "receive_sec", "tag"),
        [(test_row.pk, upload.pk, 1795316038, "leftover")] * 5,
        tag="tests.leftovers",
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert ingest.ingest_upload(upload.pk) == UploadStatus.READY
        assert ingest.ingest_upload(upload.pk) == UploadStatus.READY
    q_uploads.wait_for_mutations(samples.NAME)
    assert sample_count(test_row.pk, upload.pk) == 203
    assert sum(r for r, _, _ in overall_rows(test_row.pk, upload.pk).values()) == 203


def test_rows_arriving_after_their_second_was_aggregated_are_recomputed_exactly(
    test_row: Test, django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A phout sorted by send time with long timeouts: second 1700000000 gets a row after 60 s of later seconds.
    # Blocks of a few lines, so that second is aggregated (and stored) before its late rows are parsed.
    monkeypatch.setattr(load, "PARSE_BLOCK_BYTES", 300)
    lines = [phout_line(1700000000.100, "api", 2000)]
    lines += [phout_line(1700000001 + i, "api", 1000) for i in range(60)]
    lines += [phout_line(1699999990.500, "api", 10_000_000, http=0), phout_line(1699999999.990, "", 30_000)]
    upload = stored_upload(test_row, b"".join(lines))
    with django_capture_on_commit_callbacks(execute=True):
        assert ingest.ingest_upload(upload.pk) == UploadStatus.READY
    rows = client.execute(
        f"SELECT case, resps, http_codes, http_counts, q100_ms FROM {second_aggregates.NAME} "
        "WHERE test_id = %(t)s AND source_id = %(u)s AND ts = 1700000000 ORDER BY case",
        {"t": test_row.pk, "u": upload.pk},
        tag="tests.late_second",
    )
    # One row per case, no stale duplicates, and the late samples counted.
    assert rows == [("", 3, [0, 200], [1, 2], 10000.0), ("api", 2, [0, 200], [1, 1], 10000.0)]
    assert np.isclose(rows[0][4], 10_000.0)


def test_resumable_upload_in_pieces(owner: TokenUser, test_row: Test, django_capture_on_commit_callbacks: Any) -> None:
    body = (GOLDEN / "bfg_capture.phout").read_bytes()
    a, b = 4000, 7000
    url = f"/api/v1/tests/{test_row.pk}/phout"

    def piece(start: int, end: int, upload: int | None = None) -> Any:
        suffix = f"?upload={upload}" if upload else ""
        with django_capture_on_commit_callbacks(execute=True):
            return owner.client().generic(
                "PUT",
                url + suffix,
                cast(Any, body[start:end]),
                HTTP_CONTENT_RANGE=f"bytes {start}-{end - 1}/{len(body)}",
            )

    first = piece(0, a)
    assert first.status_code == 202 and first.json()["status"] == "receiving" and first.json()["received_bytes"] == a
    upload_id = first.json()["upload_id"]
    skipped = piece(b, len(body), upload_id)
    assert skipped.status_code == 409 and skipped.json()["received_bytes"] == a
    unnamed = piece(a, b)
    assert unnamed.status_code == 400 and "?upload=" in unnamed.json()["error"]
    assert piece(a, b, upload_id).json()["received_bytes"] == b
    status = owner.client().get(f"/api/v1/tests/{test_row.pk}/uploads/{upload_id}/").json()
    assert status["status"] == "receiving" and status["progress_bytes"] == b
    last = piece(b, len(body), upload_id)
    assert last.status_code == 202 and last.json()["status"] == "processing"
    upload = Upload.objects.get(pk=upload_id)
    assert upload.status == UploadStatus.READY and upload.lines_total == 203 and upload.lines_bad == 0
    assert sample_count(test_row.pk, upload_id) == 203
    again = piece(b, len(body), upload_id)
    assert again.status_code == 409 and "already complete" in again.json()["error"]
    assert Path(upload.file_path).exists() is False


def test_a_file_still_growing_goes_in_pieces_of_an_unknown_total_until_the_last(
    owner: TokenUser, test_row: Test, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """`bytes S-E/*` while the generator writes (tankodrom follow); the piece naming the total completes it."""
    body = (GOLDEN / "bfg_capture.phout").read_bytes()
    url = f"/api/v1/tests/{test_row.pk}/results"

    def piece(start: int, end: int, total: str, upload: int | None = None) -> Any:
        suffix = f"?upload={upload}" if upload else ""
        with django_capture_on_commit_callbacks(execute=True):
            return owner.client().generic(
                "PUT", url + suffix, cast(Any, body[start:end]), HTTP_CONTENT_RANGE=f"bytes {start}-{end - 1}/{total}"
            )

    first = piece(0, 3000, "*")
    assert first.status_code == 202, first.content
    assert (first.json()["status"], first.json()["size_bytes"], first.json()["received_bytes"]) == (
        "receiving",
        0,
        3000,
    )
    upload_id = first.json()["upload_id"]
    assert piece(3000, 6000, "*", upload_id).json()["received_bytes"] == 6000
    assert piece(3000, 6000, "*", upload_id).status_code == 409  # a piece sent twice: the stored bytes say where
    status = owner.client().get(f"/api/v1/tests/{test_row.pk}/uploads/{upload_id}/").json()
    assert (status["status"], status["size_bytes"], status["progress_bytes"]) == ("receiving", 0, 6000)
    last = piece(6000, len(body), str(len(body)), upload_id)
    assert last.status_code == 202 and last.json()["status"] == "processing"
    upload = Upload.objects.get(pk=upload_id)
    assert (upload.status, upload.size_bytes, upload.lines_total) == (UploadStatus.READY, len(body), 203)
    assert sample_count(test_row.pk, upload_id) == 203
    # A total named once holds: a later piece may not say another, nor '*' again.
    settings.TANKODROM_MAX_UPLOAD_BYTES = 5000
    open_ended = piece(0, 4000, "*")
    upload_id = open_ended.json()["upload_id"]
    assert piece(4000, 6000, "*", upload_id).status_code == 413  # the piece's end passes the limit
    assert piece(4000, 4500, "5000", upload_id).json()["size_bytes"] == 5000
    changed = piece(4500, 4600, "*", upload_id)
    assert changed.status_code == 400 and "announced as 5000 bytes" in changed.json()["error"]
    assert piece(0, 10, "x").status_code == 400


def test_the_total_of_a_piecewise_upload_is_limited(
    owner: TokenUser, test_row: Test, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.TANKODROM_MAX_UPLOAD_BYTES = 1000
    with django_capture_on_commit_callbacks(execute=True):
        response = owner.client().generic(
            "PUT",
            f"/api/v1/tests/{test_row.pk}/phout",
            cast(Any, b"x" * 100),
            HTTP_CONTENT_RANGE="bytes 0-99/5000",
        )
    assert response.status_code == 413 and "TANKODROM_MAX_UPLOAD_BYTES" in response.json()["error"]
    assert not Upload.objects.filter(test=test_row).exists()


def test_a_second_run_of_the_same_upload_at_the_same_time_stays_out(test_row: Test) -> None:
    from django.db import connections

    upload = stored_upload(test_row, (GOLDEN / "bfg.phout").read_bytes())
    other = connections.create_connection("default")  # another worker's own connection, holding the upload's lock
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(%s, %s)", [locks.INGESTING, upload.pk])
        assert ingest.ingest_upload(upload.pk) == "busy"
        assert Upload.objects.get(pk=upload.pk).status == UploadStatus.PARSING
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [locks.INGESTING, upload.pk])
    finally:
        other.close()
    assert ingest.ingest_upload(upload.pk) == UploadStatus.READY
