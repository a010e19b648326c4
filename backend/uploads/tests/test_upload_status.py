"""`GET /api/v1/tests/<id>/uploads/<upload>/?wait=S`: the status read that waits for the upload to be final."""

from __future__ import annotations

import time

import pytest

from backend.loadtests.models import Test, Upload, UploadStatus
from backend.testing import TokenUser
from backend.uploads import views
from backend.uploads.tests.conftest import GOLDEN
from backend.uploads.tests.test_ingest import stored_upload


def status_url(test: Test, upload: Upload) -> str:
    return f"/api/v1/tests/{test.pk}/uploads/{upload.pk}/"


def test_the_answer_comes_as_soon_as_the_upload_is_final(
    owner: TokenUser, test_row: Test, monkeypatch: pytest.MonkeyPatch
) -> None:
    upload = stored_upload(test_row, (GOLDEN / "bfg.phout").read_bytes())
    naps: list[float] = []

    def nap_then_finish(seconds: float) -> None:
        # The ingestion finishes during the third pause (in this thread, so the test's transaction sees it).
        naps.append(seconds)
        if len(naps) == 3:
            Upload.objects.filter(pk=upload.pk).update(status=UploadStatus.READY)

    monkeypatch.setattr(time, "sleep", nap_then_finish)  # the view sleeps through time.sleep
    answer = owner.client().get(status_url(test_row, upload), {"wait": 5})
    assert answer.status_code == 200 and answer.json()["status"] == "ready"
    assert len(naps) == 3 and all(0 < nap <= views.WAIT_POLL_S for nap in naps)


def test_an_unfinished_upload_is_answered_when_the_wait_is_over(owner: TokenUser, test_row: Test) -> None:
    upload = stored_upload(test_row, (GOLDEN / "bfg.phout").read_bytes())
    started = time.monotonic()
    answer = owner.client().get(status_url(test_row, upload), {"wait": 0.3})
    waited = time.monotonic() - started
    assert answer.status_code == 200 and answer.json()["status"] == "parsing"
    assert 0.3 <= waited < 3.0


def test_the_wait_is_capped_and_checked(owner: TokenUser, test_row: Test, monkeypatch: pytest.MonkeyPatch) -> None:
    upload = stored_upload(test_row, (GOLDEN / "bfg.phout").read_bytes())
    client = owner.client()
    monkeypatch.setattr(views, "MAX_WAIT_S", 0.2)
    started = time.monotonic()
    assert client.get(status_url(test_row, upload), {"wait": 1e9}).json()["status"] == "parsing"
    assert time.monotonic() - started < 3.0
    for bad in ("-1", "soon", "nan", "inf"):
        answer = client.get(status_url(test_row, upload), {"wait": bad})
        assert answer.status_code == 400 and "wait must be a number of seconds" in answer.json()["error"], bad
