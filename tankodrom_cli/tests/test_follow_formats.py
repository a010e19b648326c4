"""`tankodrom follow` on every sample format, each file written in pieces while it is followed (as its generator
would), on a live server; and a stop from the web ending a generator the follow runs (SIGINT).

For each: the test was online and streamed, the upload of the file it sent in pieces is exact (every record of the
file), and the streamed seconds end equal to the upload's.
"""

from __future__ import annotations

import signal
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Any

import pytest

from analytics.formats.tests.gatling_binary_writer import sample_run
from backend.loadtests.models import Test, TestStatus, Upload, UploadStatus
from backend.testing import BeatFlusher, LiveASGIServer, TokenUser
from tankodrom_cli.main import main
from tankodrom_cli.tests.support import overall_resps

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "analytics" / "formats" / "tests" / "fixtures"
GOLDEN = ROOT / "analytics" / "tests" / "golden" / "phout"


def write_in_pieces(path: Path, data: bytes, pieces: int = 4, pause_s: float = 0.1) -> threading.Thread:
    """A generator's writes: the file appears, then grows piece by piece (cut anywhere, mid-record too)."""

    def run() -> None:
        step = -(-len(data) // pieces)
        with path.open("wb") as out:
            for at in range(0, len(data), step):
                out.write(data[at : at + step])
                out.flush()
                time.sleep(pause_s)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize(
    ("name", "data", "result_format", "records"),
    [
        ("jtl", (FIXTURES / "jmeter_default.jtl").read_bytes(), "", 7),
        ("k6-csv", (FIXTURES / "k6.csv").read_bytes(), "k6", 5),
        ("gatling-text", (FIXTURES / "gatling_3_3.log").read_bytes(), "gatling", 4),
        ("gatling-binary", sample_run("3.15.1")[0], "gatling", 10),
        ("bfg-phout", (GOLDEN / "bfg_capture.phout").read_bytes(), "phout", 203),
        ("pandora-phout", (GOLDEN / "pandora_sentinels.phout").read_bytes(), "", 4),
    ],
)
def test_each_format_followed_while_written_is_streamed_and_ends_exact(
    live_asgi: LiveASGIServer, live_user: TokenUser, tmp_path: Path, name: str, data: bytes, result_format: str,
    records: int,
) -> None:  # fmt: skip
    path = tmp_path / name
    writer = write_in_pieces(path, data)
    argv = ["follow", str(path), "--server", live_asgi.url, "--token", live_user.raw_token, "--name", name,
            "--idle-s", "0.7", "--wait", "--quiet"]  # fmt: skip
    argv += ["--format", result_format] if result_format else []
    with BeatFlusher(period_s=0.2):
        assert main(argv) == 0
    writer.join()
    test = Test.objects.get(name=name)
    upload = Upload.objects.get(test=test)
    assert upload.status == UploadStatus.READY and upload.size_bytes == len(data), upload.error
    assert upload.lines_total - upload.lines_bad == records
    assert test.has_stream and test.status == TestStatus.READY and test.active_upload_id == upload.pk
    assert overall_resps(test.pk, 0) == overall_resps(test.pk, upload.pk) != {}


GENERATOR = """
import signal, sys, time
path = sys.argv[1]
written = 0
with open(path, "w") as out:
    try:
        while True:
            now = time.time()
            out.write(f"{now:.3f}\\tping\\t1500\\t0\\t0\\t0\\t0\\t0\\t0\\t0\\t0\\t200\\n")
            out.flush()
            written += 1
            time.sleep(0.02)
    except KeyboardInterrupt:
        out.write(f"{time.time():.3f}\\tlast\\t1500\\t0\\t0\\t0\\t0\\t0\\t0\\t0\\t0\\t200\\n")
        written += 1
print(written)
"""


# The follow's own SIGINT as an interactive shell leaves it, and as a non-interactive shell leaves a command it starts
# in the background (`tankodrom follow ... &` in a CI script): ignored, which its children would inherit.
@pytest.mark.parametrize("follow_sigint", [signal.default_int_handler, signal.SIG_IGN], ids=["default", "ignored"])
def test_a_stop_from_the_web_stops_the_generator_the_follow_runs(
    live_asgi: LiveASGIServer, live_user: TokenUser, tmp_path: Path, follow_sigint: Any
) -> None:
    previous = signal.signal(signal.SIGINT, follow_sigint)
    try:
        _stop_from_the_web(live_asgi, live_user, tmp_path)
    finally:
        signal.signal(signal.SIGINT, previous)


def _stop_from_the_web(live_asgi: LiveASGIServer, live_user: TokenUser, tmp_path: Path) -> None:
    script, path = tmp_path / "generator.py", tmp_path / "phout.log"
    script.write_text(GENERATOR)
    argv = ["follow", str(path), "--format", "phout", "--server", live_asgi.url, "--token", live_user.raw_token,
            "--name", "stopped", "--", sys.executable, str(script), str(path)]  # fmt: skip
    api = live_user.client()
    result: list[int] = []
    with BeatFlusher(period_s=0.2):
        follow = threading.Thread(target=lambda: result.append(main(argv)), daemon=True)
        follow.start()
        deadline = time.monotonic() + 30
        while not (Test.objects.filter(name="stopped", last_ts__isnull=False).exists()):
            assert time.monotonic() < deadline, "the test never showed a second"
            time.sleep(0.05)
        test = Test.objects.get(name="stopped")
        assert api.post(f"/api/v1/tests/{test.pk}/stop").status_code == 202
        # A generator deaf to SIGINT would be terminated after follow.STOP_WAIT_S (60 s), with another exit code.
        follow.join(90)
        if follow.is_alive():  # where it waits (its messages are in the captured stderr)
            frame = sys._current_frames().get(follow.ident or 0)
            pytest.fail("the follow still runs:\n" + "".join(traceback.format_stack(frame)))
    assert result == [0]  # the generator ended on SIGINT, and so did the follow
    test.refresh_from_db()
    assert test.exit_reason == "stopped from the web" and test.status == TestStatus.READY
    lines = path.read_bytes().splitlines()
    assert lines[-1].split(b"\t")[1] == b"last"  # what it wrote on its way out is in the test too
    assert test.active_upload is not None and test.active_upload.lines_total == len(lines)


def test_a_file_that_cannot_be_read_on_ends_the_follow_and_closes_its_test(
    live_asgi: LiveASGIServer, live_user: TokenUser, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "simulation.log"
    path.write_bytes(sample_run("3.15.1")[0] + bytes([9]) + bytes(40))  # a record of no kind Gatling writes
    argv = ["follow", str(path), "--server", live_asgi.url, "--token", live_user.raw_token, "--name", "damaged",
            "--idle-s", "0.5"]  # fmt: skip
    assert main(argv) == 1
    assert "is damaged at record" in capsys.readouterr().err
    test = Test.objects.get(name="damaged")
    assert test.status != TestStatus.ONLINE and test.exit_code == 1  # not left online until the silence closer
