"""Faults on a ClickHouse cluster (`make test-cluster`): a replica of each shard stops in the middle of a tank stream
and of a big phout upload. Nothing accepted is lost or doubled, reads keep answering, and the stopped replicas
catch up when they come back.

The replicas stopped are the first of each shard: the ones a Distributed INSERT goes to first (load_balancing
in_order), and node 1 is the one the application is connected to, so its connection breaks and moves to the next
of CLICKHOUSE_ALT_HOSTS. The upload's ingestion is retried as its Celery task does on ClickHouseUnavailable
(backend/uploads/tasks.py), from scratch, deleting what the broken attempt stored.

`CLUSTER_FAULT_LINES` sets the upload's size (default 300,000 lines: a few seconds of CI); bench/cluster_faults/
README.md has the 10M-line run's figures.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import requests

from backend.clickhouse import client, engines
from backend.clickhouse.tables import samples, second_aggregates
from backend.loadtests.models import Test, Upload, UploadStatus
from backend.tankapi import buffer, flush
from backend.testing import ROOT, LiveASGIServer, api_client_for, clear_push_caches, cluster_nodes, node_client

pytestmark = [
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not engines.current().is_cluster, reason="needs a ClickHouse cluster (make test-cluster)"),
]

LINES = int(os.environ.get("CLUSTER_FAULT_LINES", "300000"))
# How long after the upload's INSERT starts the replicas are killed.
STOP_AFTER_S = float(os.environ.get("CLUSTER_FAULT_STOP_AFTER_S", "0.1"))
FIRST_TS = 1_795_500_000


def _cluster_sh(*args: str) -> None:
    subprocess.run([str(ROOT / "deploy" / "cluster.sh"), *args], check=True, capture_output=True, timeout=120)


def _local_count(port: int, table: str, where: str) -> int:
    node = node_client(port, connect_timeout=2, send_receive_timeout=600)
    try:
        node.execute(f"SYSTEM SYNC REPLICA {engines.local_name(table, engines.current())}")
        return int(
            node.execute(f"SELECT count() FROM {engines.local_name(table, engines.current())} WHERE {where}")[0][0]
        )
    finally:
        node.disconnect()


class Outage:
    """Stops the first replica of each shard, and starts them again; remembers for how long they were down."""

    def __init__(self) -> None:
        self.numbers = [i + 1 for i, (_s, replica, _p) in enumerate(cluster_nodes()) if replica == 1]
        self.ports = [port for _s, replica, port in cluster_nodes() if replica == 1]
        self.staying = [port for _s, replica, port in cluster_nodes() if replica != 1]
        self.down_at = self.up_at = 0.0

    def stop(self) -> None:
        for number in self.numbers:
            _cluster_sh("kill-node", str(number))  # a crash: no graceful end of the INSERTs under way
        self.down_at = time.monotonic()

    def start(self) -> None:
        if self.down_at and not self.up_at:
            for number in self.numbers:
                _cluster_sh("start-node", str(number))
            self.up_at = time.monotonic()


@pytest.fixture
def outage(clickhouse: None) -> Any:
    out = Outage()
    yield out
    out.start()
    client.reset_connections()


def _push_body(ts: int) -> bytes:
    items = [
        {
            "overall": overall,
            "case": case,
            "net_codes": [{"code": 0, "count": resps}],
            "http_codes": [{"code": 200, "count": resps}],
            "time_intervals": [{"from": 0, "to": 12.0, "count": resps}],
            "trail": {"time": str(ts), "reqps": 8, "resps": resps, "expect": 10.0, "q50": 11.0, "q100": 12.0},
        }
        for overall, case, resps in [(0, "alpha", 3), (1, "", 3)]
    ]
    return json.dumps(items).encode()


def test_a_tank_stream_goes_on_through_a_replica_outage(outage: Outage, owner: Any, redis_db: Any) -> None:
    from backend.loadtests.tokens import create_token

    clear_push_caches()
    _token, token = create_token(owner, "tank")
    seconds = 30
    refused = 0
    with LiveASGIServer() as server, requests.Session() as http:
        (answer,) = http.post(f"{server.url}/api/job/create.json?api_token={token}", data=b"{}", timeout=30).json()
        job, upload_token = answer["job"], answer["upload_token"]
        url = f"{server.url}/api/job/{job}/push_data.json?upload_token={upload_token}&api_token={token}"
        for index in range(seconds):
            if index == seconds // 3:
                outage.stop()
            if index == 2 * seconds // 3:
                outage.start()
            while (status := http.post(url, data=_push_body(FIRST_TS + index), timeout=30).status_code) != 200:
                assert status == 503
                refused += 1
                flush.flush_all(max_seconds=2)
            flush.flush_all(max_seconds=2)
            if outage.down_at and not outage.up_at:  # reads keep answering meanwhile
                assert client.execute(
                    f"SELECT count() FROM {second_aggregates.NAME} FINAL WHERE test_id = %(t)s",
                    {"t": job},
                    tag="tests.read",
                )[0][0] >= 2 * (seconds // 3)
    assert not flush.flush_all().error and buffer.backlog() == 0
    per_second = client.execute(
        f"SELECT ts, case, count(), sum(resps) FROM {second_aggregates.NAME} FINAL WHERE test_id = %(t)s "
        "GROUP BY ts, case ORDER BY ts, case",
        {"t": job},
        tag="tests.cluster.stream",
    )
    assert per_second == [(FIRST_TS + i, case, 1, 3) for i in range(seconds) for case in ("", "alpha")]
    for port in outage.ports:  # back and caught up: what was written while it was away, and nothing twice
        rows = _local_count(port, second_aggregates.NAME, f"test_id = {int(job)}")
        holds_the_test = int(job) % 2 == outage.ports.index(port)
        assert rows == (2 * seconds if holds_the_test else 0)
    print(f"\ntank stream: {seconds} s pushed, {refused} pushes refused with 503 during the outage")


def test_a_big_upload_is_ingested_once_through_a_replica_outage(
    outage: Outage, owner: Any, tmp_path: Path, settings: Any, monkeypatch: Any
) -> None:
    from backend.uploads import ingest, receive

    settings.VAR_DIR = tmp_path
    path = tmp_path / "big.phout"
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "gen_phout.py"), "--lines", str(LINES), "--duration", "600",
         "--start", str(FIRST_TS), "-o", str(path)],
        check=True, capture_output=True, timeout=600,
    )  # fmt: skip
    queued: list[int] = []
    monkeypatch.setattr(receive, "_queue_ingestion", queued.append)  # the worker's part is played below
    monkeypatch.setattr(receive, "FOLLOW_MIN_TOTAL_BYTES", 1 << 62)
    test = Test.objects.create(owner=owner, name="big upload through an outage")
    with path.open("rb") as body:
        answer = api_client_for(owner).generic(
            "PUT", f"/api/v1/tests/{test.pk}/phout", body.read(), content_type="application/octet-stream"
        )
    assert answer.status_code == 202, answer.content
    (upload_id,) = queued

    def stop_once_inserting() -> None:
        """Kill the replicas as soon as the upload's INSERT into samples runs on the application's node."""
        watcher = node_client(outage.ports[0])
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            running = watcher.execute(
                "SELECT count() FROM system.processes WHERE query LIKE %(q)s", {"q": f"INSERT INTO {samples.NAME} %"}
            )
            if running[0][0]:
                break
            time.sleep(0.02)
        watcher.disconnect()
        time.sleep(STOP_AFTER_S)
        outage.stop()

    stopper = threading.Thread(target=stop_once_inserting)
    stopper.start()
    attempts, started = 0, time.monotonic()
    while True:  # backend/uploads/tasks.py: retried while ClickHouse is unavailable
        attempts += 1
        try:
            outcome = ingest.ingest_upload(upload_id)
        except client.ClickHouseUnavailable:
            time.sleep(1)
            continue
        if outcome == UploadStatus.READY or attempts > 20:
            break
        time.sleep(1)
    ingest_s = time.monotonic() - started
    stopper.join()
    assert outcome == UploadStatus.READY, Upload.objects.get(pk=upload_id).error
    assert attempts >= 2, "the outage was meant to break the first attempt's INSERT"
    stored = client.execute(
        f"SELECT count() FROM {samples.NAME} WHERE test_id = %(t)s AND upload_id = %(u)s",
        {"t": test.pk, "u": upload_id},
        tag="tests.cluster.upload",
    )
    assert stored == [(LINES,)]  # read while the replicas are down: every line once
    resps = client.execute(
        f"SELECT sum(resps) FROM {second_aggregates.NAME} FINAL WHERE test_id = %(t)s AND source_id = %(u)s "
        "AND case = ''",
        {"t": test.pk, "u": upload_id},
        tag="tests.cluster.upload",
    )
    assert resps == [(LINES,)]
    outage.start()
    shard = test.pk % 2
    started = time.monotonic()
    caught_up = _local_count(outage.ports[shard], samples.NAME, f"upload_id = {int(upload_id)}")
    catch_up_s = time.monotonic() - started
    # Mutations of the broken attempt's rows finish in the background on the replica that comes back.
    deadline = time.monotonic() + 120
    while caught_up != LINES and time.monotonic() < deadline:
        time.sleep(1)
        caught_up = _local_count(outage.ports[shard], samples.NAME, f"upload_id = {int(upload_id)}")
    assert caught_up == LINES
    print(
        f"\nupload of {LINES} lines: {attempts} attempts, {ingest_s:.1f} s to ready with the replicas down "
        f"{outage.up_at - outage.down_at:.1f} s; the returning replica caught up in {catch_up_s:.1f} s"
    )
