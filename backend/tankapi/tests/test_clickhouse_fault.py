"""Fault test: ClickHouse stops mid-stream and comes back; every second the server accepted is stored exactly once.

A simulated tank pushes, through the production entry (backend.asgi under uvicorn: the pushes' appends on its
event loop), one second at a time (two cases and the overall item, plus a monitoring chunk), retrying on
503 as the real client does; after each push the beat's flush runs. A third of the way in, a private ClickHouse
(never the shared one) is stopped: the first flush fails, pushes are answered 503 while accepted ones wait in
Redis, and after a restart the flush resumes. Counted with FINAL, each (second, case) is there once with its
numbers, none is missing, and monitoring is complete.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from backend.clickhouse import client as ch
from backend.clickhouse.tables import monitoring, second_aggregates
from backend.loadtests.models import Test
from backend.tankapi import buffer, flush
from backend.testing import LiveASGIServer, SpareClickHouse, serving_spare_clickhouse

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

FIRST_TS = 1_795_400_000
SECONDS = 12
CASES = ("alpha", "beta")


@pytest.fixture
def own_clickhouse(settings: Any) -> Iterator[SpareClickHouse]:
    with serving_spare_clickhouse(settings, "tankapi-fault-ch", "tankapi_fault") as server:
        yield server


def _body(ts: int) -> bytes:
    items = []
    for overall, case, resps in [(0, "alpha", 3), (0, "beta", 5), (1, "", 8)]:
        items.append(
            {
                "overall": overall,
                "case": case,
                "net_codes": [{"code": 0, "count": resps}],
                "http_codes": [{"code": 200, "count": resps - 1}, {"code": 503, "count": 1}],
                "time_intervals": [{"from": 0, "to": 12.0, "count": resps - 1}, {"from": 0, "to": 250.0, "count": 1}],
                "trail": {"time": str(ts), "reqps": 8, "resps": resps, "expect": 40.0, "q50": 11.0, "q100": 249.5},
            }
        )
    return json.dumps(items).encode()


def _monitoring(ts: int) -> bytes:
    chunk = [{"timestamp": ts, "data": {"sut": {"comment": "", "metrics": {"Memory_used": 1000 + ts % 100}}}}]
    return json.dumps(chunk).encode()


def test_clickhouse_outage_mid_stream_loses_and_duplicates_nothing(
    own_clickhouse: SpareClickHouse, tank_user: tuple[Any, str], redis_db: Any
) -> None:
    _user, token = tank_user
    with LiveASGIServer() as server, requests.Session() as http:
        _stream_through_an_outage(server.url, http, own_clickhouse, token)


def _stream_through_an_outage(base: str, http: requests.Session, own_clickhouse: SpareClickHouse, token: str) -> None:
    created = http.post(f"{base}/api/job/create.json?api_token={token}", data=b"{}", timeout=30)
    (answer,) = created.json()
    job, upload = answer["job"], answer["upload_token"]
    data_url = f"{base}/api/job/{job}/push_data.json?upload_token={upload}&api_token={token}"
    mon_url = f"{base}/api/monitoring/receiver/push?job_id={job}&upload_token={upload}&api_token={token}"

    refused = 0
    backlog_while_down = 0
    for index in range(SECONDS):
        ts = FIRST_TS + index
        if index == SECONDS // 3:
            own_clickhouse.stop()
        for url, body in ((data_url, _body(ts)), (mon_url, _monitoring(ts))):
            attempts = 0
            while True:  # the tank's retry loop on 5xx
                status = http.post(url, data=body, timeout=30).status_code
                if status == 200:
                    break
                assert status == 503
                refused += 1
                attempts += 1
                backlog_while_down = max(backlog_while_down, buffer.backlog())
                flush.flush_all(max_seconds=2)  # the beat keeps trying while ClickHouse is away
                if attempts == 3 and own_clickhouse.process is None:
                    own_clickhouse.start()
        flush.flush_all(max_seconds=2)
    assert refused >= 3, "pushes must be refused with 503 while ClickHouse is down"
    assert backlog_while_down >= 1, "what was accepted before the outage was noticed must wait in Redis"

    total = flush.flush_all()
    assert not total.error and buffer.backlog() == 0
    # Count the rows as they sit in the table and as FINAL reads them: duplicates would show in the second.
    per_key = ch.execute(
        f"SELECT ts, case, count(), sum(resps), arraySum(groupArray(arraySum(hist_counts)))"
        f" FROM {second_aggregates.NAME} FINAL WHERE test_id = %(t)s GROUP BY ts, case ORDER BY ts, case",
        {"t": job},
        tag="tests.tankapi.fault.seconds",
    )
    expected = [
        (FIRST_TS + i, case, 1, resps, resps)
        for i in range(SECONDS)
        for case, resps in (("", 8), ("alpha", 3), ("beta", 5))
    ]
    assert per_key == expected
    points = ch.execute(
        f"SELECT ts, value FROM {monitoring.NAME} FINAL WHERE test_id = %(t)s ORDER BY ts",
        {"t": job},
        tag="tests.tankapi.fault.monitoring",
    )
    assert points == [(FIRST_TS + i, float(1000 + (FIRST_TS + i) % 100)) for i in range(SECONDS)]
    test = Test.objects.get(pk=job)
    assert (test.first_ts, test.last_ts, test.has_stream) == (FIRST_TS, FIRST_TS + SECONDS - 1, True)
