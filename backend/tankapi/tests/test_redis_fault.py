"""Fault test: the Redis that holds the ingest buffer restarts mid-stream; what was acknowledged to the tank survives.

A simulated tank pushes through the production entry (backend.asgi under uvicorn) one second at a time, retrying
503 and connection errors as the real client does, while the beat's flush runs after each push. A third of the way
in, a Redis of our own (append-only file, as deploy/stack.sh starts it) goes away and comes back on the same files:
stopped as a service manager stops it (SIGTERM: it writes its append-only file out), or killed -9 when it runs with
`appendfsync always` (with the default `everysec`, a kill -9 of Redis or a crash of its host may lose the last
second acknowledged: README, "Durable ingest buffer"). Pushes are answered 503 while it is away; afterwards every
second the server acknowledged is in ClickHouse exactly once, as read with FINAL, and nothing else is.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
import requests
from django.conf import settings as django_settings

from backend.clickhouse import client as ch
from backend.clickhouse.tables import second_aggregates
from backend.tankapi import buffer, flush
from backend.testing import LiveASGIServer, free_port

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("clickhouse"), pytest.mark.django_db(transaction=True)]

FIRST_TS = 1_795_500_000
SECONDS = 15


class OwnRedis:
    def __init__(self, base: Path, fsync: str) -> None:
        self.base, self.fsync, self.port = base, fsync, free_port()
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.base.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--bind",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--dir",
                str(self.base),
                "--save",
                "",
                "--appendonly",
                os.environ.get("TANKODROM_FAULT_REDIS_APPENDONLY", "yes"),  # "no" shows what the test catches
                "--appendfsync",
                self.fsync,
            ],
            stdout=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                if redis.Redis(port=self.port, socket_timeout=1).ping():
                    return
            except redis.RedisError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("own Redis did not start")
            time.sleep(0.05)

    def stop(self, how: int) -> None:
        assert self.process is not None
        self.process.send_signal(how)
        self.process.wait(30)
        self.process = None


@pytest.fixture(params=[("SIGTERM", "everysec"), ("SIGKILL", "always")], ids=["restart", "kill-9-fsync-always"])
def own_redis(request: pytest.FixtureRequest, settings: Any) -> Iterator[tuple[OwnRedis, int]]:
    how, fsync = request.param
    base = Path(django_settings.VAR_DIR) / f"tankapi-fault-redis-{os.getpid()}"
    shutil.rmtree(base, ignore_errors=True)
    server = OwnRedis(base, fsync)
    server.start()
    settings.REDIS_URL = f"redis://127.0.0.1:{server.port}/0"
    try:
        yield server, getattr(signal, how)
    finally:
        if server.process is not None:
            server.stop(signal.SIGKILL)
        shutil.rmtree(base, ignore_errors=True)


def _body(ts: int) -> bytes:
    items = [
        {
            "overall": overall,
            "case": case,
            "net_codes": [{"code": 0, "count": 4}],
            "http_codes": [{"code": 200, "count": 4}],
            "time_intervals": [{"from": 0, "to": 12.0, "count": 4}],
            "trail": {"time": str(ts), "reqps": 4, "resps": 4, "expect": 11.0, "q50": 11.0, "q100": 11.9},
        }
        for overall, case in ((0, "alpha"), (1, ""))
    ]
    return json.dumps(items).encode()


def _beat() -> None:
    # The beat's task fails while Redis is away, and runs again a second later.
    with contextlib.suppress(redis.RedisError):
        flush.flush_all(max_seconds=2)


def test_a_redis_restart_mid_stream_keeps_what_was_acknowledged(
    own_redis: tuple[OwnRedis, int], tank_user: tuple[Any, str]
) -> None:
    server, how = own_redis
    _user, token = tank_user
    acknowledged: list[int] = []
    refused = waiting = 0
    with LiveASGIServer() as live, requests.Session() as http:
        (created,) = http.post(f"{live.url}/api/job/create.json?api_token={token}", data=b"{}", timeout=30).json()
        url = f"{live.url}/api/job/{created['job']}/push_data.json"
        params = {"upload_token": created["upload_token"], "api_token": token}
        for index in range(SECONDS):
            ts = FIRST_TS + index
            if index == SECONDS // 3:
                server.stop(how)
            attempts = 0
            while True:  # the tank's retry loop on 5xx and network errors
                try:
                    status = http.post(url, params=params, data=_body(ts), timeout=30).status_code
                except requests.ConnectionError:
                    status = 0
                if status == 200:
                    acknowledged.append(ts)
                    break
                assert status in (0, 503), status
                refused += 1
                attempts += 1
                if attempts == 3 and server.process is None:
                    server.start()
                time.sleep(0.1)
            if not SECONDS // 3 - 3 <= index < SECONDS // 3:  # the seconds before the stop still wait in Redis
                _beat()
            if index == SECONDS // 3 - 1:
                waiting = buffer.backlog()
        total = flush.flush_all()
    assert waiting == 3, "acknowledged seconds must be waiting in Redis when it goes away"
    assert refused >= 3, "pushes must be refused while Redis is away"
    assert not total.error and buffer.backlog() == 0
    rows = ch.execute(
        f"SELECT ts, case, count(), sum(resps) FROM {second_aggregates.NAME} FINAL"
        f" WHERE test_id = %(t)s GROUP BY ts, case ORDER BY ts, case",
        {"t": created["job"]},
        tag="tests.tankapi.redis_fault",
    )
    assert acknowledged == [FIRST_TS + i for i in range(SECONDS)]
    assert rows == [(ts, case, 1, 4) for ts in acknowledged for case in ("", "alpha")]
