"""`tankodrom check` against a live server: its exit statuses (0 pass, 1 fail, 2 usage or connection error) and
its wait while the server still processes the test. The failing case with real data is in
backend/regressions/tests/test_done_when.py."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from backend.loadtests.models import Test, TestStatus
from backend.loadtests.tokens import create_token
from backend.regressions.models import ComponentKpis
from backend.testing import LiveASGIServer, free_port
from tankodrom_cli.main import main


@pytest.fixture
def server(transactional_db: None, clickhouse: None, redis_db: object) -> Iterator[Any]:
    with LiveASGIServer() as live:
        yield live


@pytest.fixture
def account(server: Any) -> tuple[User, str]:
    user = User.objects.create_user("ci", password="x" * 12)
    _token, raw = create_token(user, name="ci")
    return user, raw


def check(server: str, token: str, component: str, test_id: int, *extra: str) -> int:
    return main(["check", "--component", component, "--test", str(test_id), "--server", server, "--token", token,
                 *extra])  # fmt: skip


def test_waits_while_the_test_is_processed_then_passes(
    server: Any, account: tuple[User, str], capsys: pytest.CaptureFixture[str]
) -> None:
    user, token = account
    ComponentKpis.objects.create(component="api", kpis=[{"kpi": "q99", "threshold": {"kind": "absolute", "value": 1}}])
    test = Test.objects.create(owner=user, component="api", status=TestStatus.PROCESSING)

    def finish() -> None:
        time.sleep(1.5)
        Test.objects.filter(pk=test.pk).update(status=TestStatus.READY)

    thread = threading.Thread(target=finish)
    thread.start()
    started = time.monotonic()
    code = check(server.url, token, "api", test.pk)
    thread.join()
    out, err = capsys.readouterr()
    assert code == 0, err
    assert time.monotonic() - started >= 1.5
    assert f"waiting for test {test.pk}: HTTP 409: test {test.pk} is still processing" in err
    assert "note: q99: not measured in this test" in err  # no data: nothing past the threshold
    assert out == ""


def test_usage_and_connection_errors_exit_2(
    server: Any, account: tuple[User, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    user, token = account
    test = Test.objects.create(owner=user, component="api", status=TestStatus.READY)
    assert check(server.url, token, "api", 10**9) == 2
    assert f"HTTP 404: test {10**9} not found" in capsys.readouterr().err
    assert check(server.url, token, "web", test.pk) == 2
    assert "not a test of component 'web'" in capsys.readouterr().err
    assert check(server.url, "wrong-token", "api", test.pk) == 2
    assert "HTTP 401" in capsys.readouterr().err
    assert check(f"http://127.0.0.1:{free_port()}", token, "api", test.pk) == 2
    assert "cannot reach the server" in capsys.readouterr().err
    with pytest.raises(SystemExit) as usage:
        main(["check", "--test", "1"])
    assert usage.value.code == 2
    assert check(server.url, token, "api", 0) == 2
    assert main(["check", "--component", "api", "--test", "1", "--token-file", str(tmp_path / "missing")]) == 2
    assert "--token-file" in capsys.readouterr().err
