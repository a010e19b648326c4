"""Active threads/VUs/users of JMeter, k6 and Gatling files reach the report and the diagnosis as the tank's do,
and a failed upload names its format (real PostgreSQL, ClickHouse and Redis)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from backend.diagnosis.service import load_input
from backend.loadtests.models import Test, TestStatus, UploadStatus
from backend.testing import TokenUser
from backend.uploads import ingest, load
from backend.uploads.tests.test_ingest import stored_upload
from backend.uploads.tests.test_upload_api import put_phout

FIXTURES = Path(__file__).resolve().parents[3] / "analytics" / "formats" / "tests" / "fixtures"


@pytest.mark.parametrize(
    ("fixture", "instances"),
    [
        ("jmeter_default.jtl", [2, 2, 2]),  # allThreads
        ("jmeter_groups.jtl", [3, 4, 4]),  # grpThreads of two thread groups, added up
        ("jmeter.xml", [2, 2, 2]),
        ("k6.json", [2, 3, 3]),  # the vus points
        ("k6.csv", [2, 3, 3]),
        ("gatling_3_3.log", [1, 2]),  # USER START/END: the users alive in each second
        ("gatling_3_9.log", [1, 2]),
    ],
)
def test_each_generators_active_instances_reach_the_report_and_the_diagnosis(
    owner: TokenUser, test_row: Test, django_capture_on_commit_callbacks: Any, fixture: str, instances: list[int]
) -> None:
    response = put_phout(owner, test_row, (FIXTURES / fixture).read_bytes(), django_capture_on_commit_callbacks)
    assert response.status_code == 202, response.content
    test_row.refresh_from_db()
    assert test_row.active_upload_id is not None
    api = owner.client()
    load = api.get(f"/api/v1/tests/{test_row.pk}/charts/instances_rps").json()["figure"]["data"][0]
    assert load["x"] == instances  # one point per second, its instances on the x axis
    quantiles = api.get(f"/api/v1/tests/{test_row.pk}/charts/quantiles").json()["figure"]["data"]
    line = [trace for trace in quantiles if trace["name"] == "instances"]
    assert len(line) == 1 and line[0]["y"] == instances
    assert load_input(test_row).series.instances.tolist() == instances  # what the generator finding reads


def test_instances_of_a_second_aggregated_again_for_late_samples_stay(
    test_row: Test, django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second whose rows are recomputed (a sample that ended in it came 70 s of file later) keeps its instances."""
    monkeypatch.setattr(load, "PARSE_BLOCK_BYTES", 300)  # blocks of a few rows: second 0 is stored before its late row
    rows = [f"{1_700_000_000_100 + s * 1000},50,a,200,true,{1 + s // 10}" for s in range(70)]
    rows.append("1700000000200,100,a,200,true,1")  # ends in second 0, long after it was aggregated
    body = ("timeStamp,elapsed,label,responseCode,success,allThreads\n" + "\n".join(rows) + "\n").encode()
    recomputed: list[list[int]] = []
    recompute = load.recompute_seconds

    def spy(test_id: int, upload_id: int, seconds: list[int]) -> None:
        recomputed.append(seconds)
        recompute(test_id, upload_id, seconds)

    monkeypatch.setattr(load, "recompute_seconds", spy)
    upload = stored_upload(test_row, body)
    with django_capture_on_commit_callbacks(execute=True):
        assert ingest.ingest_upload(upload.pk) == UploadStatus.READY
    assert recomputed == [[1_700_000_000]]
    test_row.refresh_from_db()
    series = load_input(test_row).series
    assert series.resps[0] == 2  # the late sample counted in its second
    assert series.instances.tolist() == [1 + s // 10 for s in range(70)]


def test_a_failed_upload_names_its_format(test_row: Test, django_capture_on_commit_callbacks: Any) -> None:
    run = b"RUN\tcomputerdatabase.BasicSimulation\tbasicsimulation\t1700000000000\t \t3.9.5\n"
    body = run + b"REQUEST\t\tx\t1700000000100\t1700000000195\tOK\t \n" + b"NOT A RECORD\tx\n" * 20
    upload = stored_upload(test_row, body)
    with django_capture_on_commit_callbacks(execute=True):
        assert ingest.ingest_upload(upload.pk) == UploadStatus.FAILED
    test_row.refresh_from_db()
    assert test_row.status == TestStatus.FAILED
    assert test_row.error.startswith(f"gatling upload {upload.pk} failed: this does not look like a Gatling")
