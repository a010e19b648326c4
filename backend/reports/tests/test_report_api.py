"""Report, charts, tables, monitoring and config of streamed and uploaded tests; caching and post-processing."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from analytics.tests import reference
from backend.celery_app import app as celery_app
from backend.loadtests.models import Test, TestStatus, Upload, UploadStatus
from backend.reports import service
from backend.reports.tasks import postprocess_test
from backend.reports.tests import factory


@pytest.mark.parametrize("kind", ["streamed", "uploaded"])
def test_every_chart_is_a_plotly_figure(kind, request, anon_api) -> None:
    test, _ = request.getfixturevalue(kind)
    for name in service.CHART_NAMES:
        response = anon_api.get(f"/api/v1/tests/{test.pk}/charts/{name}")
        assert response.status_code == 200, (name, response.json())
        body = response.json()
        json.dumps(body, allow_nan=False)
        assert set(body) == {"figure", "compress_ratio"} and body["figure"]["data"], name
        assert "layout" in body["figure"]
    assert anon_api.get(f"/api/v1/tests/{test.pk}/charts/pie").status_code == 404


def test_quantiles_chart_series(streamed, anon_api) -> None:
    test, s = streamed
    body = anon_api.get(f"/api/v1/tests/{test.pk}/charts/quantiles", {"compress_ratio": 1, "q": "50,100"}).json()
    traces = {t["name"]: t for t in body["figure"]["data"]}
    assert set(traces) == {"50 %", "100 %", "responses/s", "planned RPS", "instances"}
    assert traces["planned RPS"]["line"]["color"] == "#e00000" and traces["planned RPS"]["yaxis"] == "y2"
    seconds, per_second = np.unique(s.receive_sec, return_counts=True)
    assert traces["responses/s"]["y"] == [float(x) for x in per_second]
    assert traces["100 %"]["x"][0] == int(seconds[0]) * 1000
    assert traces["instances"]["y"][0] == 7.0
    # Five seconds per point: a fifth of the points, the same responses in total.
    coarse = anon_api.get(f"/api/v1/tests/{test.pk}/charts/quantiles", {"compress_ratio": 5}).json()
    rps = next(t for t in coarse["figure"]["data"] if t["name"] == "responses/s")
    assert coarse["compress_ratio"] == 5 and len(rps["y"]) == 24
    assert sum(rps["y"]) * 5 == pytest.approx(len(s))


def test_long_tests_are_downsampled_for_charts_only(owner, clickhouse, cache_clear, anon_api) -> None:
    test = Test.objects.create(owner=owner, status=TestStatus.READY)
    s = factory.random_samples(7200, 3600, tags=("a",), seed=5)
    factory.insert_aggregates(factory.aggregate_rows(test.pk, 0, s))
    body = anon_api.get(f"/api/v1/tests/{test.pk}/charts/http_codes").json()
    assert body["compress_ratio"] > 1
    assert all(len(trace["x"]) <= 600 for trace in body["figure"]["data"])
    tables = anon_api.get(f"/api/v1/tests/{test.pk}/tables").json()
    assert tables["cases"][0]["count"] == len(s)
    fine = anon_api.get(f"/api/v1/tests/{test.pk}/charts/http_codes", {"compress_ratio": 1}).json()
    assert fine["compress_ratio"] == 1 and max(len(t["x"]) for t in fine["figure"]["data"]) > 3000


def test_window_and_cases_select_chart_data(uploaded, anon_api) -> None:
    test, s = uploaded
    t0 = int(s.receive_sec.min())
    params = {"from": t0 + 10, "to": t0 + 20, "case": "index", "compress_ratio": 1}
    body = anon_api.get(f"/api/v1/tests/{test.pk}/charts/http_codes", params).json()
    part = s.mask((s.receive_sec >= t0 + 10) & (s.receive_sec < t0 + 20) & (s.tag == "index"))
    total = sum(sum(v for v in trace["y"] if v) for trace in body["figure"]["data"])
    assert total == len(part)
    assert body["figure"]["layout"]["xaxis"]["range"] == [(t0 + 10) * 1000, (t0 + 20) * 1000]
    dist = anon_api.get(f"/api/v1/tests/{test.pk}/charts/distribution", {"case": ["index", "search"], "log": 1})
    names = [t["name"] for t in dist.json()["figure"]["data"]]
    assert names == ["index", "search"] and dist.json()["figure"]["layout"]["yaxis"]["type"] == "log"


def test_tables_of_an_uploaded_test_are_exact(uploaded, anon_api) -> None:
    test, s = uploaded
    body = anon_api.get(f"/api/v1/tests/{test.pk}/tables", {"q": "50,99"}).json()
    assert body["exact"] is True
    # Requests with an empty tag count in "overall" only; "__NOTAG__" is the tank's case for a tag cut to nothing.
    assert body["quantiles"]["columns"] == ["overall", "__NOTAG__", "index", "missing", "search"]
    timed = s.mask(s.net_code != 777)
    for row in body["quantiles"]["rows"]:
        level = float(row["level"])
        for column, value in zip(body["quantiles"]["columns"], row["values"], strict=True):
            part = timed if column == "overall" else timed.mask(timed.tag == column)
            lo = np.percentile(part.interval_real_us, level, method="lower") / 1000
            hi = np.percentile(part.interval_real_us, level, method="higher") / 1000
            assert lo <= value <= hi
    assert sum(r["count"] for r in body["http_codes"]) == len(s)
    assert sum(r["share"] for r in body["http_codes"]) == pytest.approx(1)
    names = {r["code"]: r["name"] for r in body["net_codes"]}
    assert names[110] == "Connection timed out" and names[777].startswith("Discarded")
    overall = body["cases"][0]
    assert overall["case"] == "overall" and overall["count"] == len(s)
    outcomes = overall["outcomes"]
    assert outcomes["net_errors"] == int((s.net_code != 0).sum())
    assert outcomes["http_errors"] == int(((s.proto_code == 0) | (s.proto_code >= 400)).sum())
    assert outcomes["failed"] == reference.failed(s.net_code, s.proto_code)
    assert outcomes["failed_share"] == outcomes["failed"] / len(s)
    assert overall["rps_max"] == reference.max_rps(s.receive_sec)
    # HTTP codes carry their meaning; Overload's interval table counts every timed response once.
    http_names = {r["code"]: r["name"] for r in body["http_codes"]}
    assert http_names[200] == "OK"
    assert all(name for name in http_names.values())
    # (The factory's rows histogram every sample; ingestion leaves 777 out: the table counts what the rows hold.)
    intervals = body["intervals"]
    assert sum(r["count"] for r in intervals) == len(s)
    assert sum(r["share"] for r in intervals) == pytest.approx(1)
    for r in intervals:
        inside = (s.interval_real_us >= r["from_ms"] * 1000) & (s.interval_real_us < r["to_ms"] * 1000)
        assert r["count"] == int(inside.sum()), r


def test_report_monitoring_and_config(streamed, anon_api) -> None:
    test, s = streamed
    test.config_initial = "phantom:\n  enabled: true\n"
    test.save(update_fields=["config_initial"])
    factory.insert_monitoring(
        test.pk,
        "target",
        {
            "custom:cpu-cpu-total_usage_user": [10, 20, 30],
            "Memory_used": [1e9, 1.1e9, 1.2e9],
            "custom:queue": [1, 2, 3],
        },
        t0=int(s.receive_sec.min()),
    )
    report = anon_api.get(f"/api/v1/tests/{test.pk}/report").json()
    assert report["cases"] == ["index", "missing", "search"] and report["exact"] is False
    assert report["monitoring_hosts"] == ["target"]
    assert report["first_ts"] == int(s.receive_sec.min()) and report["last_ts"] == int(s.receive_sec.max())
    assert report["sources"] == [
        {"source_id": 0, "kind": "stream", "first_ts": report["first_ts"], "last_ts": report["last_ts"], "active": True}
    ]
    mon = anon_api.get(f"/api/v1/tests/{test.pk}/monitoring", {"compress_ratio": 1}).json()
    groups = {g["group"]: g for g in mon["hosts"][0]["groups"]}
    assert list(groups) == ["cpu", "memory", "custom"]
    cpu = groups["cpu"]["figure"]["data"][0]
    assert cpu["y"] == [10.0, 20.0, 30.0]
    assert groups["cpu"]["figure"]["layout"]["xaxis"]["range"][0] == report["first_ts"] * 1000
    config = anon_api.get(f"/api/v1/tests/{test.pk}/config").json()
    assert config == {"configinitial": test.config_initial, "configinfo": "", "monitoringconfig": ""}


def test_postprocess_caches_the_default_view_sets_ready_and_queues_diagnosis(
    streamed, redis_db, anon_api, monkeypatch
) -> None:
    test, s = streamed
    monkeypatch.setitem(celery_app.conf, "task_always_eager", False)  # a real broker: the diagnosis is queued
    result = postprocess_test(test.pk)
    assert "summary" in result["cached"] and "chart:quantiles" in result["cached"]
    test.refresh_from_db()
    assert test.status == TestStatus.READY
    assert anon_api.get(f"/api/v1/tests/{test.pk}/report").json()["status"] == "ready"
    queued = [json.loads(m) for m in redis_db.lrange("analysis", 0, -1)]
    assert [m["headers"]["task"] for m in queued] == ["backend.diagnosis.tasks.diagnose_test"]
    # Served from the cache: rows written to ClickHouse afterwards do not show in the default view of a
    # finished test, and do in any other window (computed on demand).
    extra = factory.random_samples(100, 1, seed=99, t0=int(s.receive_sec.max()) + 5)
    factory.insert_aggregates(factory.aggregate_rows(test.pk, 0, extra))
    assert anon_api.get(f"/api/v1/tests/{test.pk}/summary").json()["count"] == len(s)
    assert anon_api.get(f"/api/v1/tests/{test.pk}/summary", {"q": "50"}).json()["count"] == len(s) + 100
    # Idempotent: a second run changes nothing but refreshes the cache.
    postprocess_test(test.pk)
    assert anon_api.get(f"/api/v1/tests/{test.pk}/summary").json()["count"] == len(s) + 100
    failed = Test.objects.create(owner=test.owner, status=TestStatus.FAILED)
    postprocess_test(failed.pk)
    failed.refresh_from_db()
    assert failed.status == TestStatus.FAILED


def test_online_tests_are_served_live(owner, clickhouse, cache_clear, anon_api) -> None:
    test = Test.objects.create(owner=owner, status=TestStatus.ONLINE, has_stream=True)
    first = factory.random_samples(200, 5, seed=1)
    factory.insert_aggregates(factory.aggregate_rows(test.pk, 0, first))
    assert anon_api.get(f"/api/v1/tests/{test.pk}/summary").json()["count"] == 200
    more = factory.random_samples(300, 5, seed=2, t0=factory.T0 + 5)
    factory.insert_aggregates(factory.aggregate_rows(test.pk, 0, more))
    assert anon_api.get(f"/api/v1/tests/{test.pk}/summary").json()["count"] == 500
    chart: dict[str, Any] = anon_api.get(f"/api/v1/tests/{test.pk}/charts/quantiles").json()
    rps = next(t for t in chart["figure"]["data"] if t["name"] == "responses/s")
    assert len(rps["x"]) == 10


def test_an_empty_test_answers_without_data(owner, clickhouse, cache_clear, anon_api) -> None:
    test = Test.objects.create(owner=owner, status=TestStatus.PROCESSING)
    summary = anon_api.get(f"/api/v1/tests/{test.pk}/summary").json()
    assert summary["count"] == 0 and summary["quantiles_ms"]["50"] is None
    chart = anon_api.get(f"/api/v1/tests/{test.pk}/charts/quantiles").json()
    assert chart["figure"]["data"] == []
    assert anon_api.get(f"/api/v1/tests/{test.pk}/tables").json()["cases"][0]["count"] == 0


def _attach_upload(test: Test, s: factory.Samples) -> None:
    """An uploaded phout of these samples, the test's active upload (its derived rows carry no plan, no instances)."""
    upload = Upload.objects.create(test=test, status=UploadStatus.READY)
    factory.insert_samples(test.pk, upload.pk, s)
    factory.insert_aggregates(factory.aggregate_rows(test.pk, upload.pk, s))
    test.active_upload = upload
    test.save(update_fields=["active_upload"])


def test_an_upload_attached_to_a_streamed_test_keeps_the_generators_lines(owner, clickhouse, cache_clear, anon_api):
    test = Test.objects.create(owner=owner, status=TestStatus.READY, has_stream=True)
    s = factory.random_samples(2000, 30, seed=3)
    # The tank streamed the shooting (planned RPS 90, 5 instances); then its phout was attached, whose derived
    # rows carry no planned RPS nor instances (phout has neither).
    factory.insert_aggregates(factory.aggregate_rows(test.pk, 0, s, reqps=90.0, threads=5))
    _attach_upload(test, s)
    body = anon_api.get(f"/api/v1/tests/{test.pk}/charts/quantiles", {"compress_ratio": 1}).json()
    traces = {t["name"]: t for t in body["figure"]["data"]}
    assert set(traces["planned RPS"]["y"]) == {90.0} and set(traces["instances"]["y"]) == {5.0}
    report = anon_api.get(f"/api/v1/tests/{test.pk}/report").json()
    assert report["exact"] is True
    assert [(x["kind"], x["active"]) for x in report["sources"]] == [("stream", False), ("upload", True)]
    scatter = anon_api.get(f"/api/v1/tests/{test.pk}/charts/instances_rps", {"compress_ratio": 1}).json()
    assert set(scatter["figure"]["data"][0]["x"]) == {5.0}


def test_monitoring_seconds_sent_twice_count_once(streamed, anon_api) -> None:
    test, s = streamed
    t0 = int(s.receive_sec.min())
    factory.insert_monitoring(test.pk, "target", {"System_la1": [1.0, 2.0]}, t0=t0, received_at_us=1)
    # The same seconds again, received later: one copy counts, the latest (averaging both would give 2.5).
    factory.insert_monitoring(test.pk, "target", {"System_la1": [3.0, 4.0]}, t0=t0, received_at_us=2)
    mon = anon_api.get(f"/api/v1/tests/{test.pk}/monitoring", {"compress_ratio": 2}).json()
    load = mon["hosts"][0]["groups"][0]
    assert load["group"] == "load" and load["figure"]["data"][0]["y"] == [3.5]


def test_tables_of_a_streamed_test_are_within_one_bin(streamed, anon_api) -> None:
    from analytics.quantiles import bin_width_us

    test, s = streamed
    body = anon_api.get(f"/api/v1/tests/{test.pk}/tables", {"q": "50,95,99"}).json()
    assert body["exact"] is False and body["quantiles"]["columns"] == ["overall", "index", "missing", "search"]
    for row in body["quantiles"]["rows"]:
        for column, value in zip(body["quantiles"]["columns"], row["values"], strict=True):
            part = s if column == "overall" else s.mask(s.tag == column)
            exact = reference.order_statistic(part.interval_real_us, float(row["level"]))
            assert abs(value * 1000 - exact) <= bin_width_us(exact) + 1, (column, row["level"])
    counts = {r["case"]: r["count"] for r in body["cases"]}
    assert counts == {"overall": len(s), **{t: int((s.tag == t).sum()) for t in ("index", "missing", "search")}}
    only = anon_api.get(f"/api/v1/tests/{test.pk}/tables", {"case": "search"}).json()
    assert only["quantiles"]["columns"] == ["overall", "search"]
    assert sum(r["count"] for r in only["http_codes"]) == int((s.tag == "search").sum())


def test_an_uploads_schedule_is_its_planned_rps_line(owner, clickhouse, cache_clear, anon_api) -> None:
    """A phout uploaded with `--schedule` has no planned RPS in its rows: the schedule is drawn, laid out from the
    test's first second as the diagnosis lays it out, averaged over each chart point."""
    test = Test.objects.create(owner=owner, status=TestStatus.READY, loadscheme=["line(10, 40, 20s)", "const(40, 10s)"])
    _attach_upload(test, factory.random_samples(900, 30, seed=5))
    body = anon_api.get(f"/api/v1/tests/{test.pk}/charts/quantiles", {"compress_ratio": 2}).json()
    planned = {t["name"]: t for t in body["figure"]["data"]}["planned RPS"]["y"]
    # line(10, 40, 20s): the middle of each second, 10.75, 12.25, ...; two seconds a point.
    assert planned[0] == pytest.approx((10.75 + 12.25) / 2) and planned[-1] == 40.0
    assert body["figure"]["layout"]["xaxis"]["dtick"] == 5000  # a 30 s test ticks every 5 s, never 0.5 s


def test_a_window_far_past_the_data_costs_the_schedule_not_its_span(owner, clickhouse, cache_clear, anon_api) -> None:
    """Any reader may ask for `?to=` centuries ahead: the planned-RPS line was laid out over every second of the
    window (4.3 * 10^9 seconds here: 34 GB, a 500 at once; 1.7 * 10^9 took the server down). Now only the seconds the
    schedule covers are."""
    test = Test.objects.create(owner=owner, status=TestStatus.READY, loadscheme=["line(10, 40, 20s)", "const(40, 10s)"])
    _attach_upload(test, factory.random_samples(900, 30, seed=5))
    answer = anon_api.get(f"/api/v1/tests/{test.pk}/charts/quantiles", {"from": 0, "to": 2**32 - 1})
    assert answer.status_code == 200, answer.content[:300]
    planned = {t["name"]: t for t in answer.json()["figure"]["data"]}["planned RPS"]["y"]
    assert max(planned) > 0  # the 30 s of the schedule fall within one point of the huge window


def test_charts_of_what_the_generator_did_not_measure_say_so(owner, clickhouse, cache_clear, anon_api) -> None:
    """BFG writes no phase times and no sizes: those charts say so instead of drawing flat zeros."""
    test = Test.objects.create(owner=owner, status=TestStatus.READY, has_stream=True)
    s = factory.random_samples(300, 10, seed=6)
    s.connect_time_us[:] = 0
    s.latency_us[:] = 0
    s.size_in_bytes[:] = 0
    s.size_out_bytes[:] = 0
    factory.insert_aggregates(factory.aggregate_rows(test.pk, 0, s))
    for name, words in (("times", "no phase times"), ("sizes", "no sizes")):
        figure = anon_api.get(f"/api/v1/tests/{test.pk}/charts/{name}").json()["figure"]
        assert figure["data"] == [] and words in figure["layout"]["meta"]["empty_reason"]
