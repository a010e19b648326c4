"""`tankodrom check --component NAME --test ID`: the CI gate.

Asks `GET /api/v1/components/<name>/check/<id>` and exits 0 when the test passes its component's thresholds and
is not `worse` than the baseline, 1 when it fails (the reasons on stdout, one a line), 2 on a usage or connection
error. Run right after a tank run or an upload, it waits while the server still processes the test (409) and
while the server is briefly unavailable (5xx), up to --timeout seconds.
"""

from __future__ import annotations

import argparse
import sys
import time
import urllib.parse
from typing import Any

from tankodrom_cli.options import add_server_options, token_of
from tankodrom_cli.transport import Api, TransportError

PASS, FAIL, ERROR = 0, 1, 2
CONNECT_RETRIES = 3


def add_parser(sub: Any, default_server: str) -> None:
    check = sub.add_parser("check", help="CI gate: exit 0 if a test passes its component's thresholds and baseline")
    check.add_argument("--component", required=True, help="the component whose thresholds and baseline apply")
    check.add_argument("--test", type=int, required=True, help="the test to judge")
    add_server_options(check, default_server)
    check.add_argument("--timeout", type=float, default=1800.0, help="seconds to wait for post-processing at most")


def _say(text: str) -> None:
    print(f"tankodrom check: {text}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    try:
        token = token_of(args)
    except OSError as exc:
        _say(f"--token-file: {exc}")
        return ERROR
    if not token:
        _say("an API token is needed: --token, --token-file or the TANKODROM_TOKEN variable")
        return ERROR
    if args.test <= 0:
        _say("--test: a test id is a positive number")
        return ERROR
    try:
        api = Api(args.server, token)
    except ValueError as exc:
        _say(f"--server: {exc}")
        return ERROR
    path = f"/api/v1/components/{urllib.parse.quote(args.component, safe='')}/check/{args.test}"
    deadline = time.monotonic() + args.timeout
    delay = 0.5
    connect_failures = 0
    told_waiting = False
    while True:
        try:
            response = api.call("GET", path)
        except TransportError as exc:
            connect_failures += 1
            if connect_failures > CONNECT_RETRIES:
                _say(f"cannot reach the server: {exc}")
                return ERROR
            time.sleep(delay)
            continue
        connect_failures = 0
        if response.status_code == 200:
            return _verdict(response.json(), args)
        if response.status_code != 409 and response.status_code < 500:
            _say(response.error())
            return ERROR
        if time.monotonic() + delay > deadline:
            _say(f"gave up after {args.timeout:g} s: {response.error()}")
            return ERROR
        if not told_waiting:
            _say(f"waiting for test {args.test}: {response.error()}")
            told_waiting = True
        time.sleep(delay)
        delay = min(delay * 1.5, 5.0)


def _verdict(body: dict[str, Any], args: argparse.Namespace) -> int:
    for note in body.get("notes") or []:
        _say(f"note: {note}")
    passed = bool(body.get("pass"))
    for reason in body.get("reasons") or []:
        print(reason)
    url = body.get("report_url") or ""
    baseline = body.get("baseline")
    against = f" (baseline #{baseline['id']})" if isinstance(baseline, dict) and "id" in baseline else ""
    _say(f"test {args.test} {'passes' if passed else 'FAILS'} component {args.component!r}{against} {url}".rstrip())
    return PASS if passed else FAIL
