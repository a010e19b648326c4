"""`tankodrom check` against a live server: its exit statuses (0 pass, 1 fail, 2 usage or connection error) and
its wait while the server still processes the test. The failing case with real data is in
backend/regressions/tests/test_done_when.py."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from backend.loadtests.models import Test, TestStatus
from backend.regressions.models import ComponentKpis
from backend.testing import LiveASGIServer, TokenUser, free_port
from tankodrom_cli.main import main


def check(server: str, token: str, component: str, test_id: int, *extra: str) -> int:
    return main(["check", "--component", component, "--test", str(test_id), "--server", server, "--token", token,
                 *extra])  # fmt: skip


def test_waits_while_the_test_is_processed_then_passes(
    live_asgi: LiveASGIServer, live_user: TokenUser, capsys: pytest.CaptureFixture[str]
) -> None:
    user, token = live_user.user, live_user.raw_token
    ComponentKpis.objects.create(component="api", kpis=[{"kpi": "q99", "threshold": {"kind": "absolute", "value": 1}}])
    test = Test.objects.create(owner=user, component="api", status=TestStatus.PROCESSING)

    def finish() -> None:
        time.sleep(1.5)
        Test.objects.filter(pk=test.pk).update(status=TestStatus.READY)

    thread = threading.Thread(target=finish)
    thread.start()
    started = time.monotonic()
    code = check(live_asgi.url, token, "api", test.pk)
    thread.join()
    out, err = capsys.readouterr()
    assert code == 0, err
    assert time.monotonic() - started >= 1.5
    assert f"waiting for test {test.pk}: HTTP 409: test {test.pk} is still processing" in err
    assert "note: q99: not measured in this test" in err  # no data: nothing past the threshold
    assert out == ""


def test_usage_and_connection_errors_exit_2(
    live_asgi: LiveASGIServer, live_user: TokenUser, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    user, token = live_user.user, live_user.raw_token
    test = Test.objects.create(owner=user, component="api", status=TestStatus.READY)
    assert check(live_asgi.url, token, "api", 10**9) == 2
    assert f"HTTP 404: test {10**9} not found" in capsys.readouterr().err
    assert check(live_asgi.url, token, "web", test.pk) == 2
    assert "not a test of component 'web'" in capsys.readouterr().err
    assert check(live_asgi.url, "wrong-token", "api", test.pk) == 2
    assert "HTTP 401" in capsys.readouterr().err
    assert check(f"http://127.0.0.1:{free_port()}", token, "api", test.pk) == 2
    assert "cannot reach the server" in capsys.readouterr().err
    with pytest.raises(SystemExit) as usage:
        main(["check", "--test", "1"])
    assert usage.value.code == 2
    assert check(live_asgi.url, token, "api", 0) == 2
    assert main(["check", "--component", "api", "--test", "1", "--token-file", str(tmp_path / "missing")]) == 2
    assert "--token-file" in capsys.readouterr().err
