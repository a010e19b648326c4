"""Benchmark: where a test's raw samples should live on a ClickHouse cluster, measured on the local one.

    deploy/cluster.sh up && source <(deploy/cluster.sh env)
    flock -x /tmp/tankodrom-bench.lock .venv/bin/python bench/cluster/sharding.py --rows 5000000 --rounds 5

In a database of its own (`tankodrom_bench_sharding`, dropped at the start and the end), the same N synthetic
samples of one test (deterministic: hashes of the row number) are stored three ways, side by side:
  - `single`: a plain MergeTree on node 1 alone: one server, the reference;
  - `by_test`: through a Distributed table sharded by test_id (what the migrations create): one shard holds the test;
  - `spread`: through a Distributed table sharded by rand() over the same Replicated local table: both shards do.
Then the summary's exact query (quantilesExact of the response time at the report's levels, count, per tag) runs
`--rounds` times on each; the median wall time is printed, with ms per million rows. The answers must be equal.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "backend.settings")
os.environ["CLICKHOUSE_DATABASE"] = "tankodrom_bench_sharding"

import django  # noqa: E402

django.setup()

from backend.clickhouse import client, engines  # noqa: E402
from backend.clickhouse.tables import samples  # noqa: E402
from backend.testing import drop_database  # noqa: E402

QUERY = (
    "SELECT tag, count(), quantilesExact(0.5, 0.75, 0.9, 0.95, 0.99, 1)(interval_real_us) FROM {table} "
    "WHERE test_id = %(t)s AND upload_id = 1 GROUP BY tag ORDER BY tag"
)
FILL = (
    "INSERT INTO {table} (test_id, upload_id, receive_sec, tag, interval_real_us, size_in_bytes) "
    "SELECT %(t)s, 1, 1700000000 + intDiv(number, 10000), concat('case', toString(modulo(number, 8))), "
    "modulo(intHash32(number), 200000) "
    "+ intDiv(modulo(intHash32(number + 1), 1000), 999) * modulo(intHash32(number + 2), 5000000), "
    "modulo(intHash32(number + 3), 4000) FROM numbers(%(n)s)"
)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    shape = engines.current()
    if not shape.is_cluster:
        sys.exit("set CLICKHOUSE_CLUSTER (source <(deploy/cluster.sh env))")
    drop_database()
    client.ensure_database()
    for statement in engines.create(samples.SPEC, shape):
        client.execute(statement, tag="bench.ddl")
    db = shape.database
    client.execute(
        f"CREATE TABLE {db}.samples_spread ON CLUSTER {shape.cluster} AS {db}.samples_local "
        f"ENGINE = Distributed({shape.cluster}, {db}, samples_local, rand())",
        tag="bench.ddl",
    )
    single = engines.create(samples.SPEC, engines.Shape(database=db))[0].replace("EXISTS samples (", "EXISTS single (")
    client.execute(single, tag="bench.ddl")
    tables = {"single": ("single", 1), "by_test": ("samples", 2), "spread": ("samples_spread", 3)}
    for name, (table, test_id) in tables.items():
        started = time.perf_counter()
        client.execute(FILL.format(table=table), {"t": test_id, "n": args.rows}, tag="bench.fill")
        print(f"{name}: {args.rows} rows stored in {time.perf_counter() - started:.1f} s", flush=True)
    answers = {}
    print(f"\n{'layout':8} {'median ms':>10} {'ms per M rows':>14}  (rounds: {args.rounds}, {args.rows:,} rows)")
    for name, (table, test_id) in tables.items():
        times = []
        for _ in range(args.rounds):
            started = time.perf_counter()
            answers[name] = client.execute(QUERY.format(table=table), {"t": test_id}, tag="bench.query")
            times.append(time.perf_counter() - started)
        median_ms = statistics.median(times) * 1000
        print(f"{name:8} {median_ms:10.1f} {median_ms / (args.rows / 1e6):14.1f}", flush=True)
    reference = answers["single"]
    for name, answer in answers.items():
        same = [(tag, n, list(q)) for tag, n, q in answer] == [(tag, n, list(q)) for tag, n, q in reference]
        print(f"{name}: same answer as one server: {same}")
    drop_database()


if __name__ == "__main__":
    main()
