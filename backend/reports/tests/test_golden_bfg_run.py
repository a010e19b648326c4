"""Golden test on a real run (fixtures/bfg_run/README.md): the tank's stream, then its phout attached.

Streamed: counts and codes equal the phout's, quantiles within one bin of numpy on the phout. Attached phout:
the figures become exact (order statistics between numpy's lower and higher), the stream stays available.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from analytics.quantiles import bin_width_us
from analytics.tank_push import parse_monitoring, parse_push_data
from analytics.tests import reference
from backend.clickhouse import client
from backend.clickhouse.tables import monitoring, second_aggregates
from backend.loadtests.models import Test, TestStatus, Upload, UploadStatus
from backend.uploads.ingest import ingest_upload

RUN = Path(__file__).parent / "fixtures" / "bfg_run"
LEVELS = [50.0, 75.0, 90.0, 95.0, 99.0, 100.0]


def _phout() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    lines = [line.split("\t") for line in (RUN / "bfgout.log").read_text().splitlines() if line]
    interval = np.array([int(p[2]) for p in lines])
    second = np.array([int(float(p[0]) + int(p[2]) / 1e6) for p in lines])
    tag = np.array([p[1] for p in lines], dtype=object)
    http = np.array([int(p[11]) for p in lines])
    return second, tag, interval, http


def _stream(test: Test) -> None:
    rows = []
    for received_at_us, body in enumerate(json.loads((RUN / "push_data.json").read_text()), start=1):
        rows += [(test.pk, 0, *row, received_at_us) for row in parse_push_data(body)]
    client.insert_rows(second_aggregates.NAME, second_aggregates.COLUMNS, rows, tag="tests.reports.bfg_stream")


def test_a_real_run_streamed_then_made_exact_by_its_phout(owner, clickhouse, cache_clear, anon_api, tmp_path) -> None:
    second, tag, interval, http = _phout()
    test = Test.objects.create(owner=owner, name="bfg", status=TestStatus.READY, has_stream=True)
    _stream(test)

    for cases in ([], ["index"], ["missing", "search"]):
        keep = np.isin(tag, cases) if cases else np.ones(tag.size, dtype=bool)
        body = anon_api.get(f"/api/v1/tests/{test.pk}/summary", {"case": cases, "q": "50,75,90,95,99,100"}).json()
        assert body["exact"] is False and body["count"] == int(keep.sum()) == sum(body["http_codes"].values())
        assert body["http_codes"] == {str(k): v for k, v in sorted(Counter(http[keep].tolist()).items())}
        assert body["rps"]["max"] == reference.max_rps(second[keep])
        for level in LEVELS:
            exact = reference.order_statistic(interval[keep], level)
            assert abs(body["quantiles_ms"][f"{level:g}"] * 1000 - exact) <= bin_width_us(exact), (cases, level)

    path = tmp_path / "bfgout.log"
    shutil.copy(RUN / "bfgout.log", path)
    upload = Upload.objects.create(
        test=test, file_path=str(path), size_bytes=path.stat().st_size, status=UploadStatus.PARSING
    )
    assert ingest_upload(upload.pk) == UploadStatus.READY
    body = anon_api.get(f"/api/v1/tests/{test.pk}/summary", {"q": "50,75,90,95,99,100"}).json()
    assert body["exact"] is True and body["count"] == tag.size
    lower = np.percentile(interval, LEVELS, method="lower") / 1000
    higher = np.percentile(interval, LEVELS, method="higher") / 1000
    got = np.array([body["quantiles_ms"][f"{x:g}"] for x in LEVELS])
    assert np.all(got >= lower) and np.all(got <= higher)
    report = anon_api.get(f"/api/v1/tests/{test.pk}/report").json()
    assert [(s["kind"], s["active"]) for s in report["sources"]] == [("stream", False), ("upload", True)]
    assert report["cases"] == sorted(set(tag.tolist()) - {""})  # an empty tag is no case (overall only)


def test_the_runs_monitoring_in_the_tabs_groups(owner, clickhouse, cache_clear, anon_api) -> None:
    test = Test.objects.create(owner=owner, name="bfg", status=TestStatus.READY, has_stream=True)
    _stream(test)
    points = []
    for received_at_us, body in enumerate(json.loads((RUN / "monitoring.json").read_text()), start=1):
        points += [(test.pk, p.ts, p.host, p.metric, p.value, received_at_us) for p in parse_monitoring(body).points]
    client.insert_rows(monitoring.NAME, monitoring.COLUMNS, points, tag="tests.reports.bfg_monitoring")
    report = anon_api.get(f"/api/v1/tests/{test.pk}/report").json()
    first_ts, last_ts = report["first_ts"], report["last_ts"]  # monitoring shares the test's time axis
    body = anon_api.get(f"/api/v1/tests/{test.pk}/monitoring", {"compress_ratio": 1}).json()
    (host,) = body["hosts"]
    assert host["host"] == "localhost"
    groups = {g["group"]: g for g in host["groups"]}
    assert list(groups) == ["cpu", "memory", "load", "network", "disk", "custom"]
    assert "Net_retransmit" in groups["network"]["metrics"] and "System_csw" in groups["custom"]["metrics"]
    # Legends read "user (all CPUs)", not telegraf's name; `metrics` keeps the names as sent.
    user = next(t for t in groups["cpu"]["figure"]["data"] if t["name"] == "user (all CPUs)")
    sent = {
        p.ts: p.value
        for p in (
            x for body_ in json.loads((RUN / "monitoring.json").read_text()) for x in parse_monitoring(body_).points
        )
        if p.metric == "custom:cpu-cpu-total_usage_user" and first_ts <= p.ts <= last_ts
    }
    assert dict(zip((x // 1000 for x in user["x"]), user["y"], strict=True)) == pytest.approx(sent)
