"""`tankodrom`: upload a result file to a Tankodrom server, as a new test or into an existing one.

    tankodrom upload phout.log [--test ID] [--name NAME ...] [--server URL] [--token TOKEN] [--wait] [--format NAME]
    tankodrom check --component NAME --test ID [--server URL] [--token TOKEN]   (CI gate: see check.py)
    tankodrom follow FILE [--format NAME] [--pid PID | -- COMMAND ...]   (live: see follow.py)
    tankodrom export ID [-o FILE] / tankodrom import FILE   (a test as one archive file: see archive.py)
    tankodrom import-tank-logs DIR   (a tree of yandex-tank run directories, one test each: see tank_logs.py)

phout, JMeter JTL (CSV, XML), k6 (--out json/csv), Gatling simulation.log (3.0-3.12 text, 3.13+ binary) and Locust
stats history are recognised by the server from the content (docs/formats.md); `--format` names it for an ambiguous
file.

The file goes as the body of `PUT /api/v1/tests/<id>/phout` (plain or gzip, sent as it is on disk), streamed from
disk with a progress bar. Files larger than --chunk-mb go in pieces with `Content-Range`; a piece that fails
(network error, 5xx) is retried from where the server says its bytes end, so a multi-GB upload survives a broken
connection. The report URL `<server>/<id>` is the last line printed on stdout; everything else goes to stderr.
Plain curl does the same without the extras:
`curl -T phout.log -H "Authorization: Token $TOKEN" $SERVER/api/v1/tests/$ID/phout`.
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from tqdm import tqdm

from tankodrom_cli import archive, check, follow, tank_logs
from tankodrom_cli.options import add_server_options, token_of
from tankodrom_cli.tank import TankError
from tankodrom_cli.transport import Api, FileRange, TransportError

DEFAULT_SERVER = "http://127.0.0.1:8000"
DEFAULT_CHUNK_MB = 256.0
RETRIES = 8
TERMINAL = {"ready", "failed", "superseded"}
BODY_SHOWN = 200  # characters of an answer without an `error` field that an error message shows


class CliError(Exception):
    """A failure to report to the user in one line (exit status 1)."""


def create_test(api: Api, meta: dict[str, Any]) -> int:
    response = api.call("POST", "/api/v1/tests/", json_body=meta)
    if response.status_code != 201:
        raise CliError(f"could not create the test: {response.error(BODY_SHOWN)}")
    return int(response.json()["id"])


def upload_file(api: Api, test_id: int, path: Path, chunk_bytes: int, quiet: bool, result_format: str = "") -> int:
    """Send the file (`result_format`: the server's `format` parameter, '' to let it recognise the content);
    return the upload id."""
    size = path.stat().st_size
    if size == 0:
        raise CliError(f"{path} is empty")
    with (
        path.open("rb") as f,
        tqdm(total=size, unit="B", unit_scale=True, unit_divisor=1024, disable=quiet, file=sys.stderr) as bar,
    ):
        if size <= chunk_bytes:
            body = FileRange(f, 0, size, bar.update)
            query = f"?format={quote(result_format)}" if result_format else ""
            response = api.call("PUT", f"/api/v1/tests/{test_id}/phout{query}", body=body, headers=_octets())
            if response.status_code != 202:
                raise CliError(f"upload refused: {response.error(BODY_SHOWN)}")
            return int(response.json()["upload_id"])
        return _upload_in_pieces(api, test_id, f, size, chunk_bytes, bar, result_format)


def _upload_in_pieces(
    api: Api, test_id: int, f: io.BufferedReader, size: int, chunk_bytes: int, bar: tqdm, result_format: str = ""
) -> int:
    upload_id: int | None = None
    start = 0
    failures = 0
    while start < size:
        end = min(start + chunk_bytes, size)
        bar.n = start
        bar.refresh()
        query = f"?upload={upload_id}" if upload_id else (f"?format={quote(result_format)}" if result_format else "")
        headers = {**_octets(), "Content-Range": f"bytes {start}-{end - 1}/{size}"}
        try:
            body = FileRange(f, start, end - start, bar.update)
            response = api.call("PUT", f"/api/v1/tests/{test_id}/phout{query}", body=body, headers=headers)
        except TransportError as exc:
            response = None
            reason = str(exc)
        if response is not None and response.status_code == 202:
            body = response.json()
            upload_id = int(body["upload_id"])
            start = int(body["received_bytes"])
            failures = 0
            continue
        if response is not None and response.status_code < 500 and response.status_code != 409:
            raise CliError(f"upload refused: {response.error(BODY_SHOWN)}")
        if response is not None:
            reason = response.error(BODY_SHOWN)
        failures += 1
        if failures > RETRIES:
            raise CliError(f"upload failed after {RETRIES} retries: {reason}")
        print(f"piece at byte {start} failed ({reason}); resuming", file=sys.stderr)
        time.sleep(min(2**failures, 30))
        if upload_id is not None:
            start = _received_bytes(api, test_id, upload_id, fallback=start)
    assert upload_id is not None
    return upload_id


def _received_bytes(api: Api, test_id: int, upload_id: int, fallback: int) -> int:
    try:
        response = api.call("GET", f"/api/v1/tests/{test_id}/uploads/{upload_id}/")
    except TransportError:
        return fallback
    if response.status_code != 200:
        return fallback
    return int(response.json()["progress_bytes"])


def _octets() -> dict[str, str]:
    return {"Content-Type": "application/octet-stream"}


def _poll_delays() -> Iterator[float]:
    """0.1 s, growing to 0.5 s: quick answers for small files, and for big ones the news of `ready` at most half a
    second late, at two cheap status reads per second."""
    delay = 0.1
    while True:
        yield delay
        delay = min(0.5, delay * 1.3)


# The server holds a status read until the upload is final, up to this long (`?wait=`): the CLI learns that its
# upload is ready the moment it is. A server that answers sooner with the upload unfinished (one that ignores the
# parameter) is polled with growing pauses instead.
STATUS_WAIT_S = 5.0


def wait_for_upload(api: Api, test_id: int, upload_id: int, timeout_s: float, quiet: bool) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    delays = _poll_delays()
    while True:
        asked = time.monotonic()
        response = api.call("GET", f"/api/v1/tests/{test_id}/uploads/{upload_id}/", params={"wait": STATUS_WAIT_S})
        if response.status_code != 200:
            raise CliError(f"could not read the upload's status: {response.error(BODY_SHOWN)}")
        status: dict[str, Any] = response.json()
        if status["status"] in TERMINAL:
            return status
        if time.monotonic() > deadline:
            raise CliError(f"upload {upload_id} still {status['status']} after {timeout_s:.0f} s")
        if time.monotonic() - asked < STATUS_WAIT_S / 2:
            time.sleep(next(delays))


def waited_upload_code(api: Api, test_id: int, upload_id: int, timeout_s: float, quiet: bool) -> int:
    """Wait for the upload to be final and say how it went; the exit status (0: ready)."""
    status = wait_for_upload(api, test_id, upload_id, timeout_s, quiet)
    print(
        f"upload {upload_id} {status['status']}: {status['lines_total']} lines, {status['lines_bad']} bad"
        + (f" ({status['error']})" if status["error"] else ""),
        file=sys.stderr,
    )
    for bad in status["bad_examples"][:5]:
        print(f"  line {bad['line']}: {bad['reason']}", file=sys.stderr)
    return 0 if status["status"] == "ready" else 1


def wait_for_test(api: Api, test_id: int, timeout_s: float) -> str | None:
    """Wait for the server's post-processing: the test's status `ready` (or `failed`); None if it has no status."""
    deadline = time.monotonic() + timeout_s
    delays = _poll_delays()
    while True:
        response = api.call("GET", f"/api/v1/tests/{test_id}/")
        if response.status_code != 200:
            return None
        status = str(response.json().get("status", ""))
        if status in ("ready", "failed", ""):
            return status or None
        if time.monotonic() > deadline:
            raise CliError(f"test {test_id} still {status} after {timeout_s:.0f} s")
        time.sleep(next(delays))


META_FIELDS = ("name", "description", "component", "version", "task")


def _meta(args: argparse.Namespace) -> dict[str, Any]:
    meta: dict[str, Any] = {name: getattr(args, name) for name in META_FIELDS if getattr(args, name) is not None}
    meta.setdefault("name", Path(args.file).name)
    if getattr(args, "schedule", None):
        meta["loadscheme"] = [args.schedule]
    return meta


def set_schedule(api: Api, test_id: int, schedule: str) -> None:
    """Give an existing test its schedule (the diagnosis checks the service against it)."""
    response = api.call("PATCH", f"/api/v1/tests/{test_id}/", json_body={"loadscheme": [schedule]})
    if response.status_code != 200:
        raise CliError(f"could not set the schedule of test {test_id}: {response.error(BODY_SHOWN)}")


def _token(args: argparse.Namespace) -> str:
    token = token_of(args)
    if not token:
        raise CliError("an API token is needed: --token, --token-file or the TANKODROM_TOKEN variable")
    return token


def _api(args: argparse.Namespace) -> Api:
    """The server's API client with the token the arguments give; a malformed --server is the user's error."""
    try:
        return Api(args.server, _token(args))
    except ValueError as exc:
        raise CliError(f"--server: {exc}") from exc


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tankodrom", description="Tankodrom command-line client.")
    sub = parser.add_subparsers(dest="command", required=True)
    up = sub.add_parser(
        "upload",
        help="upload a result file (plain or gzip) as a new test or into --test ID: phout, JMeter JTL, k6, "
        "Gatling simulation.log, Locust stats history",
    )
    _add_file_and_format(up, "result file, plain or gzip", "locust")
    up.add_argument("--test", type=int, help="upload into this existing test instead of creating one")
    for name in ("name", "description", "component", "version", "task"):
        up.add_argument(f"--{name}", help=f"the new test's {name}")
    up.add_argument(
        "--schedule",
        help="the load schedule, in Phantom's or Pandora's syntax: 'line(1,400,20s) const(400,20s)', "
        "'step(300,3000,450,12s)' (without it the diagnosis reads the profile off the request start rate)",
    )
    add_server_options(up, DEFAULT_SERVER)
    up.add_argument(
        "--chunk-mb", type=float, default=DEFAULT_CHUNK_MB, help="send bigger files in resumable pieces of this size"
    )
    up.add_argument("--wait", action="store_true", help="wait until the file is ingested (exit status 1 if it failed)")
    up.add_argument(
        "--wait-report", action="store_true", help="with --wait: also wait for the test's report (status ready)"
    )
    up.add_argument("--timeout", type=float, default=3600.0, help="seconds --wait waits at most")
    up.add_argument("--quiet", action="store_true", help="no progress bar")
    check.add_parser(sub, DEFAULT_SERVER)
    _add_follow_parser(sub)
    archive.add_parsers(sub, DEFAULT_SERVER)
    logs = sub.add_parser(
        "import-tank-logs",
        help="import a tree of yandex-tank artifacts (logs/<date>/ with phout*.log, configs, monitoring.log): one "
        "test per run, skipping runs imported before",
    )
    logs.add_argument("dir", help="the tree to walk (e.g. the tank's logs/ directory)")
    add_server_options(logs, DEFAULT_SERVER)
    logs.add_argument("--timeout", type=float, default=3600.0, help="seconds to wait for each run's ingestion")
    logs.add_argument("--quiet", action="store_true", help="no progress bars")
    return parser


def _add_file_and_format(parser: Any, file_help: str, *more_formats: str) -> None:
    parser.add_argument("file", help=file_help)
    names = ("phout", "jmeter-csv", "jmeter-xml", "k6-json", "k6-csv", "gatling", "gatling-binary", *more_formats)
    parser.add_argument(
        "--format",
        dest="result_format",
        default="",
        help=f"the file's format when its content does not tell: {', '.join(names)} (default: recognised from the "
        "content; gatling takes the text and the binary log)",
    )


def _add_follow_parser(sub: Any) -> None:
    live = sub.add_parser(
        "follow",
        help="stream a result file to a new online test while the generator writes it (JMeter CSV, k6 JSON/CSV, "
        "Gatling, phout); the finished test is exact",
        description="Follow a result file as the generator writes it: the test is online (pushed per second as a "
        "tank's), the file is sent in resumable pieces, and the follow ends when the command after -- or the "
        "process --pid exits, or when the file stops growing. A stop from the web stops the generator (SIGINT).",
    )
    _add_file_and_format(live, "the result file the generator writes (plain, not gzip)")
    live.add_argument("--pid", type=int, help="the generator's process: the follow ends when it exits")
    for name in META_FIELDS:
        live.add_argument(f"--{name}", help=f"the test's {name}")
    add_server_options(live, DEFAULT_SERVER)
    live.add_argument("--lag-s", type=float, default=follow.DEFAULT_LAG_S, help="push a second this long after it ends")
    live.add_argument(
        "--idle-s",
        type=float,
        default=follow.DEFAULT_IDLE_S,
        help="without a command or --pid: the file is done when it has not grown for this long",
    )
    live.add_argument(
        "--piece-mb", type=float, default=follow.DEFAULT_PIECE_MB, help="send the file in pieces of at most this size"
    )
    live.add_argument(
        "--wait", action="store_true", help="wait until the file is ingested (exit status 1 if it failed)"
    )
    live.add_argument("--timeout", type=float, default=3600.0, help="seconds --wait waits at most")
    live.add_argument("--quiet", action="store_true", help="say nothing but the report URL")
    live.epilog = "-- COMMAND ...: run the generator and follow it (everything after -- is its command line)"


def run_follow(args: argparse.Namespace, command: list[str]) -> int:
    if command and args.pid is not None:
        raise CliError("give a command to run or --pid to watch, not both")
    token = _token(args)
    api = _api(args)
    options = follow.Options(
        lag_s=args.lag_s,
        idle_s=args.idle_s,
        piece_bytes=max(1, int(args.piece_mb * 1024 * 1024)),
        quiet=args.quiet,
    )
    try:
        generator: follow.Generator = (
            follow.Child(command) if command else follow.WatchedPid(args.pid) if args.pid else follow.Unwatched()
        )
        live = follow.Follow(api, token, Path(args.file), _meta(args), generator, args.result_format, options)
        code = live.run()
    except (follow.FollowError, TankError) as exc:
        raise CliError(str(exc)) from exc
    assert live.job is not None
    if args.wait and live.upload_id is not None:
        code = code or waited_upload_code(api, live.job.id, live.upload_id, args.timeout, args.quiet)
    print(f"{api.server}/{live.job.id}")
    return code


def run(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    # `follow FILE ... -- COMMAND ...`: the generator's command line is not ours to parse.
    generator = words[words.index("--") + 1 :] if "--" in words else []
    args = build_parser().parse_args(words[: words.index("--")] if "--" in words else words)
    if args.command == "check":
        return check.run(args)
    if args.command == "follow":
        return run_follow(args, generator)
    if args.command == "import-tank-logs":
        return run_import_tank_logs(args)
    if args.command in ("export", "import"):
        try:
            return archive.run_export(args) if args.command == "export" else archive.run_import(args)
        except archive.ArchiveCliError as exc:
            raise CliError(str(exc)) from exc
    path = Path(args.file)
    if not path.is_file():
        raise CliError(f"no such file: {path}")
    api = _api(args)
    test_id = args.test if args.test is not None else create_test(api, _meta(args))
    if args.test is not None and args.schedule:
        set_schedule(api, test_id, args.schedule)
    chunk_bytes = max(1, int(args.chunk_mb * 1024 * 1024))
    upload_id = upload_file(api, test_id, path, chunk_bytes, args.quiet, args.result_format)
    print(f"test {test_id}: upload {upload_id} received", file=sys.stderr)
    code = 0
    if args.wait or args.wait_report:
        code = waited_upload_code(api, test_id, upload_id, args.timeout, args.quiet)
        if code == 0 and args.wait_report:
            test_status = wait_for_test(api, test_id, args.timeout)
            if test_status is not None:
                print(f"test {test_id} {test_status}", file=sys.stderr)
                code = 0 if test_status == "ready" else 1
    print(f"{api.server}/{test_id}")
    return code


def run_import_tank_logs(args: argparse.Namespace) -> int:
    root = Path(args.dir)
    if not root.is_dir():
        raise CliError(f"no such directory: {root}")
    api = _api(args)
    chunk = int(DEFAULT_CHUNK_MB * 1024 * 1024)
    try:
        outcome = tank_logs.import_tree(
            api,
            root,
            upload=lambda test_id, path: upload_file(api, test_id, path, chunk, quiet=True),
            wait=lambda test_id, upload_id: waited_upload_code(api, test_id, upload_id, args.timeout, quiet=True),
            quiet=args.quiet,
            say=lambda text: print(text, file=sys.stderr),
        )
    except tank_logs.TankLogsError as exc:
        raise CliError(str(exc)) from exc
    print(f"{outcome.imported} imported, {outcome.skipped} already there, {outcome.failed} failed")
    return 1 if outcome.failed else 0


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return run(argv)
    except CliError as exc:
        print(f"tankodrom: {exc}", file=sys.stderr)
        return 1
    except TransportError as exc:
        print(f"tankodrom: cannot reach the server: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
