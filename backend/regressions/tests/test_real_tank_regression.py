"""The issue's "done when" with the real client: yandextank 2.0.11 shoots a local target twice and uploads to a
live server (the production entry) whose post-processing, diagnosis and notifications run on a real Celery worker.
The second run's target answers 80 ms slower. Right after that run, `tankodrom check` waits for the
post-processing and exits 1 with the reason; the dashboard shows the run past its threshold; a webhook receiver on
127.0.0.1 gets the regression with the report link, and the tank's `notify:` user gets both runs' news.
Slow: two tank runs and a worker (about a minute and a half)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from backend.loadtests.models import Test, TestStatus
from backend.notify.tests.receivers import Receiver
from backend.projects.models import Role
from backend.tankapi.tests.test_real_tank import _job_from, _tank_config, run_logged, tank_venv  # noqa: F401
from backend.testing import (
    BeatFlusher,
    LiveASGIServer,
    QuietHandler,
    WorkerProcess,
    clear_push_caches,
    grant,
    make_token_user,
    serving_http,
    worker_env,
)
from tankodrom_cli.main import main

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("clickhouse", "redis_db")]
COMPONENT = "tankapi-e2e"  # what _tank_config's overload section says


class _SlowableTarget(QuietHandler):
    delay_s = 0.0

    def do_GET(self) -> None:
        time.sleep(_SlowableTarget.delay_s)
        self.answer(404 if self.path.startswith("/missing") else 200, b"ok\n")


@pytest.fixture
def slowable_target() -> Iterator[str]:
    _SlowableTarget.delay_s = 0.0
    with serving_http(_SlowableTarget) as url:
        yield url


@pytest.fixture
def stack(transactional_db: None, settings: Any, tmp_path: Path) -> Iterator[tuple[LiveASGIServer, WorkerProcess]]:
    clear_push_caches()
    with LiveASGIServer() as live:
        settings.PUBLIC_URL = live.url
        worker = WorkerProcess(env=worker_env(TANKODROM_PUBLIC_URL=live.url), log_path=tmp_path / "worker.log")
        worker.start()
        try:
            yield live, worker
        finally:
            worker.stop()


def shoot(live: LiveASGIServer, target: str, venv: Path, work: Path, token: str, notify: str) -> int:
    work.mkdir()
    (work / "token.txt").write_text(token + "\n")
    config = _tank_config(work, live.url, target, venv)
    text = config.read_text().replace(
        f"  component: {COMPONENT}\n", f"  component: {COMPONENT}\n  notify: [{notify}]\n"
    )
    config.write_text(text)
    with BeatFlusher() as beat:
        output = run_logged([str(venv / "bin" / "yandex-tank"), "-c", str(config), "-n"], work, "tank_stdout.log")
    assert not beat.errors
    return _job_from(output)


def wait_for(what: str, done: Any, worker: WorkerProcess, timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while not done():
        if time.monotonic() > deadline:
            log = worker.log_path.read_text() if worker.log_path else ""
            pytest.fail(f"{what} not within {timeout_s:g} s; worker log:\n{log[-4000:]}")
        time.sleep(0.5)


def test_a_real_tank_run_that_regresses_fails_the_gate_and_is_announced(
    stack: tuple[LiveASGIServer, WorkerProcess],
    slowable_target: str,
    tank_venv: Path,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    live, worker = stack
    owner = make_token_user("tank-owner")
    grant(owner.user, Role.MAINTAINER)  # the baseline and thresholds are a maintainer's
    user, token, http = owner.user, owner.raw_token, owner.session()
    api = f"{live.url}/api/v1/components/{COMPONENT}"

    with Receiver() as rx:
        mine = {"kind": "slack", "name": "my chat", "url": f"{rx.url}/mine"}  # the tank's notify: names its owner
        assert http.post(f"{live.url}/api/v1/notify/targets/", json=mine).status_code == 201
        # `notify:` reaches a member who allows it for the project (issue 29): she does.
        allowed = http.patch(f"{live.url}/api/v1/projects/default/membership/", json={"tank_notify": True})
        assert allowed.status_code == 200, allowed.text
        hook = {"kind": "webhook", "name": "release channel", "url": f"{rx.url}/hook", "for_tank_notify": False}
        hook_id = http.post(f"{live.url}/api/v1/notify/targets/", json=hook).json()["id"]

        good = shoot(live, slowable_target, tank_venv, tmp_path / "good", token, user.username)
        wait_for(
            "the first run's post-processing", lambda: Test.objects.get(pk=good).status == TestStatus.READY, worker
        )
        # Owning a test of the component gives a say in it: its subscriptions, baseline and KPIs.
        sub = http.post(f"{api}/subscriptions/", json={"target": hook_id, "events": ["regression_found"]})
        assert sub.status_code == 201
        assert http.post(f"{api}/baseline", json={"test": good}).status_code == 200
        kpis = {"kpis": [{"kpi": "q99", "threshold": {"kind": "relative", "value": 50}}, {"kpi": "max_rps"}]}
        assert http.put(f"{api}/kpis", json=kpis).status_code == 200

        _SlowableTarget.delay_s = 0.08
        bad = shoot(live, slowable_target, tank_venv, tmp_path / "bad", token, user.username)
        # Right after the tank: the test is still being processed, and the gate waits for it.
        code = main(["check", "--component", COMPONENT, "--test", str(bad), "--server", live.url, "--token", token])
        out, err = capsys.readouterr()
        assert code == 1, err
        reasons = out.strip().splitlines()
        assert reasons[0].startswith("q99: ") and "is above its threshold" in reasons[0], out
        assert f"FAILS component '{COMPONENT}' (baseline #{good}) {live.url}/{bad}" in err

        board = http.get(f"{api}/dashboard").json()
        q99 = {p["test_id"]: p for p in board["kpis"][0]["points"]}
        assert q99[bad]["past_threshold"] and not q99[good]["past_threshold"]
        assert q99[bad]["value"] > board["kpis"][0]["limit"]

        wait_for("the regression message", lambda: any(r.path == "/hook" for r in rx.got), worker)
        wait_for("the notify: messages", lambda: len([r for r in rx.got if r.path == "/mine"]) >= 2, worker)
        got = list(rx.got)
    (regression,) = [r.json() for r in got if r.path == "/hook"]
    assert (regression["event"], regression["test_id"]) == ("regression_found", bad)
    assert regression["url"] == f"{live.url}/{bad}"
    assert regression["lines"][0] == reasons[0]
    chat = [r.json()["text"] for r in got if r.path == "/mine"]
    assert any(text.startswith(f"Test #{bad} real tank ({COMPONENT}) finished: failed") for text in chat), chat
    assert any(text.endswith(f"{live.url}/{good}") for text in chat), chat
