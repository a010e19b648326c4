"""`tankodrom follow FILE`: a generator's result file streamed to Tankodrom while the generator still writes it.

    tankodrom follow results.json --format k6-json -- k6 run --out json=results.json script.js
    tankodrom follow results.jtl --pid 4242          # a generator already running
    tankodrom follow simulation.log                   # until the file stops growing (--idle-s)

The test is online the whole time, exactly as a tank's: the job is created through the tank's protocol
(tankodrom_cli/tank.py), and what the file holds is parsed as it grows by the server's own parsers
(analytics/formats, analytics/phout.py), aggregated per response second by the upload's own rule
(analytics/live_seconds.py) and pushed as push_data.json items (analytics/tank_push_items.py): the online pages,
Stop and the diagnosis during the run work as for a tank. A second is pushed once it is `--lag-s` over, and pushed
again, whole, if more of it is written later (a slow request, an output flushed every second).

Beside the pushes the file itself goes to the server in resumable pieces of a size not known yet (`Content-Range:
bytes S-E/*`, backend/uploads/receive.py), the last one naming the total once the generator is done: the finished
test is then exact (its raw samples), as an upload of the file would be.

The follow ends when the command it runs (after `--`) or the process it watches (`--pid`) exits, or, with neither,
when the file has not grown for `--idle-s`. A push answered 410 (the test was stopped from the web) ends it too:
the generator is asked to stop (SIGINT, as Ctrl-C would: k6, Gatling and JMeter end their run and write their last
results), the rest of the file is sent, and the job is closed.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import quote

import numpy as np

from analytics.formats import detect, parser_class, resolve
from analytics.formats.instances import ActiveInstances
from analytics.live_seconds import LiveSeconds
from analytics.tank_push_items import push_bodies
from tankodrom_cli.tank import STOPPED, TankJob
from tankodrom_cli.transport import Api, FileRange, TransportError

POLL_S = 0.1
READ_BYTES = 4 * 1024 * 1024  # read at most this much per round, so a long file being caught up still pushes
DETECT_BYTES = 64 * 1024
GZIP_MAGIC = b"\x1f\x8b"
DEFAULT_LAG_S = 0.5
DEFAULT_IDLE_S = 30.0
DEFAULT_PIECE_S = 5.0
DEFAULT_PIECE_MB = 16.0
STOP_WAIT_S = 60.0  # how long a generator asked to stop may take to end before it is terminated
PUSH_RETRIES = 5
PIECE_RETRIES = 8
NOT_FOLLOWED = {"locust": "Locust's stats history holds per-second figures only: load tankodrom_cli.locust_plugin "
                "in the locustfile instead, for a live and exact Locust run"}  # fmt: skip


class FollowError(Exception):
    """The follow cannot go on (exit status 1)."""


class Generator(Protocol):
    """What writes the file: whether it still runs (None: unknown, then the file's growth tells), and how to ask it
    to stop."""

    def running(self) -> bool | None: ...

    def stop(self) -> None: ...

    def exit_code(self) -> int | None: ...


class Unwatched:
    """No process to watch: the follow ends when the file stops growing."""

    def running(self) -> bool | None:
        return None

    def stop(self) -> None:
        print("stopped from the web: stop the generator yourself (nothing to signal without --pid)", file=sys.stderr)

    def exit_code(self) -> int | None:
        return None


class WatchedPid:
    """A process already running (`--pid`): its end ends the follow, a stop from the web sends it SIGINT."""

    def __init__(self, pid: int) -> None:
        self.pid = pid

    def running(self) -> bool | None:
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True  # someone else's process, alive
        return True

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGINT)

    def exit_code(self) -> int | None:
        return None  # not our child: its status is not ours to read


def _interruptible() -> None:
    """In the generator's process before it starts: SIGINT at its default and not blocked, whatever the follow
    inherited. A command started in the background by a non-interactive shell (`tankodrom follow ... &` in a CI
    script) has SIGINT ignored, and an ignored signal stays ignored across exec: the stop from the web would reach a
    generator deaf to it, ended only by SIGTERM a minute later, without its own end of test."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


class Child:
    """The generator run by the follow (the command after `--`)."""

    def __init__(self, argv: Sequence[str]) -> None:
        try:
            self.process = subprocess.Popen(list(argv), preexec_fn=_interruptible)
        except OSError as exc:
            raise FollowError(f"could not run {argv[0]!r}: {exc}") from exc
        self._stop_asked: float | None = None

    def running(self) -> bool | None:
        if self.process.poll() is not None:
            return False
        if self._stop_asked is not None and time.monotonic() - self._stop_asked > STOP_WAIT_S:
            self.process.terminate()  # it did not end on SIGINT
        return True

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            self._stop_asked = time.monotonic()

    def exit_code(self) -> int | None:
        return self.process.poll()


@dataclass
class Options:
    lag_s: float = DEFAULT_LAG_S
    idle_s: float = DEFAULT_IDLE_S
    piece_s: float = DEFAULT_PIECE_S
    piece_bytes: int = int(DEFAULT_PIECE_MB * 1024 * 1024)
    quiet: bool = False


class Follow:
    """One follow of one file into one new test (`run`). `instances` overrides what the file says of the active
    instances (the Locust listener knows its users; a phout file states none)."""

    def __init__(
        self,
        api: Api,
        api_token: str,
        path: Path,
        meta: dict[str, Any],
        generator: Generator,
        result_format: str = "",
        options: Options | None = None,
        instances: ActiveInstances | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        requested = result_format.strip().lower()
        if requested in NOT_FOLLOWED:
            raise FollowError(NOT_FOLLOWED[requested])
        self.api, self.api_token, self.path, self.meta = api, api_token, path, meta
        self.generator, self.requested, self.options = generator, requested, options or Options()
        self.clock = clock
        self.job: TankJob | None = None
        self.format = ""
        self.stopped_from_web = False
        self._stop_sent = False
        self._upload_refused: str | None = None  # why the server took no more of the file
        self._instances = instances
        self._parser: Any = None
        self._live = LiveSeconds()
        self._file: io.BufferedReader | None = None
        self._read_to = 0  # bytes of the file read so far
        self._head = bytearray()  # bytes read before the format is known
        self._unsent: list[tuple[int, list[dict[str, Any]]]] = []  # pushes the server has not taken yet
        self._push_failures = 0
        self._upload_id: int | None = None
        self._sent = 0  # bytes of the file the server has
        self._last_piece_at = time.monotonic()
        self.upload_id: int | None = None

    # ── the run ─────────────────────────────────────────────────────────────────────────────────────────────
    def run(self) -> int:
        """Follow until the generator is done; the generator's exit code (0 when unknown)."""
        self.job = TankJob.create(self.api, self.api_token, self.meta)
        self._say(f"test {self.job.id} is online: {self.api.server}/{self.job.id}")
        try:
            self._follow()
        except FollowError:
            with contextlib.suppress(TransportError):
                self.job.close(1)  # not left online until the server's silence closer
            raise
        return self._finish()

    def _follow(self) -> None:
        grew_at = time.monotonic()
        while True:
            running = self.generator.running()
            grown = self._read_more()
            now = time.monotonic()
            if grown:
                grew_at = now
            self._push(before_s=int(self.clock() - self.options.lag_s))
            self._send_piece(final=False)
            if self.stopped_from_web and not self._stop_sent:
                self._stop_sent = True
                self.generator.stop()
            if not grown:
                if running is False or (running is None and now - grew_at > self.options.idle_s):
                    return  # the generator is done and its file read to the end
                time.sleep(POLL_S)

    def _finish(self) -> int:
        assert self.job is not None
        if self._parser is None and self._head:
            self._start_parser(final=True)
        if self._parser is not None:
            self._add(self._parser.finish())
        self._push(before_s=2**62)
        self._send_piece(final=True)
        code = self.generator.exit_code()
        closed = self.job.close(code)
        if closed.status_code != 200:
            self._say(f"closing test {self.job.id}: {closed.error(200)}")
        if self._live.late_samples:
            self._say(f"{self._live.late_samples} requests came too late to be shown live; the upload counts them")
        if self._file is not None:
            self._file.close()
        return code or 0

    # ── reading the file ────────────────────────────────────────────────────────────────────────────────────
    def _read_more(self) -> int:
        if self._file is None:
            try:
                self._file = self.path.open("rb")
            except FileNotFoundError:
                return 0  # the generator has not created it yet
        try:
            size = os.fstat(self._file.fileno()).st_size
        except OSError as exc:
            raise FollowError(f"cannot read {self.path}: {exc}") from exc
        if size < self._read_to:
            raise FollowError(
                f"{self.path} shrank from {self._read_to} to {size} bytes: it was replaced, not written on"
            )
        data = self._file.read(min(size - self._read_to, READ_BYTES)) if size > self._read_to else b""
        if not data:
            return 0
        self._read_to += len(data)
        if self._parser is None:
            self._head += data
            if not self._start_parser(final=False):
                return len(data)
            data, self._head = bytes(self._head), bytearray()
        self._add(self._parser.feed(data) + self._parser.parse_buffered())
        return len(data)

    def _start_parser(self, *, final: bool) -> bool:
        """Choose the parser once the head shows the format (a whole first line, or enough bytes)."""
        head = bytes(self._head[:DETECT_BYTES])
        if head[:2] == GZIP_MAGIC:
            raise FollowError(f"{self.path} is gzip: a compressed file cannot be read while it is written")
        if not final and b"\n" not in head and len(head) < DETECT_BYTES and head[:1] != b"\x00":
            return False
        name = resolve(self.requested, detect(head))
        if name in NOT_FOLLOWED:
            raise FollowError(NOT_FOLLOWED[name])
        self.format = name
        self._parser = parser_class(name)(block_bytes=READ_BYTES)
        self._say(f"{self.path} is read as {name}")
        if final:
            self._add(self._parser.feed(bytes(self._head)))
            self._head = bytearray()
        return True

    def _add(self, batches: list[Any]) -> None:
        for batch in batches:
            self._live.add(batch)
        fatal = getattr(self._parser, "fatal", None)
        if fatal:
            raise FollowError(f"{self.path}: {fatal}")

    # ── pushing seconds ─────────────────────────────────────────────────────────────────────────────────────
    def _push(self, before_s: int) -> None:
        if self._parser is not None and not self.stopped_from_web:
            table = self._live.due(before_s, self._parser.cases)
            if table.size:
                active = self._instances or getattr(self._parser, "instances", None)
                threads = active.at(table.ts) if active else np.zeros(table.size, dtype=np.uint32)
                self._unsent += sorted(push_bodies(table, threads).items())
        while self._unsent and not self.stopped_from_web:
            second, items = self._unsent[0]
            assert self.job is not None
            try:
                answer = self.job.push(items)
                status = answer.status_code
            except TransportError as exc:
                status, answer = 0, None
                reason = str(exc)
            if status == 200:
                self._unsent.pop(0)
                self._push_failures = 0
                continue
            if status == STOPPED:
                self.stopped_from_web = True
                self._say(f"test {self.job.id} was stopped from the web: stopping the generator")
                return
            reason = answer.error(200) if answer is not None else reason
            if 400 <= status < 500:
                self._say(f"second {second} refused, skipped: {reason}")  # as the tank skips it
                self._unsent.pop(0)
                continue
            self._push_failures += 1
            if self._push_failures > PUSH_RETRIES:
                self._say(f"second {second} not pushed after {PUSH_RETRIES} tries ({reason}); the upload will have it")
                self._unsent.pop(0)
                self._push_failures = 0
            return  # try again next round

    # ── the raw file, in pieces ─────────────────────────────────────────────────────────────────────────────
    def _send_piece(self, *, final: bool) -> None:
        """Send the file's bytes the server does not have: while it grows, all but its last byte (so the last
        piece, which names the total, is never empty), every `piece_s` or `piece_bytes`; at the end, the rest."""
        end = self._read_to if final else self._read_to - 1
        due = final or end - self._sent >= self.options.piece_bytes
        due = due or (end > self._sent and time.monotonic() - self._last_piece_at >= self.options.piece_s)
        if not due or self._read_to == 0 or self.format == "" or self._upload_refused:
            return
        for attempt in range(1, (PIECE_RETRIES if final else 1) + 1):
            error = self._piece(end, total=self._read_to if final else None)
            if error is None:
                return
            if attempt == (PIECE_RETRIES if final else 1):
                if final:
                    raise FollowError(f"the file could not be sent whole: {error}")
                self._say(f"a piece of the file was not taken ({error}); it goes again with the next")
                return
            time.sleep(min(2**attempt, 30))

    def _piece(self, end: int, total: int | None) -> str | None:
        """Send bytes [sent, end) (the whole rest when `total`); None when the server has them, else the reason."""
        assert self.job is not None
        self._last_piece_at = time.monotonic()
        while self._sent < end:
            stop = min(end, self._sent + self.options.piece_bytes)
            last = total is not None and stop == total
            query = f"?upload={self._upload_id}" if self._upload_id else f"?format={quote(self.format)}"
            range_ = f"bytes {self._sent}-{stop - 1}/{total if last else '*'}"
            with self.path.open("rb") as f:
                body = FileRange(f, self._sent, stop - self._sent, lambda _n: None)
                try:
                    answer = self.api.call(
                        "PUT",
                        f"/api/v1/tests/{self.job.id}/results{query}",
                        body=body,
                        headers={"Content-Type": "application/octet-stream", "Content-Range": range_},
                    )
                except TransportError as exc:
                    return str(exc)
            body_json = _json_or_none(answer)
            if answer.status_code == 202 and body_json is not None:
                self._upload_id = int(body_json["upload_id"])
                self.upload_id = self._upload_id
                self._sent = int(body_json["received_bytes"])
                continue
            if answer.status_code == 409 and body_json is not None and "received_bytes" in body_json:
                self._sent = int(body_json["received_bytes"])  # the server says where it stands
                continue
            if 400 <= answer.status_code < 500 and answer.status_code != 409:
                # The file itself is refused (not this format, too big): sending more would not change that.
                self._upload_refused = answer.error(200)
                self._say(f"the server took no more of the file: {self._upload_refused}")
                return None
            return answer.error(200)
        return None

    def _say(self, text: str) -> None:
        if not self.options.quiet:
            print(text, file=sys.stderr)


def _json_or_none(answer: Any) -> dict[str, Any] | None:
    try:
        body = answer.json()
    except ValueError:
        return None
    return body if isinstance(body, dict) else None
