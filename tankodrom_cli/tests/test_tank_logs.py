"""`tankodrom import-tank-logs DIR` on a tree of three real yandex-tank 2.0.11 runs (BFG against a local target, a
stand-in telegraf for monitoring, each run with its own name, component, schedule and instances): three tests with
what the configs say, their phout (exact) and monitoring; the same tree imported again adds nothing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from analytics.tank_push import parse_monitoring
from backend.clickhouse.tables import monitoring
from backend.loadtests.models import Test
from backend.reports.tests.factory import count_rows
from backend.tankapi.tests.test_real_tank import fake_telegraf, run_logged, tank_venv, tank_yaml
from backend.testing import LiveASGIServer, QuietHandler, TokenUser, serving_http
from tankodrom_cli.main import main
from tankodrom_cli.tank_logs import read_meta, run_directories

pytestmark = [pytest.mark.slow]
__all__ = ["tank_venv"]  # the fixture, shared with the real-tank tests

RUNS = (
    # Long enough (10-12 s) for the monitoring agent's first points.
    ("checkout nightly", "checkout", "line(1, 12, 5s) const(12, 6s)", 2),
    ("search ramp", "search", "const(8, 10s)", 3),
    ("login spike", "login", "step(2, 10, 4, 3s)", 4),
)


class _Target(QuietHandler):
    def do_GET(self) -> None:
        self.answer(404 if self.path.startswith("/missing") else 200, b"ok\n")


@pytest.fixture
def target() -> Iterator[str]:
    with serving_http(_Target) as url:
        yield url


def _config(work: Path, venv: Path, target_url: str, name: str, component: str, schedule: str, instances: int) -> Path:
    telegraf = fake_telegraf(work, venv)
    (work / "mon.xml").write_text(
        "<Monitoring>\n"
        f'  <Host address="localhost" interval="1" telegraf="{telegraf}" python="{venv / "bin" / "python"}">\n'
        "    <CPU/><Memory/>\n  </Host>\n</Monitoring>\n"
    )
    (work / "ammo.txt").write_text("index\t/\nsearch\t/search?q=tank\nmissing\t/missing/page\n")
    uploader = f"""overload:
  enabled: false
  package: yandextank.plugins.DataUploader
  job_name: {name}
  job_dsc: shot by yandex-tank 2.0.11, imported from its logs
  ver: "2.{instances}"
  component: {component}
  task: LOAD-{instances}
"""
    config = work / f"{component}.yaml"
    config.write_text(tank_yaml(work, uploader, target_url, schedule, instances))
    return config


@pytest.fixture
def tank_logs(tank_venv: Path, target: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("tank")
    for name, component, schedule, instances in RUNS:
        config = _config(work, tank_venv, target, name, component, schedule, instances)
        run_logged([str(tank_venv / "bin" / "yandex-tank"), "-c", str(config)], work, f"{component}.out")
    return work / "logs"


def test_three_real_runs_import_as_three_tests_and_twice_without_duplicates(
    tank_logs: Path, live_asgi: LiveASGIServer, live_user: TokenUser, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = list(run_directories(tank_logs))
    assert len(runs) == 3 and all(r.monitoring is not None for r in runs)
    server = ["--server", live_asgi.url, "--token", live_user.raw_token, "--quiet"]
    assert main(["import-tank-logs", str(tank_logs), *server]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == "3 imported, 0 already there, 0 failed"
    tests = {t.name: t for t in Test.objects.all()}
    assert set(tests) == {name for name, *_ in RUNS}
    for (name, component, schedule, instances), run in zip(RUNS, runs, strict=True):
        test = tests[name]
        assert read_meta(run.directory)["name"] == name
        assert (test.component, test.loadscheme, test.instances) == (component, [schedule], instances)
        assert test.version == f"2.{instances}" and test.task == f"LOAD-{instances}"
        assert test.description == "shot by yandex-tank 2.0.11, imported from its logs"
        assert test.active_upload_id is not None and test.tags.get().name.startswith("tank-run-")
        lines = sum(1 for line in run.phout.read_text().splitlines() if line.strip())
        summary = live_user.session().get(f"{live_asgi.url}/api/v1/tests/{test.pk}/summary").json()
        assert summary["exact"] is True and summary["count"] == lines > 0
        assert run.monitoring is not None
        points = {
            (p.host, p.metric, p.ts)
            for line in run.monitoring.read_text().splitlines()
            if line.strip()
            for p in parse_monitoring(json.loads(line)).points
        }
        assert len(points) > 0 and count_rows(monitoring.NAME, int(test.pk)) == len(points)

    assert main(["import-tank-logs", str(tank_logs), *server]) == 0  # again: nothing new
    assert capsys.readouterr().out.strip().splitlines()[-1] == "0 imported, 3 already there, 0 failed"
    assert Test.objects.count() == 3


def test_a_tree_without_runs_is_refused(
    live_asgi: LiveASGIServer, live_user: TokenUser, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "logs" / "2020-01-01").mkdir(parents=True)
    code = main(["import-tank-logs", str(tmp_path), "--server", live_asgi.url, "--token", live_user.raw_token])
    assert code == 1 and "no phout*.log or bfgout*.log under" in capsys.readouterr().err
