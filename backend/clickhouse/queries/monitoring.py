"""Monitoring reads: hosts of a test and its metric series over a window, in buckets of `ratio` seconds.

The table is a ReplacingMergeTree keyed by (test, host, metric, ts) with `received_at_us` as the version: FINAL
collapses a chunk the tank retried before merges run (the latest copy wins), then buckets average the seconds
they hold. FINAL does the collapse in the read itself, cheaper than the same collapse written as argMax in a
subquery.
"""

from __future__ import annotations

from dataclasses import dataclass

from backend.clickhouse import client
from backend.clickhouse.queries.series import BUCKET_START
from backend.clickhouse.tables import monitoring

T = monitoring.NAME


def hosts(test_id: int) -> list[str]:
    rows = client.execute(
        f"SELECT DISTINCT host FROM {T} WHERE test_id = %(test_id)s ORDER BY host",
        {"test_id": test_id},
        tag="reports.monitoring.hosts",
    )
    return [str(r[0]) for r in rows]


@dataclass(frozen=True)
class MetricPoint:
    host: str
    metric: str
    bucket: int
    value: float


def series(test_id: int, from_ts: int | None, to_ts: int | None, origin: int, ratio: int) -> list[MetricPoint]:
    window = ""
    if from_ts is not None:
        window += " AND ts >= %(from_ts)s"
    if to_ts is not None:
        window += " AND ts < %(to_ts)s"
    rows = client.execute(
        f"""
        SELECT host, metric, {BUCKET_START} AS bucket, avg(value)
        FROM {T} FINAL
        WHERE test_id = %(test_id)s AND ts >= %(origin)s {window}
        GROUP BY host, metric, bucket
        ORDER BY host, metric, bucket
        """,
        {"test_id": test_id, "from_ts": from_ts or 0, "to_ts": to_ts or 0, "origin": origin, "ratio": ratio},
        tag="reports.monitoring.series",
    )
    return [MetricPoint(str(r[0]), str(r[1]), int(r[2]), float(r[3])) for r in rows]
