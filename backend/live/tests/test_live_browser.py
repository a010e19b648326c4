"""Done-when of the online pages: a browser (headless Chromium, frontend/e2e/live.watch.mjs) watches a real
yandex-tank run's report page and sees each new second within 2 s of the tank's push, through a reconnect forced in
the middle (the server closes every stream; the browser resumes after its Last-Event-ID, without a gap). Push times
are taken where the server receives them, arrival times in the page as its EventSource dispatches each event; both
are this machine's clock. The same run takes the online page's screenshots at 1440 and 390 px.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson
import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import connection

from backend.loadtests.models import Test
from backend.loadtests.tokens import create_token
from backend.tankapi.tests.test_real_tank import _readme_section, _tank_config
from backend.testing import clear_push_caches

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("clickhouse", "redis_db")]

FRONTEND = Path(__file__).resolve().parents[3] / "frontend"
MAX_DELAY_S = 2.0


# The Celery beat's flush, every second as in production, in a process of its own (as the worker is): in this test
# process it would share the interpreter's lock with the server, the tank's threads and the flush's own I/O.
_FLUSHER = """
import time, django
django.setup()
from backend.tankapi import flush
while True:
    flush.flush_all(max_seconds=5)
    time.sleep(1.0)
"""


def _flusher() -> subprocess.Popen[bytes]:
    db = connection.settings_dict
    url = f"postgres://{db['USER']}:{db['PASSWORD'] or ''}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "backend.settings_test", "DATABASE_URL": url}
    return subprocess.Popen([sys.executable, "-c", _FLUSHER], cwd=FRONTEND.parent, env=env)


def _pushed_seconds(pushes: list[tuple[float, str, bytes]], job: int) -> dict[int, float]:
    """Each second of the job's push_data, with when the server got it (the first time)."""
    seconds: dict[int, float] = {}
    for at, path, body in pushes:
        if path == f"/api/job/{job}/push_data.json":
            for item in orjson.loads(body):
                seconds.setdefault(int(item["trail"]["time"]), at)
    return seconds


@pytest.fixture(scope="session")
def current_bundle() -> None:
    """The built frontend collected where the server's WhiteNoise serves it from (it indexes the files at start)."""
    assert (FRONTEND / "dist" / "index.html").exists(), "build the frontend first (cd frontend && npm run build)"
    call_command("collectstatic", "--noinput", verbosity=0)


@pytest.mark.django_db(transaction=True)
def test_a_browser_sees_each_second_within_2_s_of_its_push_through_a_reconnect(
    current_bundle: None, live_app: Any, target: str, tank_venv: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    if shutil.which("node") is None or not Path(os.environ.get("CHROMIUM", "/usr/bin/chromium")).exists():
        pytest.fail("node and Debian's chromium are needed (make setup installs both)")
    clear_push_caches()
    user = User.objects.create_user("live-watch", password="x-not-used-9")
    _token, raw = create_token(user, "tank")
    work = tmp_path_factory.mktemp("tank-live")
    section = _readme_section(live_app.url, raw)
    config = _tank_config(work, live_app.url, target, tank_venv, schedule="const(10, 24s)", uploader=section)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO", "PYTHON", "VIRTUAL_ENV"))}
    out, stop_file = work / "watched.json", work / "stop"
    shots = Path(settings.VAR_DIR) / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    hub = live_app.door.live.hub
    flusher = _flusher()
    with open(work / "tank_stdout.log", "w") as log:
        tank = subprocess.Popen(
            [str(tank_venv / "bin" / "yandex-tank"), "-c", str(config), "-n"], cwd=work, stdout=log, stderr=log, env=env
        )
        watcher = None
        try:
            deadline = time.monotonic() + 60
            while (test := Test.objects.filter(owner=user).first()) is None:
                assert tank.poll() is None and time.monotonic() < deadline, (work / "tank_stdout.log").read_text()
                time.sleep(0.2)
            page = [live_app.url, str(test.pk), str(out), str(stop_file), str(shots / "live")]
            watcher = subprocess.Popen(["node", "e2e/live.watch.mjs", *page], cwd=FRONTEND)
            while test.first_ts is None or time.time() < test.first_ts + 12:  # the middle of the schedule
                assert tank.poll() is None, (work / "tank_stdout.log").read_text()[-4000:]
                time.sleep(0.2)
                test.refresh_from_db()
            watchers = hub.watching()
            loop = hub.reader.get_loop() if hub.reader else None
            assert watchers >= 1 and loop is not None, "the page does not watch the test's channel"
            loop.call_soon_threadsafe(hub.close_all)  # every stream ends: the browsers reconnect
            assert tank.wait(timeout=120) == 0, (work / "tank_stdout.log").read_text()[-4000:]
            time.sleep(2)
        finally:
            stop_file.touch()
            if watcher is not None:
                watcher.wait(timeout=60)
            if tank.poll() is None:
                tank.kill()
            flusher.kill()
            flusher.wait()
    watched = json.loads(out.read_text())
    assert watched["errors"] == []
    assert watched["opens"] >= 2, "the page's channel was not reconnected"
    pushed = _pushed_seconds(live_app.pushes, test.pk)
    ids = [event["id"] for event in watched["events"]]
    assert ids == list(range(ids[0], ids[0] + len(ids))), f"events lost or repeated across the reconnect: {ids}"
    events = [event for event in watched["events"] if event["kind"] == "second"]
    seen: dict[int, float] = {}
    for event in events:
        seen.setdefault(event["ts"], event["at_ms"] / 1000)
    watching_from = events[0]["at_ms"] / 1000
    expected = sorted(ts for ts, at in pushed.items() if at > watching_from)
    assert len(expected) >= 15
    delays = {ts: seen[ts] - pushed[ts] for ts in expected if ts in seen}
    assert sorted(delays) == expected, f"seconds never seen: {sorted(set(expected) - set(delays))}"
    ordered = sorted(delays.values())
    print(f"\nseen after the push, s: median {ordered[len(ordered) // 2]:.2f}, max {ordered[-1]:.2f}", end=" ")
    print(f"({len(delays)} seconds, {watched['opens']} connections)")
    late = {ts: round(delay, 2) for ts, delay in delays.items() if delay > MAX_DELAY_S}
    assert not late, f"seen later than {MAX_DELAY_S} s after the push: {late}"
    assert watched["shown"][-1]["ts"] == max(pushed)  # the header ends on the last second
