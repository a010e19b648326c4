"""The issue's "done when", end to end on the production pieces: tests uploaded with the CLI into a live server
(uvicorn + the ASGI door), post-processing, diagnosis and notifications on a real Celery worker, a webhook
receiver on 127.0.0.1. A run that regresses against its component's baseline ends with the dashboard showing its
point past the threshold, `tankodrom check` exiting 1 with the reason, and the receiver holding a signed message
with the report link. Marked slow: a worker takes a few seconds to start."""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from backend.notify.tests.receivers import Receiver
from backend.projects.models import Role
from backend.regressions.tests.conftest import T0, phout_body
from backend.testing import LiveASGIServer, WorkerProcess, grant, make_token_user, worker_env
from tankodrom_cli.main import main


@pytest.fixture
def stack(
    transactional_db: None, clickhouse: None, redis_db: object, settings: Any, tmp_path: Path
) -> Iterator[tuple[LiveASGIServer, WorkerProcess]]:
    settings.VAR_DIR = tmp_path
    with LiveASGIServer() as live:
        settings.PUBLIC_URL = live.url
        worker = WorkerProcess(
            env=worker_env(TANKODROM_PUBLIC_URL=live.url, TANKODROM_VAR_DIR=str(tmp_path)),
            log_path=tmp_path / "worker.log",
        )
        worker.start()
        try:
            yield live, worker
        finally:
            worker.stop()


def upload(server: str, token: str, path: Path, seed: int, slow: float, day: int, capsys: Any) -> int:
    path.write_bytes(phout_body(seed=seed, slow=slow, t0=T0 + day * 86400))
    argv = ["upload", str(path), "--server", server, "--token", token, "--component", "checkout", "--quiet"]
    assert main([*argv, "--name", f"release 1.{seed}", "--version", f"1.{seed}", "--wait"]) == 0
    out, _ = capsys.readouterr()
    return int(out.strip().splitlines()[-1].rsplit("/", 1)[1])


@pytest.mark.slow
def test_a_regressed_run_fails_the_gate_shows_on_the_dashboard_and_is_announced(
    stack: tuple[LiveASGIServer, WorkerProcess], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    live, worker = stack
    owner = make_token_user("release-manager")
    grant(owner.user, Role.MAINTAINER)  # the baseline and thresholds are a maintainer's
    token, http = owner.raw_token, owner.session()
    api = f"{live.url}/api/v1/components/checkout"

    good = [upload(live.url, token, tmp_path / f"good{i}.phout", i, 1.0, i, capsys) for i in (1, 2)]
    assert http.post(f"{api}/baseline", json={"test": good[0]}).status_code == 200
    kpis = {"kpis": [{"kpi": "q99", "threshold": {"kind": "relative", "value": 20}}, {"kpi": "max_rps"}]}
    assert http.put(f"{api}/kpis", json=kpis).status_code == 200
    with Receiver() as rx:
        hook = http.post(
            f"{live.url}/api/v1/notify/targets/", json={"kind": "webhook", "name": "release channel", "url": rx.url}
        ).json()
        subscribed = http.post(f"{api}/subscriptions/", json={"target": hook["id"], "events": ["regression_found"]})
        assert subscribed.status_code == 201

        # A good run passes the gate; the regressed one (responses 1.6x slower) fails it.
        assert main(["check", "--component", "checkout", "--test", str(good[1]), "--server", live.url,
                     "--token", token]) == 0  # fmt: skip
        capsys.readouterr()
        bad = upload(live.url, token, tmp_path / "bad.phout", 3, 1.6, 2, capsys)
        code = main(["check", "--component", "checkout", "--test", str(bad), "--server", live.url, "--token", token])
        out, err = capsys.readouterr()
        assert code == 1, err
        reasons = out.strip().splitlines()
        assert reasons[0].startswith("q99: ") and "is above its threshold" in reasons[0]
        assert f"FAILS component 'checkout' (baseline #{good[0]}) {live.url}/{bad}" in err

        board = http.get(f"{api}/dashboard").json()
        q99 = board["kpis"][0]
        assert [p["test_id"] for p in q99["points"]] == [*good, bad]
        assert [p["past_threshold"] for p in q99["points"]] == [False, False, True]
        assert q99["points"][-1]["value"] > q99["limit"]

        deadline = time.monotonic() + 90
        while not rx.got and time.monotonic() < deadline:
            time.sleep(0.3)
        if not rx.got:
            log = worker.log_path.read_text() if worker.log_path else ""
            pytest.fail(f"no message within 90 s; worker log:\n{log[-4000:]}")
        got = rx.got[0]
    message = got.json()
    assert message["event"] == "regression_found" and message["test_id"] == bad
    assert message["url"] == f"{live.url}/{bad}"
    assert message["lines"][0] == reasons[0]
    signature = hmac.new(hook["secret"].encode(), got.body, hashlib.sha256).hexdigest()
    assert got.headers["X-Tankodrom-Signature"] == f"sha256={signature}"
    log = http.get(f"{api}/deliveries/").json()
    assert [(d["test_id"], d["event"], d["status"]) for d in log] == [(bad, "regression_found", "sent")]
    # The good runs raised no regression: only one message, for the regressed run.
    assert len(rx.got) == 1
