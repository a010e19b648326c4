"""Benchmark of the comparison: two uploaded tests of `--lines` raw samples each, compared cold and cached.

Builds its own ClickHouse database (never the served one) with two tests of `--lines` phout rows each over
`--seconds` seconds and `--cases` cases (the second with a 30% slower tail), then measures:
- cold: `backend.compare.service.build` (every ClickHouse query, the bootstrap, figures, JSON-ready dict),
  what the Celery task does on a cache miss; ClickHouse's own caches are dropped before each run;
- cached: what the view does on a hit: one Redis GET of the stored result and its JSON rendering.
Test rows are unsaved model instances (the service only reads their ids and fields), so PostgreSQL is not needed.
Like an ingested upload, each test has its raw samples and the per-second aggregates derived from them
(analytics.aggregate, stored with source_id = the upload id).

Full scale (a quiet machine):  .venv/bin/python bench/compare/run.py --lines 10000000
Reduced now:                   .venv/bin/python bench/compare/run.py --lines 1000000
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

T0 = 1_795_000_000
CHUNK = 1_000_000


def _configure(args: argparse.Namespace) -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "backend.settings"
    os.environ["CLICKHOUSE_DATABASE"] = args.ch_database
    os.environ["REDIS_URL"] = args.redis_url
    import django

    django.setup()


def _load(test_id: int, upload_id: int, args: argparse.Namespace, tail_scale: float, seed: int) -> None:
    import numpy as np

    from analytics.schema.samples import SampleColumns
    from backend.testing import insert_upload_aggregates, insert_upload_samples

    rng = np.random.default_rng(seed)
    cases = [f"case_{i}" for i in range(args.cases)]
    kept: list[SampleColumns] = []
    done = 0
    while done < args.lines:
        n = min(CHUNK, args.lines - done)
        receive_sec = T0 + np.sort(rng.integers(0, args.seconds, n))
        interval = rng.lognormal(np.log(100_000.0), 0.4, n)
        tail = rng.random(n) < 0.03
        interval[tail] = rng.uniform(500_000.0, 1_500_000.0, int(tail.sum())) * tail_scale
        proto = np.where(rng.random(n) < 0.01, 500, 200)
        columns = SampleColumns.of_response_times(
            receive_sec, rng.integers(0, args.cases, n), interval.astype(np.int64), np.zeros(n), proto
        )
        insert_upload_samples(test_id, upload_id, columns, cases, tag="bench.compare.load")
        kept.append(columns)
        done += n
    # Once every sample is in: a second's aggregates come from all its samples at once, as ingestion's do.
    all_columns = SampleColumns.concat(kept)
    received_at_us = time.time_ns() // 1000
    insert_upload_aggregates(
        test_id, upload_id, all_columns, cases, tag="bench.compare.aggregates", received_at_us=received_at_us
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=10_000_000, help="raw samples per test")
    parser.add_argument("--seconds", type=int, default=1000)
    parser.add_argument("--cases", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--ch-database", default="tankodrom_bench_compare")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/7")
    parser.add_argument("--keep", action="store_true", help="reuse the loaded data of a previous run")
    parser.add_argument("--json", type=Path, help="also write the whole comparison (sorted keys) to this file")
    args = parser.parse_args()
    _configure(args)

    from django.core.cache import cache

    from backend.clickhouse import client, migrate
    from backend.compare import service
    from backend.loadtests.models import Test
    from backend.testing import drop_database

    if not args.keep:
        drop_database()
    migrate.apply_all()
    base = Test(pk=1, active_upload_id=11, loadscheme=["const(10000, 1000s)"])
    other = Test(pk=2, active_upload_id=12, loadscheme=["const(10000, 1000s)"])
    if args.keep:
        stored = client.execute(
            "SELECT count() FROM second_aggregates WHERE source_id IN (11, 12) AND case = ''", tag="bench.compare.check"
        )
        if not stored[0][0]:
            sys.exit("--keep: this database has no per-second aggregates of the uploads (loaded by an older run.py)")
    else:
        started = time.perf_counter()
        _load(1, 11, args, tail_scale=1.0, seed=1)
        _load(2, 12, args, tail_scale=1.3, seed=2)
        print(f"loaded 2 x {args.lines:,} lines in {time.perf_counter() - started:.1f} s")

    params = service.CompareParams((1, 2))
    cold: list[float] = []
    cpu: list[float] = []
    result: dict[str, Any] = {}
    service.build(params, [base, other])  # imports and connections, as a running worker has them
    for _ in range(args.repeat):
        client.execute("SYSTEM DROP MARK CACHE", tag="bench.compare.drop_cache")
        started, started_cpu = time.perf_counter(), time.process_time()
        result = service.build(params, [base, other])
        cold.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    key = service.cache_key(params, [base, other])
    cache.set(key, result, 600)
    cached: list[float] = []
    for _ in range(max(args.repeat, 20)):
        started = time.perf_counter()
        body = json.dumps(cache.get(key))
        cached.append(time.perf_counter() - started)
    cache.delete(key)
    if args.json:
        args.json.write_text(json.dumps(result, sort_keys=True, indent=1))
    print(
        json.dumps(
            {
                "lines_per_test": args.lines,
                "seconds": args.seconds,
                "cases": args.cases,
                "cold_s": {"median": round(statistics.median(cold), 3), "max": round(max(cold), 3)},
                "python_cpu_s": round(statistics.median(cpu), 3),
                "load_average_1m": round(os.getloadavg()[0], 2),
                "cached_ms": {
                    "median": round(statistics.median(cached) * 1000, 1),
                    "max": round(max(cached) * 1000, 1),
                },
                "response_kb": round(len(body) / 1024, 1),
                "verdict_99": result["verdict"]["99"],
                "change_99_pct": result["change_pct"]["99"],
                "change_interval_99_pct": result["change_interval_pct"]["99"],
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
