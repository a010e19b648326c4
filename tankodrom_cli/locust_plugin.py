"""Locust runs live and exact in Tankodrom: import this module in a locustfile.

    # locustfile.py
    import tankodrom_cli.locust_plugin  # noqa: F401
    ...
    locust -f locustfile.py --headless -u 50 -r 10 -t 10m --host https://shop.example \\
        --tankodrom-url http://HOST:8000 --tankodrom-token-file token.txt --tankodrom-name "checkout 1.2" \\
        --tankodrom-component checkout

(`TANKODROM_URL` and `TANKODROM_TOKEN` work too.) Every request Locust makes, its `request` event, is written as it
completes to a phout file, the listener's own record (`--tankodrom-record`, else a file in a temporary folder, kept
and named at the end): the send time (Locust's `start_time`) and the response time in µs, the case `TYPE name` (as
Locust's stats name it), the response's length, the HTTP status and a net code for a failure that has none (errno:
110 timed out, 111 refused, 104 reset; 999 otherwise). That file is followed as `tankodrom follow` follows a
generator's (tankodrom_cli/follow.py): the test is online while Locust runs, each second pushed through the tank's
protocol with the users Locust runs as its instances, and the record goes in resumable pieces, so the finished test
holds every request: exact, not the per-second approximation of Locust's stats history. A stop from the web (a push
answered 410) quits the runner.

Standalone runs (one Locust process) only: a distributed run's requests are made by its workers, each of which would
follow a record of its own.
"""

from __future__ import annotations

import logging
import os
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from locust import events
from locust.env import Environment
from locust.runners import LocalRunner

from analytics.formats.instances import ActiveInstances
from tankodrom_cli.follow import Follow, FollowError, Options
from tankodrom_cli.locust_record import phout_line
from tankodrom_cli.tank import TankError
from tankodrom_cli.transport import Api, TransportError

log = logging.getLogger("tankodrom")
FINISH_WAIT_S = 120.0


class Listener:
    """One Locust run recorded and followed into one test."""

    def __init__(self, environment: Environment, api: Api, token: str, record: Path, meta: dict[str, Any]) -> None:
        self.environment = environment
        self.record = record
        self.instances = ActiveInstances()
        self._out = record.open("ab")
        self._ended = False
        self.follow = Follow(
            api, token, record, meta, self, "phout", Options(lag_s=0.5, quiet=True), instances=self.instances
        )
        self.error: str | None = None
        self._thread = threading.Thread(target=self._run, name="tankodrom follow", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self.follow.run()
        except (FollowError, TankError, TransportError) as exc:
            self.error = str(exc)
            log.error("tankodrom: %s", exc)

    # ── what Locust tells ───────────────────────────────────────────────────────────────────────────────────
    def request(
        self, request_type: str, name: str, response_time: float, response_length: int, response: Any,
        exception: BaseException | None, start_time: float | None,
    ) -> None:  # fmt: skip
        if not self._ended:
            status = int(getattr(response, "status_code", 0) or 0)
            line = phout_line(request_type, name, response_time, response_length, status, exception, start_time)
            self._out.write(line)

    def finish(self) -> None:
        """The run is over: the record is complete; wait until the follow has sent it all and closed the test."""
        if self._ended:
            return
        self._ended = True
        self._out.close()
        self._thread.join(FINISH_WAIT_S)
        job = self.follow.job
        if job is not None:
            print(f"tankodrom: {job.api.server}/{job.id} (the record: {self.record})", flush=True)

    # ── what the follow asks (tankodrom_cli.follow.Generator) ───────────────────────────────────────────────
    def running(self) -> bool | None:
        if not self._ended:
            self._out.flush()  # what was recorded is in the file for the follow to read
            runner = self.environment.runner
            if runner is not None:
                self.instances.level(int(time.time()), int(runner.user_count))
        return not self._ended

    def stop(self) -> None:
        """Stopped from the web: quit the runner (from its own thread: quitting ends this run, whose end waits for
        the follow)."""
        log.warning("tankodrom: the test was stopped from the web: quitting")
        runner = self.environment.runner
        if runner is not None:
            threading.Thread(target=runner.quit, daemon=True).start()

    def exit_code(self) -> int | None:
        return 0


_listener: Listener | None = None


def _add_options(parser: Any) -> None:
    group = parser.add_argument_group("Tankodrom", "send this run to Tankodrom, live and exact")
    group.add_argument("--tankodrom-url", default=os.environ.get("TANKODROM_URL", ""), help="the server's base URL")
    group.add_argument("--tankodrom-token", default=os.environ.get("TANKODROM_TOKEN", ""), help="an API token")
    group.add_argument("--tankodrom-token-file", default="", help="a file holding the API token")
    for name in ("name", "description", "component", "version", "task"):
        group.add_argument(f"--tankodrom-{name}", default=None, help=f"the test's {name}")
    group.add_argument("--tankodrom-record", default="", help="where to write the run's requests (phout)")


def _start(environment: Environment, **_kwargs: Any) -> None:
    global _listener
    options = environment.parsed_options
    if options is None or _listener is not None:
        return
    if not isinstance(environment.runner, LocalRunner):
        log.error("tankodrom: only a standalone Locust run is sent (not a distributed one's master or workers)")
        return
    token = options.tankodrom_token
    if not token and options.tankodrom_token_file:
        token = Path(options.tankodrom_token_file).read_text().strip()
    if not options.tankodrom_url or not token:
        log.error("tankodrom: not sending this run: --tankodrom-url and a token (--tankodrom-token) are needed")
        return
    fields = ("name", "description", "component", "version", "task")
    meta = {name: getattr(options, f"tankodrom_{name}") for name in fields}
    meta = {name: value for name, value in meta.items() if value is not None}
    meta.setdefault("name", f"locust {Path(options.locustfile or 'locustfile.py').name}")
    record = Path(options.tankodrom_record or Path(tempfile.mkdtemp(prefix="tankodrom-locust-")) / "requests.phout")
    try:
        _listener = Listener(environment, Api(options.tankodrom_url, token), token, record, meta)
    except (ValueError, OSError, FollowError) as exc:
        log.error("tankodrom: not sending this run: %s", exc)


def _request(
    request_type: str, name: str, response_time: float, response_length: int, response: Any = None,
    exception: BaseException | None = None, start_time: float | None = None, **_kwargs: Any,
) -> None:  # fmt: skip
    if _listener is not None:
        _listener.request(request_type, name, response_time, response_length, response, exception, start_time)


def _stop(environment: Environment, **_kwargs: Any) -> None:
    if _listener is not None:
        _listener.finish()


# Locust's hooks are untyped: registered through one typed door rather than by decorators (which would make these
# functions untyped too).
def _listen(hook: Any, listener: Any) -> None:
    hook.add_listener(listener)


_listen(events.init_command_line_parser, _add_options)
_listen(events.test_start, _start)
_listen(events.request, _request)
_listen(events.test_stop, _stop)
