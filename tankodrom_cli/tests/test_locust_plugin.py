"""The Locust listener (tankodrom_cli/locust_plugin.py) with the real Locust (a dev dependency) against a local target,
sending to a live server (the production entry; real PostgreSQL, ClickHouse, Redis; the buffer flushed every second
as the beat does; Celery inline).

One run: online while Locust runs (its seconds shown as they pass), stopped from the web (Locust quits long before
its -t), and exact: every request of the listener's own record stored, the quantiles order statistics of its times.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from analytics.phout import PhoutParser
from backend.loadtests.models import Test, TestStatus, UploadStatus
from backend.testing import BeatFlusher, LiveASGIServer, QuietHandler, TokenUser, serving_http
from tankodrom_cli.locust_record import case_of, net_code_of

LOCUSTFILE = """
import tankodrom_cli.locust_plugin  # noqa: F401
from locust import HttpUser, constant, task


class Shopper(HttpUser):
    wait_time = constant(0.01)

    @task(4)
    def items(self):
        self.client.get("/items")

    @task(1)
    def missing(self):
        self.client.get("/missing#top", name="missing page#top")
"""
RUN_LIMIT_S = 40  # Locust's -t: the stop from the web must end it long before


class _Target(QuietHandler):
    def do_GET(self) -> None:
        self.answer(200 if self.path == "/items" else 404, b'{"items": [1, 2, 3]}')


def test_a_failures_net_code_and_a_case_with_a_hash_survive_phout() -> None:
    assert net_code_of(ConnectionRefusedError("[Errno 111] Connection refused"), 0) == 111
    assert net_code_of(TimeoutError("timed out"), 0) == 110 and net_code_of(ValueError("x"), 200) == 999
    assert net_code_of(ValueError("500 Server Error"), 500) == 0 and net_code_of(None, 0) == 0
    assert case_of("GET", "/a\tb") == "GET /a b" and case_of("GET", "/a#b") == "GET /a#b#"


def wait_for(condition: Callable[[], object], timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"waited {timeout_s} s for {what}"
        time.sleep(0.05)


def test_a_real_locust_run_is_online_stopped_from_the_web_and_exact(
    live_asgi: LiveASGIServer, live_user: TokenUser, tmp_path: Path
) -> None:
    locustfile = tmp_path / "locustfile.py"
    locustfile.write_text(LOCUSTFILE)
    record = tmp_path / "requests.phout"
    api = live_user.client()
    with serving_http(_Target) as target, BeatFlusher(period_s=1.0):
        started = time.monotonic()
        locust = subprocess.Popen(
            [sys.executable, "-m", "locust", "-f", str(locustfile), "--headless", "-u", "4", "-r", "4",
             "-t", f"{RUN_LIMIT_S}s", "--host", target, "--only-summary", "--tankodrom-url", live_asgi.url,
             "--tankodrom-token", live_user.raw_token, "--tankodrom-name", "locust live",
             "--tankodrom-component", "shop", "--tankodrom-record", str(record)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        )  # fmt: skip
        try:
            wait_for(lambda: Test.objects.filter(name="locust live").exists(), 30, "the test")
            test = Test.objects.get(name="locust live")
            # Online while Locust runs: three of its seconds shown.
            shown = lambda: api.get(f"/api/v1/tests/{test.pk}/").json()  # noqa: E731
            wait_for(lambda: (shown()["last_ts"] or 0) - (shown()["first_ts"] or 0) >= 2, 20, "3 seconds online")
            assert shown()["status"] == TestStatus.ONLINE and locust.poll() is None
            online = api.get(f"/api/v1/tests/{test.pk}/summary").json()
            assert online["exact"] is False and online["count"] > 0
            assert api.post(f"/api/v1/tests/{test.pk}/stop").status_code == 202
            output, _ = locust.communicate(timeout=60)
        finally:
            if locust.poll() is None:
                locust.kill()
    assert time.monotonic() - started < RUN_LIMIT_S / 2, output.decode()[-3000:]  # quit by the stop
    assert f"{live_asgi.url}/{test.pk}" in output.decode(), output.decode()[-3000:]
    wait_for(lambda: Test.objects.get(pk=test.pk).status == TestStatus.READY, 30, "the test ready")
    test.refresh_from_db()
    assert test.exit_reason == "stopped from the web" and test.component == "shop"
    assert test.active_upload is not None and test.active_upload.status == UploadStatus.READY

    # Exact: the listener's own record, request by request.
    parser = PhoutParser()
    batches = parser.feed(record.read_bytes()) + parser.finish()
    times_ms = np.sort(np.concatenate([b.interval_real_us for b in batches]) / 1000)
    assert parser.stats.lines_bad == 0 and test.active_upload.lines_total == times_ms.size
    summary = api.get(f"/api/v1/tests/{test.pk}/summary", {"q": "50,95,99"}).json()
    assert summary["exact"] is True and summary["count"] == times_ms.size
    for level in ("50", "95", "99"):
        lower = float(np.percentile(times_ms, float(level), method="lower"))
        higher = float(np.percentile(times_ms, float(level), method="higher"))
        assert lower <= summary["quantiles_ms"][level] <= higher
    report = api.get(f"/api/v1/tests/{test.pk}/report").json()
    names = {c if isinstance(c, str) else c["name"] for c in report["cases"]}
    assert {"GET /items", "GET missing page#top"} <= names
    assert set(summary["http_codes"]) == {"200", "404"}
    load = api.get(f"/api/v1/tests/{test.pk}/charts/instances_rps").json()
    assert max(v for v in load["figure"]["data"][0]["x"] if v is not None) == 4  # Locust's users
    assert record.exists()  # the record is the user's: it stays where asked
