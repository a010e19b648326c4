"""Benchmark of the report API: default-view calls warm, custom windows on demand, 1 test stored vs 100.

Builds, in its own PostgreSQL and ClickHouse databases (never the served ones):
- an uploaded test: `--samples` raw phout rows (10M at full scale) over `--upload-seconds`, 10 cases, stored
  in `samples` plus their per-second rows derived by analytics.aggregate (what the uploads pipeline stores);
- a streamed test: `--stream-seconds` (3600) of the tank's per-second rows for `--cases` cases (10) plus
  overall, with realistic histograms, and one monitoring host with 30 metrics;
then measures, through Django's test client (view, serialization and cache included, no network):
- every report call of the default view, warm (after post-processing filled the cache): p50/p95/max;
- the same calls computed without the cache (what a first or non-default request costs);
- summary over custom windows of the raw samples (random windows and cases);
and repeats everything after loading `--other-tests` more tests (100 in total), to show the cost does not grow
with the number of tests stored.

Full scale:   .venv/bin/python bench/report_api/run.py --samples 10000000
Reduced now:  .venv/bin/python bench/report_api/run.py --samples 1000000 --other-tests 20 --other-samples 50000
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def _configure(args: argparse.Namespace) -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "backend.settings"
    os.environ["CLICKHOUSE_DATABASE"] = args.ch_database
    os.environ["DATABASE_URL"] = f"postgres://postgres@127.0.0.1:5432/{args.pg_database}"
    os.environ["REDIS_URL"] = args.redis_url
    # The reads are anonymous (Django's test client, one address): the anonymous rate limit on windows of one's own
    # (accounts.throttling) is not what is measured here, and hundreds of windows a minute would meet it.
    os.environ["TANKODROM_ANON_READ_RATE"] = "1000000/min"
    import psycopg2

    conn = psycopg2.connect(host="127.0.0.1", user="postgres", dbname="postgres")
    conn.autocommit = True
    with conn.cursor() as cur:
        cur.execute("SELECT 1 FROM pg_database WHERE datname = %s", (args.pg_database,))
        if cur.fetchone() is None:
            cur.execute(f'CREATE DATABASE "{args.pg_database}"')
    conn.close()
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from backend.clickhouse import migrate
    from backend.testing import drop_database

    if args.fresh:
        drop_database()
    migrate.apply_all()


def _sample_columns(rng: Any, n: int, t0: int, seconds: int, n_cases: int) -> tuple[Any, list[str]]:
    import numpy as np

    from analytics.schema.samples import SampleColumns

    cases = [f"case_{i}" for i in range(n_cases)]
    # A ramp: the load grows through the test, responses slow down with it, a tail of slow ones.
    position = np.sort(rng.random(n) ** 0.7)
    receive_sec = (t0 + (position * seconds).astype(np.int64)).astype(np.int64)
    load = position
    interval = (rng.lognormal(mean=9.5 + 1.2 * load**3, sigma=0.5, size=n)).astype(np.int64)
    slow = rng.random(n) < 0.001
    interval[slow] = rng.integers(1_000_000, 11_000_000, size=int(slow.sum()))
    net = np.where(interval >= 10_000_000, 110, 0).astype(np.int32)
    proto = rng.choice(np.array([200] * 46 + [404, 404, 500, 503], dtype=np.int32), size=n)
    proto[net != 0] = 0
    weights = np.linspace(2.0, 0.5, n_cases)
    case_codes = rng.choice(n_cases, size=n, p=weights / weights.sum()).astype(np.int32)
    cols = SampleColumns(
        send_ts_us=receive_sec * 1_000_000,
        receive_sec=receive_sec,
        case_codes=case_codes,
        interval_real_us=interval,
        connect_time_us=(interval // 20).astype(np.int64),
        send_time_us=np.full(n, 15, dtype=np.int64),
        latency_us=(interval * 9 // 10).astype(np.int64),
        receive_time_us=(interval // 25).astype(np.int64),
        interval_event_us=np.zeros(n, dtype=np.int64),
        size_out_bytes=np.full(n, 180, dtype=np.int64),
        size_in_bytes=rng.integers(300, 4000, size=n).astype(np.int64),
        net_code=net,
        proto_code=proto,
    )
    return cols, cases


def _insert_aggregates(test_id: int, source_id: int, cols: Any, cases: list[str], *, tag: str, **fixed: Any) -> None:
    """The per-second rows of these samples, inserted as ingestion inserts them; `fixed` replaces whole columns
    (the stream's planned RPS and instances, which samples do not carry)."""
    from analytics.aggregate import aggregate_table
    from backend.clickhouse import client
    from backend.clickhouse.tables import second_aggregates

    table = aggregate_table(cols, cases)
    columns = second_aggregates.columns_of(test_id, source_id, table, 1)
    columns.update({name: make(table) for name, make in fixed.items()})
    with client.native_insert(second_aggregates.NAME, second_aggregates.COLUMNS, tag=tag) as insert:
        insert.send(columns)


def _store_upload(test_id: int, upload_id: int, cols: Any, cases: list[str], chunk: int = 1_000_000) -> None:
    import numpy as np

    from backend.clickhouse import client
    from backend.clickhouse.tables import samples

    tag_of = np.array(cases, dtype=object)
    for start in range(0, cols.rows, chunk):
        part = cols.take(np.arange(start, min(start + chunk, cols.rows)))
        n = part.rows
        client.insert_columns(
            samples.NAME,
            {
                "test_id": np.full(n, test_id, dtype=np.uint64),
                "upload_id": np.full(n, upload_id, dtype=np.uint64),
                "receive_sec": part.receive_sec.astype(np.uint32),
                "send_ts_us": (part.receive_sec * 1_000_000 - part.interval_real_us).astype(np.uint64),
                "tag": tag_of[part.case_codes],
                "interval_real_us": part.interval_real_us,
                "connect_time_us": part.connect_time_us,
                "send_time_us": part.send_time_us,
                "latency_us": part.latency_us,
                "receive_time_us": part.receive_time_us,
                "interval_event_us": np.zeros(n, dtype=np.int64),
                "size_out_bytes": part.size_out_bytes,
                "size_in_bytes": part.size_in_bytes,
                "net_code": part.net_code,
                "proto_code": part.proto_code,
            },
            tag="bench.samples",
            use_numpy=True,
        )
    # Seconds are sorted, so chunks split at second boundaries aggregate exactly like the whole.
    seconds = np.unique(cols.receive_sec)
    for i in range(0, seconds.size, 200):
        window = (cols.receive_sec >= seconds[i]) & (cols.receive_sec <= seconds[min(i + 199, seconds.size - 1)])
        _insert_aggregates(test_id, upload_id, cols.take(window), cases, tag="bench.aggregates")


def _store_stream(test_id: int, rng: Any, t0: int, seconds: int, n_cases: int, rps: int) -> None:
    import numpy as np

    from backend.clickhouse import client
    from backend.clickhouse.tables import monitoring

    for start in range(0, seconds, 300):
        span = min(300, seconds - start)
        cols, cases = _sample_columns(rng, rps * span, t0 + start, span, n_cases)
        _insert_aggregates(
            test_id,
            0,
            cols,
            cases,
            tag="bench.stream",
            reqps=lambda table: np.full(table.size, float(rps)),
            threads=lambda table: (50 + (table.ts - t0) // 60).astype(np.uint32),  # instances ramp
        )
    metrics = [f"custom:cpu-cpu{i}_usage_user" for i in range(8)] + [
        "Memory_used", "Memory_free", "Memory_buff", "Memory_cached", "System_la1", "System_la5", "System_la15",
        "custom:net-eth0_bytes_recv", "custom:net-eth0_bytes_sent", "Net_retransmit",
        "custom:diskio-sda_read_bytes", "custom:diskio-sda_write_bytes", "System_csw", "System_int",
    ]  # fmt: skip
    ts = np.arange(t0, t0 + seconds)
    for metric in metrics:
        values = rng.random(seconds) * 100
        client.insert_columns(
            monitoring.NAME,
            {
                "test_id": np.full(seconds, test_id, dtype=np.uint64),
                "ts": ts.astype(np.uint32),
                "host": np.array(["target-1"] * seconds, dtype=object),
                "metric": np.array([metric] * seconds, dtype=object),
                "value": values,
                "received_at_us": np.ones(seconds, dtype=np.uint64),
            },
            tag="bench.monitoring",
            use_numpy=True,
        )


def _timed(fn: Any, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        out.append((time.perf_counter() - started) * 1000)
    return out


def _stats(ms: list[float]) -> dict[str, float]:
    ordered = sorted(ms)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"p50_ms": round(statistics.median(ordered), 1), "p95_ms": round(p95, 1), "max_ms": round(ordered[-1], 1)}


DEFAULT_CALLS = ["report", "summary", "tables", "monitoring"] + [
    f"charts/{n}"
    for n in (
        "quantiles", "http_codes", "net_codes", "times", "sizes", "quantiles_by_load", "instances_rps", "distribution",
    )
]  # fmt: skip


def _measure(test_id: int, repeat: int, rng: Any, first: int, last: int, with_samples: bool) -> dict[str, Any]:
    from django.test import Client

    from backend.loadtests.models import Test
    from backend.reports import service
    from backend.reports.tasks import warm_default_views
    from backend.reports.window import Window

    http = Client()
    test = Test.objects.get(pk=test_id)
    started = time.perf_counter()
    warm_default_views(test)  # what post-processing does when the test closes or its upload ends
    warm_s = time.perf_counter() - started
    result: dict[str, Any] = {"postprocess_warm_s": round(warm_s, 2), "warm": {}, "uncached": {}, "custom": {}}

    def call(path: str, params: dict[str, Any] | None = None) -> None:
        response = http.get(f"/api/v1/tests/{test_id}/{path}", params or {})
        assert response.status_code == 200, (path, response.status_code, response.content[:300])

    for path in DEFAULT_CALLS:
        call(path)  # warm-up: the first request of a process imports views and opens connections
        result["warm"][path] = _stats(_timed(lambda p=path: call(p), repeat))
    # Uncached: the default view computed by the service itself, as a first request or post-processing pays it.
    default = Window()
    compute = {
        "report": lambda: service.report(test),
        "summary": lambda: service.summary(test, default),
        "tables": lambda: service.tables(test, default),
        "monitoring": lambda: service.monitoring(test, default),
        **{f"charts/{name}": (lambda n=name: service.chart(test, n, default)) for name in service.CHART_NAMES},
    }
    for path in DEFAULT_CALLS:
        result["uncached"][path] = _stats(_timed(compute[path], max(3, repeat // 4)))
    report = http.get(f"/api/v1/tests/{test_id}/report").json()
    # Custom windows: random [from, to) of 1..50 % of the test, random case half of the time.
    cases = report["cases"]
    windows = []
    for _ in range(repeat):
        length = max(1, int((last - first) * rng.uniform(0.01, 0.5)))
        start = int(rng.integers(first, max(first + 1, last - length)))
        params: dict[str, Any] = {"from": start, "to": start + length, "q": "50,90,99,99.9"}
        if cases and rng.random() < 0.5:
            params["case"] = cases[int(rng.integers(0, len(cases)))]
        windows.append(params)
    it = iter(windows)
    result["custom"]["summary"] = _stats(_timed(lambda: call("summary", next(it)), len(windows)))
    it = iter(windows)
    result["custom"]["charts/quantiles"] = _stats(_timed(lambda: call("charts/quantiles", next(it)), len(windows)))
    it = iter(windows)
    result["custom"]["tables"] = _stats(_timed(lambda: call("tables", next(it)), len(windows)))
    result["exact"] = with_samples
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=10_000_000, help="raw rows of the uploaded test")
    parser.add_argument("--upload-seconds", type=int, default=1000)
    parser.add_argument("--stream-seconds", type=int, default=3600)
    parser.add_argument("--stream-rps", type=int, default=200, help="responses/s behind the streamed histograms")
    parser.add_argument("--cases", type=int, default=10)
    parser.add_argument("--other-tests", type=int, default=98, help="more tests loaded for the 100-tests run")
    parser.add_argument("--other-samples", type=int, default=200_000, help="raw rows of each other test")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--ch-database", default="tankodrom_bench_reports")
    parser.add_argument("--pg-database", default="tankodrom_bench_reports")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/5")
    parser.add_argument("--fresh", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--out", default="", help="write the results as JSON here too")
    args = parser.parse_args()
    _configure(args)

    import numpy as np
    from django.contrib.auth.models import User

    from backend.loadtests.models import Test, TestStatus, Upload, UploadStatus

    rng = np.random.default_rng(2026)
    Test.objects.all().delete()
    user, _ = User.objects.get_or_create(username="bench")
    t0 = 1_795_316_000

    started = time.perf_counter()
    uploaded = Test.objects.create(owner=user, name="bench uploaded", status=TestStatus.READY)
    upload = Upload.objects.create(test=uploaded, status=UploadStatus.READY)
    cols, cases = _sample_columns(rng, args.samples, t0, args.upload_seconds, args.cases)
    _store_upload(uploaded.pk, upload.pk, cols, cases)
    del cols
    uploaded.active_upload = upload
    uploaded.save(update_fields=["active_upload"])
    streamed = Test.objects.create(owner=user, name="bench streamed", status=TestStatus.READY, has_stream=True)
    _store_stream(streamed.pk, rng, t0, args.stream_seconds, args.cases, args.stream_rps)
    load_s = time.perf_counter() - started
    print(f"loaded the two tests in {load_s:.1f} s", flush=True)

    results: dict[str, Any] = {"args": vars(args), "one_test": {}, "many_tests": {}}
    results["one_test"]["uploaded"] = _measure(
        uploaded.pk, args.repeat, rng, t0, t0 + args.upload_seconds, with_samples=True
    )
    results["one_test"]["streamed"] = _measure(
        streamed.pk, args.repeat, rng, t0, t0 + args.stream_seconds, with_samples=False
    )
    print(json.dumps(results["one_test"], indent=1), flush=True)

    started = time.perf_counter()
    for i in range(args.other_tests):
        other = Test.objects.create(owner=user, name=f"other {i}", status=TestStatus.READY)
        up = Upload.objects.create(test=other, status=UploadStatus.READY)
        ocols, ocases = _sample_columns(rng, args.other_samples, t0 + 86400 * (i % 30), args.upload_seconds, args.cases)
        _store_upload(other.pk, up.pk, ocols, ocases)
        other.active_upload = up
        other.save(update_fields=["active_upload"])
    print(f"loaded {args.other_tests} more tests in {time.perf_counter() - started:.1f} s", flush=True)
    results["many_tests"]["uploaded"] = _measure(
        uploaded.pk, args.repeat, rng, t0, t0 + args.upload_seconds, with_samples=True
    )
    results["many_tests"]["streamed"] = _measure(
        streamed.pk, args.repeat, rng, t0, t0 + args.stream_seconds, with_samples=False
    )
    print(json.dumps(results["many_tests"], indent=1), flush=True)
    _print_table(results)
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=1))


def _print_table(results: dict[str, Any]) -> None:
    print("\n| test | call | 1 test warm p95 | 100 tests warm p95 | 1 test uncached p95 | 100 tests uncached p95 |")
    print("|---|---|---|---|---|---|")
    for kind in ("uploaded", "streamed"):
        one, many = results["one_test"][kind], results["many_tests"][kind]
        for call in DEFAULT_CALLS:
            print(
                f"| {kind} | {call} | {one['warm'][call]['p95_ms']} | {many['warm'][call]['p95_ms']} | "
                f"{one['uncached'][call]['p95_ms']} | {many['uncached'][call]['p95_ms']} |"
            )
        for call, figures in one["custom"].items():
            print(f"| {kind} | custom window {call} | {figures['p95_ms']} | {many['custom'][call]['p95_ms']} | | |")


if __name__ == "__main__":
    main()
