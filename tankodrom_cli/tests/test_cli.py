"""The `tankodrom` CLI against a live server (the production entry, backend.testing.LiveASGIServer; real PostgreSQL,
ClickHouse, Redis; Celery runs the ingestion inline)."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from django.contrib.auth.models import User

from backend.loadtests.models import Test, Upload, UploadStatus
from backend.loadtests.tokens import create_token
from backend.testing import LiveASGIServer, TokenUser
from tankodrom_cli.main import main

GOLDEN = Path(__file__).resolve().parents[2] / "analytics" / "tests" / "golden" / "phout"


def test_upload_in_resumable_pieces_waits_and_prints_the_report_url(
    live_asgi: LiveASGIServer, live_user: TokenUser, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    user, token = live_user.user, live_user.raw_token
    test = Test.objects.create(owner=user, name="from the cli")
    phout = tmp_path / "phout.log.gz"
    phout.write_bytes(gzip.compress((GOLDEN / "bfg_capture.phout").read_bytes()))
    argv = ["upload", str(phout), "--test", str(test.pk), "--server", live_asgi.url, "--token", token]
    code = main([*argv, "--chunk-mb", "0.0005", "--wait", "--quiet"])  # 524-byte pieces: several PUTs
    out, err = capsys.readouterr()
    assert code == 0, err
    assert out.strip().splitlines()[-1] == f"{live_asgi.url}/{test.pk}"
    upload = Upload.objects.get(test=test)
    assert upload.status == UploadStatus.READY and upload.lines_total == 203
    assert f"upload {upload.pk} ready: 203 lines, 0 bad" in err
    test.refresh_from_db()
    assert test.active_upload_id == upload.pk


def test_a_refused_file_exits_non_zero_with_the_servers_reason(
    live_asgi: LiveASGIServer, live_user: TokenUser, capsys: pytest.CaptureFixture[str]
) -> None:
    user, token = live_user.user, live_user.raw_token
    test = Test.objects.create(owner=user)
    code = main(
        ["upload", str(GOLDEN / "not_phout.txt"), "--test", str(test.pk), "--server", live_asgi.url, "--token", token]
    )
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert "upload refused: HTTP 400: this does not look like phout" in err


def test_missing_token_and_wrong_owner(
    live_asgi: LiveASGIServer, live_user: TokenUser, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TANKODROM_TOKEN", raising=False)
    user = live_user.user
    test = Test.objects.create(owner=user)
    assert main(["upload", str(GOLDEN / "bfg.phout"), "--test", str(test.pk), "--server", live_asgi.url]) == 1
    assert "an API token is needed" in capsys.readouterr().err
    other = User.objects.create_user("someone-else", password="x" * 12)
    _t, other_token = create_token(other)
    argv = [
        "upload",
        str(GOLDEN / "bfg.phout"),
        "--test",
        str(test.pk),
        "--server",
        live_asgi.url,
        "--token",
        other_token,
    ]
    assert main([*argv, "--quiet"]) == 1
    assert "HTTP 403" in capsys.readouterr().err
    assert not Upload.objects.filter(test=test).exists()


def test_upload_as_a_new_test(
    live_asgi: LiveASGIServer, live_user: TokenUser, capsys: pytest.CaptureFixture[str]
) -> None:
    user, token = live_user.user, live_user.raw_token
    argv = ["upload", str(GOLDEN / "crlf.phout"), "--server", live_asgi.url, "--token", token, "--quiet", "--wait"]
    code = main([*argv, "--name", "nightly", "--component", "search-api", "--version", "1.2.3"])
    out, err = capsys.readouterr()
    assert code == 0, err
    test = Test.objects.get(owner=user)
    assert (test.name, test.component, test.version) == ("nightly", "search-api", "1.2.3")
    assert out.strip() == f"{live_asgi.url}/{test.pk}"
    assert Upload.objects.get(test=test).lines_total == 3


def test_a_big_refused_file_gets_the_servers_answer_not_a_broken_pipe(
    live_asgi: LiveASGIServer, live_user: TokenUser, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # The server judges the head of the body and answers before the rest is sent: the CLI, still sending the file
    # (sendfile), must report that answer.
    user, token = live_user.user, live_user.raw_token
    test = Test.objects.create(owner=user)
    garbage = tmp_path / "garbage.log"
    garbage.write_bytes(b"this is a log of something else entirely\n" * 1_000_000)  # 41 MB
    argv = ["upload", str(garbage), "--test", str(test.pk), "--server", live_asgi.url, "--token", token, "--quiet"]
    assert main(argv) == 1
    assert "upload refused: HTTP 400: this does not look like phout" in capsys.readouterr().err
    assert not Upload.objects.filter(test=test, status=UploadStatus.READY).exists()


@pytest.mark.parametrize(
    ("server_url", "message"),
    [
        ("http://127.0.0.1:1", "cannot reach the server: POST http://127.0.0.1:1/api/v1/tests/"),
        ("ftp://example.org", "--server: not an http(s) URL: 'ftp://example.org'"),
    ],
)
def test_a_server_it_cannot_talk_to(server_url: str, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["upload", str(GOLDEN / "bfg.phout"), "--server", server_url, "--token", "t", "--quiet"]) == 1
    assert message in capsys.readouterr().err


def test_schedule_is_given_to_a_new_test_and_to_an_existing_one(
    live_asgi: LiveASGIServer, live_user: TokenUser, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    user, token = live_user.user, live_user.raw_token
    phout = tmp_path / "phout.log"
    phout.write_bytes((GOLDEN / "bfg_capture.phout").read_bytes())
    base = ["upload", str(phout), "--server", live_asgi.url, "--token", token, "--quiet"]
    assert main([*base, "--schedule", "line(1,400,20s) const(400,20s)"]) == 0
    created = Test.objects.filter(owner=user).latest("pk")
    assert created.loadscheme == ["line(1,400,20s) const(400,20s)"]
    existing = Test.objects.create(owner=user, name="existing")
    assert main([*base, "--test", str(existing.pk), "--schedule", "step(300,3000,450,12s)"]) == 0
    existing.refresh_from_db()
    assert existing.loadscheme == ["step(300,3000,450,12s)"]
    capsys.readouterr()
    assert main([*base, "--schedule", "ramp(1,2)"]) == 1
    assert "loadscheme" in capsys.readouterr().err
