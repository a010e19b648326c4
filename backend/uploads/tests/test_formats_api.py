"""Other generators' result files end to end: the CLI and the API upload them, the report, tables, compare and
diagnosis read them (the live production entry; real PostgreSQL, ClickHouse and Redis; Celery inline)."""

from __future__ import annotations

import gzip
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from analytics.formats.tests.gatling_binary_writer import VERSIONS, sample_run
from backend.diagnosis.tasks import diagnose_test
from backend.loadtests.models import Test, Upload, UploadStatus
from backend.testing import LiveASGIServer, TokenUser, free_port
from backend.uploads.models import UploadFormat
from tankodrom_cli.main import main

FIXTURES = Path(__file__).resolve().parents[3] / "analytics" / "formats" / "tests" / "fixtures"
LOCUSTFILE = FIXTURES / "locust" / "locustfile.py"


@pytest.fixture
def server(live_asgi: LiveASGIServer) -> LiveASGIServer:
    return live_asgi


@pytest.fixture
def account(live_user: TokenUser) -> tuple[User, str]:
    return live_user.user, live_user.raw_token


def api_of(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def cli_upload(server: Any, token: str, path: Path, *extra: str) -> Test:
    code = main(["upload", str(path), "--server", server.url, "--token", token, "--quiet", "--wait", *extra])
    assert code == 0
    return Test.objects.order_by("-id").first()  # type: ignore[return-value]


def api_upload(api: APIClient, test: Test, body: bytes, query: str = "") -> Any:
    return api.generic("PUT", f"/api/v1/tests/{test.pk}/results{query}", body, content_type="application/octet-stream")  # type: ignore[arg-type]


def check_readers(api: APIClient, a: Test, b: Test, *, exact: bool, cases: set[str]) -> None:
    """What a user opens: the report, its tables, the comparison of two runs, the diagnosis."""
    report = api.get(f"/api/v1/tests/{a.pk}/report").json()
    assert report["exact"] is exact
    assert cases <= {c if isinstance(c, str) else c["name"] for c in report["cases"]}
    tables = api.get(f"/api/v1/tests/{a.pk}/tables", {"q": "50,99"})
    assert tables.status_code == 200, tables.content
    summary = api.get(f"/api/v1/tests/{a.pk}/summary").json()
    assert summary["exact"] is exact and summary["count"] if "count" in summary else True
    compared = api.get("/api/v1/compare", {"tests": f"{a.pk},{b.pk}"})
    assert compared.status_code == 200, compared.content
    assert diagnose_test(int(a.pk))["status"] == "ready"
    analysis = api.get(f"/api/v1/tests/{a.pk}/analysis").json()
    assert analysis["status"] == "ready"
    for name in ("quantiles", "http_codes", "net_codes", "instances_rps"):
        assert api.get(f"/api/v1/tests/{a.pk}/charts/{name}").status_code == 200, name


@pytest.mark.parametrize(
    ("fixture", "format_name", "requests", "bad", "cases"),
    [
        ("jmeter_default.jtl", "jmeter-csv", 7, 0, {"GET /api/items", "POST /api/cart, add"}),
        ("jmeter.xml", "jmeter-xml", 6, 1, {"GET /api/items", "Checkout transaction"}),
        ("k6.json", "k6-json", 5, 0, {"cart add"}),
        ("k6.csv", "k6-csv", 5, 0, {"cart add"}),
        ("gatling_3_3.log", "gatling", 4, 0, {"request_1", "Checkout / Payment / pay"}),
        ("gatling_3_9.log", "gatling", 4, 1, {"request_1"}),
    ],
)
def test_each_sample_format_uploads_by_cli_and_api_and_reads_like_phout(
    server: Any, account: tuple[User, str], fixture: str, format_name: str, requests: int, bad: int, cases: set[str]
) -> None:
    _user, token = account
    path = FIXTURES / fixture
    a = cli_upload(server, token, path, "--format", format_name)
    upload = Upload.objects.get(test=a)
    assert upload.status == UploadStatus.READY, upload.error
    assert (upload.lines_total - upload.lines_bad, upload.lines_bad) == (requests, bad)
    assert UploadFormat.objects.get(upload=upload).detected == format_name
    # The same file, gzipped, through the neutral path, its format recognised from the content.
    api = api_of(token)
    b = Test.objects.create(owner=a.owner, name="second run")
    response = api_upload(api, b, gzip.compress(path.read_bytes()))
    assert response.status_code == 202, response.content
    status = api.get(f"/api/v1/tests/{b.pk}/uploads/{response.json()['upload_id']}/").json()
    assert (status["status"], status["format"], status["lines_bad"]) == ("ready", format_name, bad)
    check_readers(api, a, b, exact=True, cases=cases)


def test_bad_lines_are_named_as_for_phout(server: Any, account: tuple[User, str]) -> None:
    _user, token = account
    test = cli_upload(server, token, FIXTURES / "jmeter_subset_tab.jtl")
    upload = Upload.objects.get(test=test)
    assert (upload.status, upload.lines_total, upload.lines_bad) == (UploadStatus.READY, 5, 1)
    assert upload.bad_examples[0]["line"] == 5 and "maybe" in upload.bad_examples[0]["reason"]


def test_a_wrong_or_unknown_format_is_refused_with_json(server: Any, account: tuple[User, str]) -> None:
    user, token = account
    api = api_of(token)
    test = Test.objects.create(owner=user)
    unknown = api_upload(api, test, b"x", "?format=wrk")
    assert unknown.status_code == 400 and "format 'wrk' is not one of" in unknown.json()["error"]
    data = (FIXTURES / "jmeter_default.jtl").read_bytes()
    wrong = api_upload(api, test, data, "?format=k6-csv")
    assert wrong.status_code == 400 and "k6 CSV" in wrong.json()["error"]
    binary = api_upload(api, test, b"\x00\x00\x00\x00\x063.13.1" + bytes(range(256)) * 8)
    assert binary.status_code == 400 and "Gatling 3.13+ simulation.log is damaged" in binary.json()["error"]


@pytest.mark.parametrize("version", VERSIONS)
def test_gatling_binary_log_of_each_layout_version_uploads_exactly(
    server: Any, account: tuple[User, str], tmp_path: Path, version: str
) -> None:
    """A fixture per Gatling 3.13+ release line, written from the documented layout: recognised from its content,
    every request stored, its counts, codes and order-statistic quantiles those of the requests written."""
    data, expected, _users = sample_run(version)
    path = tmp_path / "simulation.log"
    path.write_bytes(data)
    _user, token = account
    test = cli_upload(server, token, path)
    upload = Upload.objects.get(test=test)
    assert upload.status == UploadStatus.READY, upload.error
    assert UploadFormat.objects.get(upload=upload).detected == "gatling-binary"
    assert (upload.lines_total, upload.lines_bad) == (len(expected), 0)
    summary = api_of(token).get(f"/api/v1/tests/{test.pk}/summary", {"q": "50,90,100"}).json()
    times_ms = sorted(e.interval_us / 1000 for e in expected)
    assert summary["exact"] is True and summary["count"] == len(expected)
    for level in ("50", "90", "100"):
        lower = float(np.percentile(times_ms, float(level), method="lower"))
        higher = float(np.percentile(times_ms, float(level), method="higher"))
        assert lower <= summary["quantiles_ms"][level] <= higher
    assert summary["http_codes"] == {"0": 2, "200": 7, "500": 1}
    assert summary["net_codes"] == {"0": 8, "110": 1, "111": 1}


def test_a_jtl_in_resumable_gzip_pieces_through_the_cli(server: Any, account: tuple[User, str], tmp_path: Path) -> None:
    _user, token = account
    path = tmp_path / "big.jtl.gz"
    lines = (FIXTURES / "jmeter_default.jtl").read_bytes().split(b"\n", 1)
    path.write_bytes(gzip.compress(lines[0] + b"\n" + lines[1] * 40))
    test = cli_upload(server, token, path, "--chunk-mb", "0.001")
    upload = Upload.objects.get(test=test)
    assert (upload.status, upload.lines_total, upload.lines_bad) == (UploadStatus.READY, 280, 0)


class _Target(BaseHTTPRequestHandler):
    """The service Locust loads: /items answers 200, anything else 404."""

    def do_GET(self) -> None:
        body = b'{"items": [1, 2, 3]}' if self.path == "/items" else b"not here"
        self.send_response(200 if self.path == "/items" else 404)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def test_locust_run_against_a_local_target_uploads_as_per_second_data(
    server: Any, account: tuple[User, str], tmp_path: Path
) -> None:
    """The real tool: Locust (a dev dependency) runs 8 s against a local target; its stats history is uploaded."""
    target = ThreadingHTTPServer(("127.0.0.1", free_port()), _Target)
    threading.Thread(target=target.serve_forever, daemon=True).start()
    try:
        run = subprocess.run(
            [sys.executable, "-m", "locust", "-f", str(LOCUSTFILE), "--headless", "-u", "5", "-r", "5", "-t", "8s",
             "--host", f"http://127.0.0.1:{target.server_port}", "--csv", str(tmp_path / "run"),
             "--csv-full-history", "--only-summary"],
            capture_output=True, timeout=60, check=False,
        )  # fmt: skip
    finally:
        target.shutdown()
    history = tmp_path / "run_stats_history.csv"
    assert history.is_file(), run.stderr.decode()[-2000:]
    _user, token = account
    a = cli_upload(server, token, history)
    upload = Upload.objects.get(test=a)
    assert upload.status == UploadStatus.READY, upload.error
    assert UploadFormat.objects.get(upload=upload).detected == "locust" and upload.lines_bad == 0
    api = api_of(token)
    b = Test.objects.create(owner=a.owner, name="committed locust run")
    assert api_upload(api, b, (FIXTURES / "locust" / "run_stats_history.csv").read_bytes()).status_code == 202
    check_readers(api, a, b, exact=False, cases={"GET /items", "GET missing page"})
    load = api.get(f"/api/v1/tests/{a.pk}/charts/instances_rps").json()
    assert max(v for v in load["figure"]["data"][0]["x"] if v is not None) == 5  # Locust's User Count
