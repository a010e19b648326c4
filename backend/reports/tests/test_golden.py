"""Golden test: a small hand-made phout file, ingested by the uploads pipeline, read back through the API.

The expected figures in fixtures/golden_small.expected.json were worked out by hand from the file, not by
running this code; quantile levels that fall between two order statistics accept either one (contract.md).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from backend.loadtests.models import Test, TestStatus, Upload, UploadStatus
from backend.reports.tasks import postprocess_test
from backend.uploads.ingest import ingest_upload

FIXTURES = Path(__file__).parent / "fixtures"


def _within(got: dict[str, float | None], bounds: dict[str, list[float]]) -> None:
    assert set(got) == set(bounds)
    for level, (low, high) in bounds.items():
        value = got[level]
        assert value is not None and low <= value <= high, (level, value, low, high)


def test_hand_worked_file(owner, clickhouse, cache_clear, anon_api, tmp_path) -> None:
    expected: dict[str, Any] = json.loads((FIXTURES / "golden_small.expected.json").read_text())
    test = Test.objects.create(owner=owner, name="golden", status=TestStatus.PROCESSING)
    path = tmp_path / "golden.phout"
    shutil.copy(FIXTURES / "golden_small.phout", path)  # the ingestion deletes its input when done
    upload = Upload.objects.create(
        test=test, file_path=str(path), size_bytes=path.stat().st_size, status=UploadStatus.PARSING
    )
    assert ingest_upload(upload.pk) == UploadStatus.READY
    postprocess_test(test.pk)
    test.refresh_from_db()
    assert test.status == TestStatus.READY and test.active_upload_id == upload.pk

    whole = anon_api.get(f"/api/v1/tests/{test.pk}/summary").json()
    want = expected["whole"]
    assert whole["exact"] is True and whole["count"] == want["count"]
    _within(whole["quantiles_ms"], want["quantiles_ms"])
    assert (whole["http_codes"], whole["net_codes"], whole["rps"]) == (
        want["http_codes"],
        want["net_codes"],
        want["rps"],
    )

    case = expected["case_a_from_second_1"]
    part = anon_api.get(f"/api/v1/tests/{test.pk}/summary", case["params"]).json()
    assert part["count"] == case["count"] and part["http_codes"] == case["http_codes"] and part["rps"] == case["rps"]
    _within(part["quantiles_ms"], case["quantiles_ms"])

    tables = anon_api.get(f"/api/v1/tests/{test.pk}/tables", {"q": "50"}).json()
    want_t = expected["tables"]
    assert tables["quantiles"]["columns"] == want_t["columns"]
    medians = dict(zip(tables["quantiles"]["columns"], tables["quantiles"]["rows"][0]["values"], strict=True))
    for column, bounds in want_t["median_ms"].items():
        if bounds is None:
            assert medians[column] is None
        else:
            assert bounds[0] <= medians[column] <= bounds[1], column
    assert {row["case"]: row["count"] for row in tables["cases"]} == want_t["case_counts"]
