"""The uploads' disk full (a small tmpfs mounted as VAR_DIR): a whole PUT answers 507 JSON and leaves nothing; a
piece answers 507 with the bytes kept, gives back the rest, and resumes once there is room (issue 19 fault runs)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from backend.loadtests.models import Test, TestStatus, Upload, UploadStatus
from backend.testing import TokenUser
from backend.uploads.tests.test_upload_api import put_phout, sample_count

MOUNT_BYTES = 3 * 1024 * 1024


def phout(n: int) -> bytes:
    return b"".join(
        f"{1_700_000_000 + i / 100:.3f}\tcase\t{1000 + i}\t10\t20\t900\t70\t0\t100\t2000\t0\t200\n".encode()
        for i in range(n)
    )


@pytest.fixture
def small_disk(uploads_env: Path, settings: Any) -> Iterator[Path]:
    mount = uploads_env / "small"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={MOUNT_BYTES}", "tmpfs", str(mount)], capture_output=True, check=False
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {done.stderr.decode().strip()}")
    settings.VAR_DIR = mount
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def used_bytes(mount: Path) -> int:
    usage = shutil.disk_usage(mount)
    return usage.used


def test_a_whole_file_on_a_full_disk_is_refused_with_507_and_leaves_nothing(
    owner: TokenUser, small_disk: Path, django_capture_on_commit_callbacks: Any
) -> None:
    test = Test.objects.create(owner=owner.user, name="disk full", status=TestStatus.PROCESSING)
    body = phout(60_000)
    assert len(body) > MOUNT_BYTES
    response = put_phout(owner, test, body, django_capture_on_commit_callbacks)
    assert response.status_code == 507, response.content
    assert response["Content-Type"].startswith("application/json")
    assert "disk is full" in response.json()["error"] and "No space" not in response.json()["error"]
    upload = Upload.objects.get(pk=response.json()["upload_id"])
    assert upload.status == UploadStatus.FAILED and "disk is full" in upload.error
    assert list((small_disk / "uploads").iterdir()) == []
    assert used_bytes(small_disk) < 64 * 1024  # the space is given back
    test.refresh_from_db()
    assert test.status == TestStatus.FAILED  # its only upload failed: not processing for ever


def test_a_piece_on_a_full_disk_keeps_what_was_committed_and_resumes_later(
    owner: TokenUser, test_row: Test, small_disk: Path, django_capture_on_commit_callbacks: Any
) -> None:
    body = phout(60_000)
    cut = 1024 * 1024
    api = owner.client()

    def piece(start: int, end: int, upload: int | None = None) -> Any:
        with django_capture_on_commit_callbacks(execute=True):
            return api.generic(
                "PUT",
                f"/api/v1/tests/{test_row.pk}/phout" + (f"?upload={upload}" if upload else ""),
                cast(Any, body[start:end]),
                content_type="application/octet-stream",
                HTTP_CONTENT_RANGE=f"bytes {start}-{end - 1}/{len(body)}",
            )

    first = piece(0, cut)
    assert first.status_code == 202, first.content
    upload_id = first.json()["upload_id"]
    rest = piece(cut, len(body), upload_id)
    assert rest.status_code == 507, rest.content
    assert rest.json()["received_bytes"] == cut and "disk is full" in rest.json()["error"]
    assert os.path.getsize(small_disk / "uploads" / f"{upload_id}.phout") == cut  # the rest is given back
    assert Upload.objects.get(pk=upload_id).status == UploadStatus.RECEIVING

    subprocess.run(["mount", "-o", "remount,size=64m", str(small_disk)], check=True)  # room again
    resumed = piece(cut, len(body), upload_id)
    assert resumed.status_code == 202 and resumed.json()["status"] == "processing", resumed.content
    upload = Upload.objects.get(pk=upload_id)
    assert upload.status == UploadStatus.READY, upload.error
    assert (upload.lines_total, upload.lines_bad) == (60_000, 0)
    assert sample_count(test_row.pk, upload_id) == 60_000
