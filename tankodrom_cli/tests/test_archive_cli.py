"""`tankodrom export` and `tankodrom import` against a live server: a test uploaded by the CLI goes out as one file
and comes back as a new test whose summary is the same."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from backend.loadtests.models import Test
from backend.testing import LiveASGIServer, TokenUser
from tankodrom_cli.main import main

GOLDEN = Path(__file__).resolve().parents[2] / "analytics" / "tests" / "golden" / "phout"


def test_export_then_import_gives_the_same_summary(
    live_asgi: LiveASGIServer, live_user: TokenUser, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    server = ["--server", live_asgi.url, "--token", live_user.raw_token]
    phout = GOLDEN / "bfg_capture.phout"
    assert main(["upload", str(phout), "--name", "to move", "--wait", "--quiet", *server]) == 0
    test_id = int(capsys.readouterr().out.strip().rsplit("/", 1)[1])
    archive = tmp_path / "moved.zip"
    assert main(["export", str(test_id), "-o", str(archive), *server]) == 0
    out, _ = capsys.readouterr()
    assert out.strip() == str(archive) and zipfile.is_zipfile(archive)
    assert main(["import", str(archive), "--quiet", *server]) == 0
    out, _ = capsys.readouterr()
    new_id = int(out.strip().rsplit("/", 1)[1])
    assert new_id != test_id and Test.objects.get(pk=new_id).name == "to move"
    http = live_user.session()
    original = http.get(f"{live_asgi.url}/api/v1/tests/{test_id}/summary").json()
    copy = http.get(f"{live_asgi.url}/api/v1/tests/{new_id}/summary").json()
    assert original.pop("test") == test_id and copy.pop("test") == new_id
    assert copy == original and original["count"] == 203


def test_export_of_a_missing_test_and_import_of_a_bad_file_say_why(
    live_asgi: LiveASGIServer, live_user: TokenUser, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    server = ["--server", live_asgi.url, "--token", live_user.raw_token]
    assert main(["export", "999999", "-o", str(tmp_path / "x.zip"), *server]) == 1
    assert "export refused" in capsys.readouterr().err
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"not an archive")
    assert main(["import", str(bad), "--quiet", *server]) == 1
    assert "file: not a zip archive" in capsys.readouterr().err
