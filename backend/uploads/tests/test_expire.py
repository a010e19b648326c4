"""Resumable uploads whose client never came back are given up after TANKODROM_UPLOAD_ABANDON_S."""

from __future__ import annotations

import os
import time
from datetime import timedelta
from typing import Any

from django.utils import timezone

from backend.loadtests.models import Test, TestStatus, Upload, UploadStatus
from backend.testing import TokenUser
from backend.uploads.expire import expire_abandoned_uploads
from backend.uploads.storage import upload_path


def receiving(test: Test, age_s: float, written_s_ago: float) -> Upload:
    upload = Upload.objects.create(test=test, size_bytes=1000, progress_bytes=400, status=UploadStatus.RECEIVING)
    path = upload_path(upload.pk)
    path.write_bytes(b"x" * 400)
    os.utime(path, (time.time() - written_s_ago, time.time() - written_s_ago))
    Upload.objects.filter(pk=upload.pk).update(
        file_path=str(path), created_at=timezone.now() - timedelta(seconds=age_s)
    )
    return Upload.objects.get(pk=upload.pk)


def test_only_uploads_idle_for_longer_than_the_limit_expire(owner: TokenUser, settings: Any) -> None:
    settings.TANKODROM_UPLOAD_ABANDON_S = 3600
    new_test = Test.objects.create(owner=owner.user, name="never finished", status=TestStatus.PROCESSING)
    stale = receiving(new_test, age_s=7200, written_s_ago=5000)
    other = Test.objects.create(owner=owner.user, name="still sending", status=TestStatus.PROCESSING)
    slow_but_alive = receiving(other, age_s=7200, written_s_ago=60)  # old, but a piece arrived a minute ago
    young = receiving(other, age_s=60, written_s_ago=60)

    assert expire_abandoned_uploads() == [stale.pk]

    stale.refresh_from_db()
    assert stale.status == UploadStatus.FAILED and "abandoned" in stale.error and "400 of 1000" in stale.error
    assert not upload_path(stale.pk).exists()
    new_test.refresh_from_db()
    assert new_test.status == TestStatus.FAILED and f"phout upload {stale.pk} failed" in new_test.error
    for alive in (slow_but_alive, young):
        alive.refresh_from_db()
        assert alive.status == UploadStatus.RECEIVING and upload_path(alive.pk).exists()
    other.refresh_from_db()
    assert other.status == TestStatus.PROCESSING
    assert expire_abandoned_uploads() == []  # running again changes nothing


def test_a_test_with_data_keeps_it_when_a_new_upload_is_abandoned(owner: TokenUser, settings: Any) -> None:
    settings.TANKODROM_UPLOAD_ABANDON_S = 3600
    streamed = Test.objects.create(owner=owner.user, name="streamed", status=TestStatus.READY, has_stream=True)
    stale = receiving(streamed, age_s=7200, written_s_ago=7200)
    assert expire_abandoned_uploads() == [stale.pk]
    streamed.refresh_from_db()
    assert streamed.status == TestStatus.READY and streamed.error == ""
