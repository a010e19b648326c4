"""The real client end to end: yandextank 2.0.11 shoots a local target and uploads to this server's live instance.

A cached virtualenv (var/ytvenv) holds yandextank 2.0.11 with pandas<2 (its BFG crashes on pandas 2) and
setuptools (it imports pkg_resources). A short BFG test (line 1→20 rps over 8 s, then 20 rps for 6 s; cases index,
search, missing = 404, errors = 500 every other time, one untagged line) runs against a tiny HTTP target on
127.0.0.1, with monitoring from a stand-in telegraf, and `overload:` pointed at a live server running the production
entry (backend.asgi under uvicorn: the push fast path on the event loop, Django behind it, as gunicorn serves it).
A thread drains the buffer every half second, as the beat does in production. Then everything stored is compared
with the tank's own artifacts: test_data.log (the aggregates it uploaded) and monitoring.log.
The second test replays `tank-postloader` on the same artifacts into a new job and checks the same figures.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from django.conf import settings
from django.db import connection as pg_connection

from backend.clickhouse import client as ch
from backend.clickhouse.tables import monitoring, second_aggregates
from backend.loadtests.models import Test
from backend.loadtests.models import TestStatus as Status
from backend.loadtests.tokens import create_token
from backend.tankapi import flush
from backend.testing import BackgroundThread, BeatFlusher, LiveASGIServer, QuietHandler, clear_push_caches, serving_http

YANDEXTANK = ["yandextank==2.0.11", "pandas<2", "setuptools"]
E2E_DIR = Path(__file__).parent / "e2e"

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("clickhouse", "redis_db")]


@pytest.fixture(scope="session")
def tank_venv() -> Path:
    """var/ytvenv with yandextank installed once and reused (a marker file says the install completed)."""
    venv = Path(settings.VAR_DIR) / "ytvenv"
    ready = venv / ".ready"
    venv.parent.mkdir(parents=True, exist_ok=True)
    with open(venv.parent / "ytvenv.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two sessions at once must not build it twice
        if not ready.exists():
            shutil.rmtree(venv, ignore_errors=True)
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
            subprocess.run([str(venv / "bin" / "pip"), "install", "-q", *YANDEXTANK], check=True, timeout=900)
            ready.write_text(" ".join(YANDEXTANK))
    return venv


class _Target(QuietHandler):
    """200 for most paths, 404 for /missing, 500 for every other /error."""

    errors_seen = 0
    lock = threading.Lock()

    def do_GET(self) -> None:
        status = 200
        if self.path.startswith("/missing"):
            status = 404
        elif self.path.startswith("/error"):
            with _Target.lock:
                _Target.errors_seen += 1
                status = 500 if _Target.errors_seen % 2 else 200
        self.answer(status, b"hello from the target\n")


@pytest.fixture
def target() -> Iterator[str]:
    with serving_http(_Target) as url:
        yield url


@pytest.fixture
def live_app(transactional_db: None) -> Iterator[LiveASGIServer]:
    """The production entry under uvicorn (backend.testing.LiveASGIServer); `.fast_paths` lists the paths the push
    fast path served."""
    with LiveASGIServer() as server:
        yield server


def _overload_section(work: Path, api: str) -> str:
    return f"""overload:
  enabled: true
  package: yandextank.plugins.DataUploader
  api_address: {api}/
  token_file: {work}/token.txt
  job_name: real tank
  job_dsc: yandextank 2.0.11 against the live server
  ver: "2.0.11"
  component: tankapi-e2e
  operator: tester
  task: E2E-1
  api_attempts: 10
  api_timeout: 1
  network_attempts: 10
  network_timeout: 1
  maintenance_attempts: 3
  maintenance_timeout: 1
  connection_timeout: 10
"""


README = Path(__file__).resolve().parents[3] / "README.md"
README_ADDRESS = "http://lunapark:TOKEN@HOST:8000/"


def _readme_section(api: str, token: str) -> str:
    """The uploader section the README recommends (its first YAML block under "Point a tank at it"), pointed at
    this server with this token: the test runs what users are told to write."""
    text = README.read_text()
    after = text[text.index("## Point a tank at it") :]
    block = after[after.index("```yaml\n") + len("```yaml\n") :]
    section = block[: block.index("```")]
    assert README_ADDRESS in section, "the README's recommended section no longer has the address this test fills"
    host = api.removeprefix("http://")
    return section.replace(README_ADDRESS, f"http://lunapark:{token}@{host}/")


def fake_telegraf(work: Path, venv: Path) -> Path:
    """The stand-in telegraf (e2e/fake_telegraf.py) as an executable in `work`, run by the tank venv's python."""
    telegraf = work / "telegraf"
    telegraf.write_text(f"#!{venv / 'bin' / 'python'}\n" + (E2E_DIR / "fake_telegraf.py").read_text())
    telegraf.chmod(0o755)
    return telegraf


def tank_yaml(work: Path, uploader: str, target_url: str, schedule: str, instances: int, extra: str = "") -> str:
    """A yandex-tank config: its files under `work`, the `uploader` section(s), BFG shooting work/ammo.txt at
    `target_url` on `schedule`, telegraf with work/mon.xml, `extra` plugins, the JSON report the tests read back."""
    return f"""
core:
  artifacts_base_dir: {work}/logs
  lock_dir: {work}
{uploader}phantom:
  enabled: false
  package: yandextank.plugins.Phantom
bfg:
  enabled: true
  package: yandextank.plugins.Bfg
  instances: {instances}
  gun_type: http
  gun_config:
    base_address: {target_url}
  ammofile: {work}/ammo.txt
  ammo_type: caseline
  load_profile:
    load_type: rps
    schedule: {schedule}
telegraf:
  enabled: true
  package: yandextank.plugins.Telegraf
  config: {work}/mon.xml
  disguise_hostnames: false
{extra}console:
  enabled: false
  package: yandextank.plugins.Console
json_report:
  enabled: true
  package: yandextank.plugins.JsonReport
  monitoring_log: monitoring.log
  test_data_log: test_data.log
"""


def _tank_config(
    work: Path,
    api: str,
    target_url: str,
    venv: Path,
    schedule: str = "line(1, 20, 8s) const(20, 6s)",
    uploader: str | None = None,
) -> Path:
    telegraf = fake_telegraf(work, venv)
    (work / "mon.xml").write_text(
        "<Monitoring>\n"
        f'  <Host address="localhost" interval="1" telegraf="{telegraf}" python="{venv / "bin" / "python"}"'
        ' comment="stand-in telegraf">\n    <CPU/><System/><Memory/><Net/><Kernel/>\n  </Host>\n</Monitoring>\n'
    )
    (work / "ammo.txt").write_text(
        "index\t/\nindex\t/index.html\nsearch\t/search?q=tank\nmissing\t/missing/page\nerrors\t/error/maybe\n/untagged\n"
    )
    config = tank_yaml(
        work,
        uploader or _overload_section(work, api),
        target_url,
        schedule,
        instances=4,
        extra="autostop:\n  enabled: true\n  package: yandextank.plugins.Autostop\n  autostop:\n    - time(5s, 10s)\n",
    )
    path = work / "load.yaml"
    path.write_text(config)
    return path


def tank_env() -> dict[str, str]:
    """This process's environment without this venv's and Django's variables: the tank's venv runs on its own."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO", "PYTHON", "VIRTUAL_ENV"))}


def run_logged(cmd: list[str], work: Path, log_name: str, timeout_s: int = 240) -> str:
    """Run `cmd` in `work` outside this venv (its output in work/`log_name`); its output, or fail with its tail."""
    env = tank_env()
    log = work / log_name
    with open(log, "w") as out:
        proc = subprocess.run(cmd, cwd=work, stdout=out, stderr=subprocess.STDOUT, env=env, timeout=timeout_s)
    text = log.read_text()
    assert proc.returncode == 0, f"{cmd[0]} exited {proc.returncode}:\n" + text[-6000:]
    return text


def _tank_seconds(artifacts: Path) -> dict[tuple[int, str], tuple[int, dict[int, int], dict[int, int]]]:
    """(second, case) -> (responses, HTTP codes, net codes) from the tank's test_data.log ('' = overall)."""
    seconds = {}
    for line in (artifacts / "test_data.log").read_text().splitlines():
        data = json.loads(line)["data"]
        blocks = {"": data["overall"], **{("__NOTAG__" if tag == "" else tag): b for tag, b in data["tagged"].items()}}
        for case, block in blocks.items():
            http = {int(k): int(v) for k, v in block["proto_code"]["count"].items()}
            net = {int(k): int(v) for k, v in block["net_code"]["count"].items()}
            seconds[(int(data["ts"]), case)] = (int(block["interval_real"]["len"]), http, net)
    return seconds


def _stored_seconds(job: int) -> dict[tuple[int, str], tuple[int, dict[int, int], dict[int, int]]]:
    rows = ch.execute(
        f"SELECT ts, case, resps, http_codes, http_counts, net_codes, net_counts, arraySum(hist_counts)"
        f" FROM {second_aggregates.NAME} FINAL WHERE test_id = %(t)s AND source_id = 0",
        {"t": job},
        tag="tests.tankapi.e2e.seconds",
    )
    for row in rows:
        assert row[7] == row[2], f"histogram of {row[:2]} counts {row[7]} of {row[2]} responses"
    return {(r[0], r[1]): (r[2], dict(zip(r[3], r[4], strict=True)), dict(zip(r[5], r[6], strict=True))) for r in rows}


def _tank_monitoring(artifacts: Path) -> dict[tuple[int, str, str], float]:
    points = {}
    for line in (artifacts / "monitoring.log").read_text().splitlines():
        for chunk in json.loads(line):
            for host, block in chunk["data"].items():
                for metric, value in block["metrics"].items():
                    points[(int(chunk["timestamp"]), host, metric)] = float(value)
    return points


def _stored_monitoring(job: int) -> dict[tuple[int, str, str], float]:
    rows = ch.execute(
        f"SELECT ts, host, metric, value FROM {monitoring.NAME} FINAL WHERE test_id = %(t)s",
        {"t": job},
        tag="tests.tankapi.e2e.monitoring",
    )
    return {(r[0], r[1], r[2]): r[3] for r in rows}


_ARTIFACTS: list[Path] = []  # the first test's artifacts, replayed by the second


def _shoot(live_app: Any, target_url: str, venv: Path, work: Path, token: str) -> tuple[int, Path, str]:
    (work / "token.txt").write_text(token + "\n")
    config = _tank_config(work, live_app.url, target_url, venv)
    with BeatFlusher() as beat:
        output = run_logged([str(venv / "bin" / "yandex-tank"), "-c", str(config), "-n"], work, "tank_stdout.log")
    flush.flush_all()
    assert not beat.errors
    job = _job_from(output)
    (artifacts,) = [p.parent for p in (work / "logs").glob("*/test_data.log")]
    return job, artifacts, output


def _job_from(output: str) -> int:
    links = [line.rsplit("/", 1)[-1].strip() for line in output.splitlines() if "Web link:" in line]
    assert links, "the tank printed no web link"
    return int(links[-1])


def _tank_user(username: str) -> tuple[Any, str]:
    """A new user and the raw tank token it shoots with (push's caches emptied: no earlier test's token is known)."""
    clear_push_caches()
    from django.contrib.auth.models import User

    user = User.objects.create_user(username, password=f"x-not-used-{username}")
    _token, raw = create_token(user, "tank")
    return user, raw


@pytest.mark.django_db(transaction=True)
def test_real_tank_streams_a_test_that_matches_its_own_artifacts(
    live_app: Any, target: str, tank_venv: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    user, raw = _tank_user("tank-e2e")
    work = tmp_path_factory.mktemp("tank")
    job, artifacts, output = _shoot(live_app, target, tank_venv, work, raw)
    assert f"Web link: {live_app.url}/{job}" in output
    with urllib.request.urlopen(f"{live_app.url}/{job}", timeout=30) as page:  # the link opens the report page
        assert page.status == 200 and "text/html" in page.headers["Content-Type"]

    test = Test.objects.get(pk=job)
    assert test.owner == user
    assert (test.status, test.exit_code, test.exit_reason) == (Status.READY, 0, "completed")
    assert (test.name, test.component, test.version, test.task, test.person) == (
        "real tank",
        "tankapi-e2e",
        "2.0.11",
        "E2E-1",
        "tester",
    )
    assert "bfg:" in test.config_initial and "api_jobno" in test.config_info
    assert "stand-in telegraf" in test.config_monitoring

    expected = _tank_seconds(artifacts)
    stored = _stored_seconds(job)
    assert stored == expected
    cases = {case for _ts, case in stored}
    assert cases == {"", "index", "search", "missing", "errors"}
    codes = {code for _resps, http, _net in stored.values() for code in http}
    assert {200, 404, 500} <= codes
    assert test.has_stream and test.first_ts == min(ts for ts, _c in expected)
    assert test.last_ts == max(ts for ts, _c in expected)

    tank_points = _tank_monitoring(artifacts)
    assert len(tank_points) > 20 and {host for _ts, host, _m in tank_points} == {"localhost"}
    assert _stored_monitoring(job) == pytest.approx(tank_points)
    # Every push came through the fast path, as under gunicorn.
    assert {f"/api/job/{job}/push_data.json", "/api/monitoring/receiver/push"} <= set(live_app.fast_paths)
    _ARTIFACTS.append(artifacts)


@pytest.mark.django_db(transaction=True)
def test_tank_postloader_replays_the_artifacts_into_a_new_job(
    live_app: Any, target: str, tank_venv: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    user, raw = _tank_user("postloader")
    if _ARTIFACTS:
        artifacts = _ARTIFACTS[0]
    else:  # run alone: shoot first (the replay needs a real run's artifacts)
        _job, artifacts, _out = _shoot(live_app, target, tank_venv, tmp_path_factory.mktemp("tank"), raw)
    work = tmp_path_factory.mktemp("postloader")
    token_file = work / "token.txt"
    token_file.write_text(raw + "\n")
    with BeatFlusher():
        output = run_logged(
            [
                str(tank_venv / "bin" / "tank-postloader"),
                "-a",
                live_app.url + "/",
                "--token",
                str(token_file),
                "-t",
                "127.0.0.1:8080",
                "--job_name",
                "replayed",
                str(artifacts),
            ],
            work,
            "postloader.log",
        )
    flush.flush_all()
    links = [line for line in output.splitlines() if "LP job created:" in line]
    assert links, output[-3000:]
    job = int(links[-1].rsplit("/", 1)[-1])
    test = Test.objects.get(pk=job)
    assert (test.owner, test.name, test.status, test.exit_code) == (user, "replayed", Status.READY, 0)
    assert (test.target_host, test.target_port) == ("127.0.0.1", "8080")
    assert _stored_seconds(job) == _tank_seconds(artifacts)
    assert _stored_monitoring(job) == pytest.approx(_tank_monitoring(artifacts))
    assert f"/api/job/{job}/push_data.json" in live_app.fast_paths


class _StopFromTheWeb(BackgroundThread):
    """Asks the stop of the tank's test from the web (POST /api/v1/tests/<id>/stop, as the report page's button) once
    the stream has stored a few seconds of it, and notes when."""

    def __init__(self, base_url: str, raw_token: str) -> None:
        super().__init__()
        self.base_url, self.raw_token = base_url, raw_token
        self.answer: tuple[int, Any] | None = None
        self.stored_before: int = 0

    def _run(self) -> None:
        try:
            while not self.stop.wait(0.3):
                test = Test.objects.filter(has_stream=True, status=Status.ONLINE, last_ts__isnull=False).first()
                if test is None or test.last_ts is None or test.first_ts is None or test.last_ts - test.first_ts < 3:
                    continue
                self.stored_before = test.last_ts - test.first_ts + 1
                answer = requests.post(
                    f"{self.base_url}/api/v1/tests/{test.pk}/stop",
                    headers={"Authorization": f"Token {self.raw_token}"},
                    timeout=30,
                )
                self.answer = (answer.status_code, answer.json())
                return
        finally:
            pg_connection.close()


@pytest.mark.django_db(transaction=True)
def test_a_stop_from_the_web_ends_the_tanks_upload(
    live_app: Any, target: str, tank_venv: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The tank's next push after the stop is answered 410 (StoppedFromOnline): yandex-tank 2.0.11 in `overload:`
    mode then ends its data and monitoring uploads ("Lunapark is rejecting ... data") and no second after the stop
    is stored. Its shooting goes on to the end of its schedule (only the Lunapark-mode status call, answered 410 too,
    makes it end the shooting: DataUploader's `send_status` does nothing in overload mode), then its close records
    the reason."""
    _user, raw = _tank_user("tank-stop")
    work = tmp_path_factory.mktemp("tank-stop")
    (work / "token.txt").write_text(raw + "\n")
    config = _tank_config(work, live_app.url, target, tank_venv, schedule="const(10, 16s)")
    with BeatFlusher() as beat, _StopFromTheWeb(live_app.url, raw) as stop:
        output = run_logged([str(tank_venv / "bin" / "yandex-tank"), "-c", str(config), "-n"], work, "tank_stdout.log")
    flush.flush_all()
    assert not beat.errors
    job = _job_from(output)
    assert stop.answer == (202, {"id": job, "status": "stopping"})
    assert "Lunapark is rejecting Data Uploader data" in output
    test = Test.objects.get(pk=job)
    assert (test.status, test.exit_reason) == (Status.READY, "stopped from the web")
    (artifacts,) = [p.parent for p in (work / "logs").glob("*/test_data.log")]
    shot = {ts for ts, _case in _tank_seconds(artifacts)}
    stored = {ts for ts, _case in _stored_seconds(job)}
    assert stored < shot and len(shot) >= 14  # it shot to the end, what came after the stop was refused
    assert len(stored) <= stop.stored_before + 3  # the pushes in flight when the stop came, at most


@pytest.mark.django_db(transaction=True)
def test_a_stop_from_the_web_ends_the_shooting_in_the_readmes_recommended_config(
    live_app: Any, target: str, tank_venv: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The README's recommended `uploader:` section (Lunapark mode, the token as Basic auth in the address): Stop
    pressed 10 s into a 60 s schedule ends the tank process within 15 s with its "stopped from the web" exit code
    (8), through its status call answered 410."""
    user, raw = _tank_user("tank-lunapark")
    work = tmp_path_factory.mktemp("tank-lunapark")
    config = _tank_config(
        work, live_app.url, target, tank_venv, schedule="const(10, 60s)", uploader=_readme_section(live_app.url, raw)
    )
    env = tank_env()
    with BeatFlusher() as beat, open(work / "tank_stdout.log", "w") as out:
        tank = subprocess.Popen(
            [str(tank_venv / "bin" / "yandex-tank"), "-c", str(config), "-n"],
            cwd=work,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )
        try:
            test = None
            deadline = time.monotonic() + 60
            while test is None or test.first_ts is None:  # the first second of the shooting, stored
                assert tank.poll() is None, (work / "tank_stdout.log").read_text()[-4000:]
                assert time.monotonic() < deadline, "no second of the test stored within 60 s"
                time.sleep(0.2)
                test = Test.objects.filter(owner=user).first()
            time.sleep(max(0.0, test.first_ts + 10 - time.time()))  # 10 s into the schedule
            answer = requests.post(
                f"{live_app.url}/api/v1/tests/{test.pk}/stop", headers={"Authorization": f"Token {raw}"}, timeout=30
            )
            stopped_at = time.monotonic()
            assert answer.status_code == 202, answer.text
            rc = tank.wait(timeout=40)
            took_s = time.monotonic() - stopped_at
        finally:
            if tank.poll() is None:
                tank.kill()
                tank.wait()
    output = (work / "tank_stdout.log").read_text()
    assert rc == 8, f"yandex-tank exited {rc}:\n{output[-6000:]}"
    assert took_s <= 15, f"the tank ended {took_s:.1f} s after the stop"
    assert "Test stopped from Lunapark" in output
    assert f"Web link: http://lunapark:{raw}@" in output  # the mode the README's address picks
    flush.flush_all()
    assert not beat.errors
    test.refresh_from_db()
    assert (test.status, test.exit_code, test.exit_reason) == (Status.READY, 8, "stopped from the web")
    assert raw not in test.config_initial + test.config_info  # the token in the address is not kept
    assert "http://lunapark:***@" in test.config_initial
    (artifacts,) = [p.parent for p in (work / "logs").glob("*/test_data.log")]
    shot = {ts for ts, _case in _tank_seconds(artifacts)}
    assert len(shot) <= 10 + 15 + 2  # the shooting ended long before the schedule's 60 s
