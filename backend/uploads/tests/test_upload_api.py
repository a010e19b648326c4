"""PUT /api/v1/tests/<id>/phout end to end on the real stores: body to disk, ingestion, what readers then see."""

from __future__ import annotations

import gzip
import io
from pathlib import Path
from typing import Any, cast

import pytest

from backend.clickhouse import client
from backend.clickhouse.queries.uploads import wait_for_mutations
from backend.clickhouse.tables import samples, second_aggregates
from backend.loadtests.models import Test, TestStatus, Upload, UploadStatus
from backend.testing import TokenUser, make_token_user
from backend.uploads import receive
from backend.uploads.digest import digest_of_bytes
from backend.uploads.tests.conftest import GOLDEN


def put_phout(owner: TokenUser, test: Test, body: bytes, capture: Any, **extra: Any) -> Any:
    with capture(execute=True):
        return owner.client().generic(
            "PUT", f"/api/v1/tests/{test.pk}/phout", cast(Any, body), content_type="application/octet-stream", **extra
        )


def sample_count(test_id: int, upload_id: int) -> int:
    rows = client.execute(
        f"SELECT count() FROM {samples.NAME} WHERE test_id = %(t)s AND upload_id = %(u)s",
        {"t": test_id, "u": upload_id},
        tag="tests.samples",
    )
    return int(rows[0][0])


def overall_rows(test_id: int, upload_id: int) -> dict[int, tuple[int, list[int], list[int]]]:
    rows = client.execute(
        f"SELECT ts, resps, http_codes, http_counts FROM {second_aggregates.NAME} "
        "WHERE test_id = %(t)s AND source_id = %(u)s AND case = '' ORDER BY ts",
        {"t": test_id, "u": upload_id},
        tag="tests.aggregates",
    )
    return {int(ts): (int(resps), list(codes), list(counts)) for ts, resps, codes, counts in rows}


def test_a_plain_upload_becomes_the_tests_exact_data(
    owner: TokenUser, test_row: Test, django_capture_on_commit_callbacks: Any
) -> None:
    body = (GOLDEN / "bfg_capture.phout").read_bytes()
    response = put_phout(owner, test_row, body, django_capture_on_commit_callbacks)
    assert response.status_code == 202, response.content
    assert response.json()["id"] == test_row.pk and response.json()["status"] == "processing"
    upload = Upload.objects.get(pk=response.json()["upload_id"])
    assert upload.status == UploadStatus.READY, upload.error
    assert (upload.lines_total, upload.lines_bad, upload.size_bytes) == (203, 0, len(body))
    assert upload.content_digest == digest_of_bytes(body) and upload.content_digest.startswith("xxh3-128:")
    test_row.refresh_from_db()
    assert test_row.active_upload_id == upload.pk
    assert test_row.status == TestStatus.READY  # its data is complete; the post-processing only warms caches
    assert (test_row.first_ts, test_row.last_ts) == (1795316038, 1795316051)
    assert sample_count(test_row.pk, upload.pk) == 203
    overall = overall_rows(test_row.pk, upload.pk)
    assert sum(resps for resps, _, _ in overall.values()) == 203
    assert overall[1795316038] == (2, [200], [2])
    stored_tags = client.execute(
        f"SELECT tag, count() FROM {samples.NAME} WHERE test_id = %(t)s GROUP BY tag ORDER BY tag",
        {"t": test_row.pk},
        tag="tests.tags",
    )
    assert stored_tags == [("", 34), ("errors", 34), ("index", 68), ("missing", 34), ("search", 33)]
    assert not Path(upload.file_path).exists()  # the samples are in ClickHouse; the file is not kept


def test_gzip_is_recognised_by_its_magic_bytes(
    owner: TokenUser, test_row: Test, django_capture_on_commit_callbacks: Any
) -> None:
    response = put_phout(
        owner, test_row, (GOLDEN / "mixed_crlf.phout.gz").read_bytes(), django_capture_on_commit_callbacks
    )
    assert response.status_code == 202
    upload = Upload.objects.get(pk=response.json()["upload_id"])
    assert upload.status == UploadStatus.READY and upload.lines_total == 9 and upload.lines_bad == 0
    assert sample_count(test_row.pk, upload.pk) == 9


def test_bad_lines_are_counted_with_their_numbers(
    owner: TokenUser, test_row: Test, django_capture_on_commit_callbacks: Any
) -> None:
    body = (GOLDEN / "tags_hash.phout").read_bytes() + b"garbage\n" + (GOLDEN / "crlf.phout").read_bytes()
    response = put_phout(owner, test_row, gzip.compress(body), django_capture_on_commit_callbacks)
    assert response.status_code == 202
    upload = Upload.objects.get(pk=response.json()["upload_id"])
    assert upload.status == UploadStatus.READY
    assert (upload.lines_total, upload.lines_bad) == (10, 1)
    assert upload.bad_examples == [
        {"line": 7, "reason": "expected 12 tab-separated fields, found 1", "text": "garbage"}
    ]
    listed = owner.client().get(f"/api/v1/tests/{test_row.pk}/uploads/").json()
    assert listed[0]["id"] == upload.pk and listed[0]["active"] is True and listed[0]["lines_bad"] == 1


def test_a_file_that_is_not_phout_is_refused_at_once(
    owner: TokenUser, test_row: Test, uploads_env: Path, django_capture_on_commit_callbacks: Any
) -> None:
    response = put_phout(owner, test_row, (GOLDEN / "not_phout.txt").read_bytes(), django_capture_on_commit_callbacks)
    assert response.status_code == 400
    assert "does not look like phout: 31 of 32 lines" in response.json()["error"]
    assert "line 1: expected 12 tab-separated fields" in response.json()["error"]
    assert Upload.objects.get(test=test_row).status == UploadStatus.FAILED
    assert list((uploads_env / "uploads").glob("*")) == []  # nothing kept
    empty = put_phout(owner, test_row, b"", django_capture_on_commit_callbacks, CONTENT_LENGTH="0")
    assert empty.status_code == 400 and "empty body" in empty.json()["error"]


def test_the_same_file_twice_is_not_doubled(
    owner: TokenUser, test_row: Test, django_capture_on_commit_callbacks: Any
) -> None:
    body = (GOLDEN / "bfg_capture.phout").read_bytes()
    first = put_phout(owner, test_row, body, django_capture_on_commit_callbacks).json()["upload_id"]
    second = put_phout(owner, test_row, body, django_capture_on_commit_callbacks).json()["upload_id"]
    duplicate = Upload.objects.get(pk=second)
    assert duplicate.status == UploadStatus.READY and f"same file as upload {first}" in duplicate.error
    test_row.refresh_from_db()
    assert test_row.active_upload_id == first
    total = client.execute(
        f"SELECT count() FROM {samples.NAME} WHERE test_id = %(t)s", {"t": test_row.pk}, tag="tests.all_samples"
    )
    assert total[0][0] == 203


def test_a_new_file_supersedes_the_old_one(
    owner: TokenUser, test_row: Test, django_capture_on_commit_callbacks: Any
) -> None:
    old = put_phout(owner, test_row, (GOLDEN / "bfg.phout").read_bytes(), django_capture_on_commit_callbacks)
    new = put_phout(owner, test_row, (GOLDEN / "crlf.phout").read_bytes(), django_capture_on_commit_callbacks)
    old_id, new_id = old.json()["upload_id"], new.json()["upload_id"]
    assert Upload.objects.get(pk=old_id).status == UploadStatus.SUPERSEDED
    test_row.refresh_from_db()
    assert test_row.active_upload_id == new_id and (test_row.first_ts, test_row.last_ts) == (1700000000, 1700000001)
    wait_for_mutations(samples.NAME)
    wait_for_mutations(second_aggregates.NAME)
    assert sample_count(test_row.pk, old_id) == 0 and overall_rows(test_row.pk, old_id) == {}
    assert sample_count(test_row.pk, new_id) == 3


def test_access_and_request_errors(owner: TokenUser, test_row: Test, django_capture_on_commit_callbacks: Any) -> None:
    body = (GOLDEN / "bfg.phout").read_bytes()
    anonymous = owner.client()
    anonymous.credentials()
    response = anonymous.generic("PUT", f"/api/v1/tests/{test_row.pk}/phout", cast(Any, body))
    assert response.status_code == 401 and "API token" in response.json()["error"]
    stranger = make_token_user("stranger")
    response = put_phout(stranger, test_row, body, django_capture_on_commit_callbacks)
    assert response.status_code == 403 and "error" in response.json()
    response = put_phout(owner, test_row, body, django_capture_on_commit_callbacks, CONTENT_LENGTH="")
    assert response.status_code == 411 and "Content-Length" in response.json()["error"]
    missing = owner.client().generic("PUT", "/api/v1/tests/999999/phout", cast(Any, body))
    assert missing.status_code == 404 and response.json()["error"]
    assert not Upload.objects.filter(test=test_row).exists()
    test_row.refresh_from_db()
    assert test_row.status == TestStatus.ONLINE


def test_a_body_shorter_than_announced_is_not_kept(owner: TokenUser, test_row: Test, uploads_env: Path) -> None:
    # The client disconnects before the end: its stream simply ends early.
    body = (GOLDEN / "bfg_capture.phout").read_bytes()
    with pytest.raises(receive.ReceiveError) as refused:
        receive.receive(test_row, io.BytesIO(body), len(body) + 10, None, None)
    assert refused.value.status == 400 and f"after {len(body)} of {len(body) + 10} bytes" in refused.value.message
    assert Upload.objects.get(test=test_row).status == UploadStatus.FAILED
    assert list((uploads_env / "uploads").glob("*")) == []
