"""The uploads' answers on real uploads are exactly what the OpenAPI schema says (the frontend's types come from it):
a file's PUT, the list of a test's uploads (superseded, ready with bad lines, one still parsing) and one upload."""

from __future__ import annotations

import gzip
from typing import Any

from backend.core.tests.schema_answers import assert_answer_in_schema
from backend.loadtests.models import Test, UploadStatus
from backend.testing import TokenUser
from backend.uploads.tests.conftest import GOLDEN
from backend.uploads.tests.test_ingest import stored_upload
from backend.uploads.tests.test_upload_api import put_phout


def test_upload_answers_match_the_schema(
    owner: TokenUser, test_row: Test, django_capture_on_commit_callbacks: Any
) -> None:
    put_phout(owner, test_row, (GOLDEN / "bfg.phout").read_bytes(), django_capture_on_commit_callbacks)
    with_bad_line = gzip.compress((GOLDEN / "crlf.phout").read_bytes() + b"garbage\n")
    received = put_phout(owner, test_row, with_bad_line, django_capture_on_commit_callbacks)
    assert received.status_code == 202
    assert_answer_in_schema(received, "/api/v1/tests/{test_id}/phout", "put")
    parsing = stored_upload(test_row, (GOLDEN / "bfg.phout").read_bytes())

    listed = owner.client().get(f"/api/v1/tests/{test_row.pk}/uploads/")
    assert [u["status"] for u in listed.json()] == [UploadStatus.PARSING, UploadStatus.READY, UploadStatus.SUPERSEDED]
    assert listed.json()[1]["bad_examples"] and listed.json()[0]["finished_at"] is None
    assert_answer_in_schema(listed, "/api/v1/tests/{test_id}/uploads/")

    one = owner.client().get(f"/api/v1/tests/{test_row.pk}/uploads/{parsing.pk}/")
    assert_answer_in_schema(one, "/api/v1/tests/{test_id}/uploads/{upload_id}/")
