"""Issue 29's cardinality file: a 1.1 MB gzip JTL with 200,000 distinct labels (one of them 160 KB). It made
…/tables answer 500 ("Max query size exceeded"), …/report 11 MB, compare 503 and the compare preview 500. Now the
limits of README "Limits" hold at ingest: names cut to TANKODROM_LABEL_MAX_CHARS, the first TANKODROM_CASES_MAX
cases kept and the rest counted under "(other cases)", the upload's note saying so; the readers answer 200 with a
bounded size."""

from __future__ import annotations

import gzip
import time
from typing import Any

import pytest
from django.conf import settings
from django.test import Client

from backend.loadtests.models import Test, UploadStatus
from backend.testing import TokenUser
from backend.uploads.tests.conftest import final_upload

pytestmark = pytest.mark.probe

LABELS = 200_000
HEADER = b"timeStamp,elapsed,label,responseCode,success,bytes,grpThreads,allThreads,Latency,Connect\n"


def cardinality_file() -> bytes:
    lines = [HEADER, b"1700000000000,12,%s,200,true,100,1,1,5,1\n" % (b"L" * 160_000)]
    lines += [
        b"%d,%d,/item/%d,200,true,100,1,1,5,1\n" % (1_700_000_000_000 + i * 3, 5 + i % 50, i) for i in range(LABELS)
    ]
    return gzip.compress(b"".join(lines), 6)


def put(api: Any, test: Test, body: bytes, capture: Any) -> Any:
    with capture(execute=True):
        answer = api.generic("PUT", f"/api/v1/tests/{test.pk}/results", body, content_type="application/gzip")
    assert answer.status_code == 202, answer.content
    return final_upload(int(answer.json()["upload_id"]), timeout_s=120)


def test_200000_labels_are_bounded_at_ingest_and_the_readers_answer(
    owner: TokenUser, test_row: Test, django_capture_on_commit_callbacks: Any
) -> None:
    api = owner.client()
    body = cardinality_file()
    other = Test.objects.create(owner=owner.user, name="second")
    for test in (test_row, other):
        upload = put(api, test, body, django_capture_on_commit_callbacks)
        assert upload.status == UploadStatus.READY, upload.error
        assert upload.lines_total == LABELS + 1 and upload.lines_bad == 0
        kept = settings.TANKODROM_CASES_MAX
        assert f"1 case names longer than {settings.TANKODROM_LABEL_MAX_CHARS} characters were cut" in upload.error
        assert f"{LABELS + 1 - kept} cases past the first {kept} were counted under the case '(other cases)'" in (
            upload.error
        )
    sizes: dict[str, int] = {}
    browser = Client()  # the preview is a page's image: the session's user, not an API token
    browser.force_login(owner.user)
    for name, url in (
        ("tables", f"/api/v1/tests/{test_row.pk}/tables"),
        ("report", f"/api/v1/tests/{test_row.pk}/report"),
        ("compare", f"/api/v1/compare?tests={test_row.pk},{other.pk}"),
        ("preview", f"/preview/compare/{test_row.pk}/{other.pk}.png"),
    ):
        started = time.monotonic()
        answer = (browser if name == "preview" else api).get(url)
        assert answer.status_code == 200, (name, answer.status_code, answer.content[:300])
        sizes[name] = len(answer.content)
        print(f"{name}: {sizes[name]} bytes in {time.monotonic() - started:.1f} s")
    assert max(sizes.values()) < 3_000_000, sizes
    tables = api.get(f"/api/v1/tests/{test_row.pk}/tables").content
    assert b"(other cases)" in tables and b"L" * 300 not in tables
