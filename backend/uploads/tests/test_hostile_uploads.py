"""Issue 29's hostile result files through the upload API: each was a 500 on PUT …/results, an "internal error" for
the whole file, or accepted with NaN that made …/tables answer 500 for everyone. Now the bad value is a bad line
naming its line and field (the rest of the file is kept), and the readers answer."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from backend.loadtests.models import Test, UploadStatus
from backend.testing import TokenUser
from backend.uploads.tests.conftest import final_upload

pytestmark = pytest.mark.probe

FIXTURES = Path(__file__).resolve().parents[3] / "analytics" / "formats" / "tests" / "fixtures"


def replace_field(name: str, row: int, column: int, value: str, delimiter: str = ",") -> bytes:
    lines = (FIXTURES / name).read_text().splitlines()
    fields = lines[row].split(delimiter)
    fields[column] = value
    lines[row] = delimiter.join(fields)
    return ("\n".join(lines) + "\n").encode()


def k6_duration(value: str) -> bytes:
    lines = (FIXTURES / "k6.csv").read_text().splitlines()
    row = next(i for i, line in enumerate(lines) if line.startswith("http_req_duration,"))
    return replace_field("k6.csv", row, 2, value)


def locust_total(column_from_end: int, value: str) -> bytes:
    text = (FIXTURES / "locust" / "run_stats_history.csv").read_text()
    width = len(text.splitlines()[0].split(","))
    return replace_field("locust/run_stats_history.csv", 3, width - column_from_end, value)


def k6_json_nan() -> bytes:
    lines = (FIXTURES / "k6.json").read_text().splitlines()
    row = next(i for i, line in enumerate(lines) if '"metric":"http_req_duration"' in line and '"Point"' in line)
    lines[row] = lines[row].replace('"value":', '"value":"NaN","was":', 1)
    return ("\n".join(lines) + "\n").encode()


CASES: dict[str, tuple[Callable[[], bytes], str | None]] = {
    "k6 CSV duration inf": (lambda: k6_duration("inf"), "metric_value 'inf' is not a number"),
    "Locust content size inf": (lambda: locust_total(1, "inf"), "Total Average Content Size 'inf'"),
    "Locust mean nan": (lambda: locust_total(4, "nan"), "Total Average Response Time 'nan'"),
    "Locust mean 1e400": (lambda: locust_total(4, "1e400"), "Total Average Response Time '1e400'"),
    "JTL CSV allThreads ²": (lambda: replace_field("jmeter_default.jtl", 1, 12, "²"), None),
    "JTL CSV allThreads of 25 digits": (lambda: replace_field("jmeter_default.jtl", 1, 12, "9" * 25), None),
    "JTL XML na ²": (lambda: (FIXTURES / "jmeter.xml").read_text().replace('na="2"', 'na="²"', 1).encode(), None),
    "k6 JSON value NaN": (k6_json_nan, "value 'NaN' is not a number"),
    "Gatling USER END of 30 digits": (
        lambda: ((FIXTURES / "gatling_3_9.log").read_text() + f"USER\tScenario Name\tEND\t{'9' * 30}\n").encode(),
        None,
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_hostile_value_is_a_bad_line_and_the_readers_answer(
    owner: TokenUser, test_row: Test, case: str, django_capture_on_commit_callbacks: Any
) -> None:
    body, reason = CASES[case]
    api = owner.client()
    url = f"/api/v1/tests/{test_row.pk}/results"
    with django_capture_on_commit_callbacks(execute=True):
        answer = api.generic("PUT", url, body(), content_type="application/octet-stream")  # type: ignore[arg-type]
    assert answer.status_code == 202, answer.content
    upload = final_upload(int(answer.json()["upload_id"]))
    assert upload.status == UploadStatus.READY, upload.error
    if reason is not None:
        assert upload.lines_bad >= 1, upload.bad_examples
        assert any(reason in example["reason"] for example in upload.bad_examples), upload.bad_examples
    for path in ("report", "tables", "summary"):
        read = api.get(f"/api/v1/tests/{test_row.pk}/{path}")
        assert read.status_code == 200, (path, read.content[:300])
        assert b"NaN" not in read.content and b"Infinity" not in read.content


def _phout_line(ts: float) -> str:
    # time, tag, interval_real, connect, send, latency, receive, interval_event, size_out, size_in, net, proto
    return f"{ts:.3f}\tcase\t1000\t10\t10\t900\t80\t990\t100\t200\t0\t200\n"


def test_a_file_spanning_more_than_a_test_may_last_fails_naming_the_limit(
    owner: TokenUser, test_row: Test, django_capture_on_commit_callbacks: Any
) -> None:
    # One line in 2001 among 2023's (times before 2000 are bad lines already): laid out per second, the summary's
    # RPS series was 7 * 10^8 seconds long and took every gigabyte of the worker that ingested it.
    body = (_phout_line(1_000_000_000.0) + "".join(_phout_line(1_700_000_000 + i / 10) for i in range(50))).encode()
    api = owner.client()
    with django_capture_on_commit_callbacks(execute=True):
        answer = api.generic("PUT", f"/api/v1/tests/{test_row.pk}/phout", body, content_type="text/plain")  # type: ignore[arg-type]
    assert answer.status_code == 202, answer.content
    upload = final_upload(int(answer.json()["upload_id"]))
    assert upload.status == UploadStatus.FAILED, (upload.lines_bad, upload.bad_examples, upload.lines_total)
    assert "2001-09-09 01:46:40 UTC" in upload.error and "longer than a test may last (31 days)" in upload.error
    assert api.get(f"/api/v1/tests/{test_row.pk}/summary").status_code == 200
