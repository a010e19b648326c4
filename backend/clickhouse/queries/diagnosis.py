"""Reads behind the automatic diagnosis: one test's overall per-second series and its CPU/memory monitoring.

`second_aggregates` is read with FINAL (a ReplacingMergeTree: a second the tank pushed twice must count once
before merges); each read names one test and one source, the head of the sort key, so FINAL stays cheap.
Outcomes are counted in ClickHouse from the per-second code arrays so that only flat columns travel, by the
definitions of analytics/definitions.py (queries/outcomes.py): failed requests, Pandora's discarded ones (net code
777, never sent; failed too), and timeouts.
"""

from __future__ import annotations

from dataclasses import dataclass

from backend.clickhouse import client
from backend.clickhouse.queries.columns import rows_as
from backend.clickhouse.queries.outcomes import DISCARDED, TIMEOUT, array_count, failed_per_row
from backend.clickhouse.tables import monitoring, samples, second_aggregates

# Only the metrics the hints read (CPU per core and total, used memory): a host can send hundreds.
MONITORING_METRICS_RE = "(?i)cpu.*(idle|user|system)$|^Memory_used$"

SERIES_SQL = f"""
SELECT
    ts,
    reqps,
    threads,
    resps,
    expect_ms,
    q50_ms,
    q95_ms,
    q99_ms,
    {failed_per_row()} AS failed,
    {array_count(TIMEOUT, "net")} AS timeouts,
    {array_count(DISCARDED, "net")} AS discarded
FROM {second_aggregates.NAME} FINAL
WHERE test_id = %(test_id)s AND source_id = %(source_id)s AND case = ''
ORDER BY ts
"""

STEADY_HISTOGRAM_SQL = f"""
SELECT sumMap(hist_bins, hist_counts)
FROM {second_aggregates.NAME} FINAL
WHERE test_id = %(test_id)s AND source_id = %(source_id)s AND case = ''
  AND ts >= %(from_ts)s AND ts < %(to_ts)s
"""

STARTS_SQL = f"""
SELECT intDiv(send_ts_us, 1000000) AS second, count()
FROM {samples.NAME}
WHERE test_id = %(test_id)s AND upload_id = %(upload_id)s
GROUP BY second
ORDER BY second
"""

MONITORING_SQL = f"""
SELECT host, metric, ts, argMax(value, received_at_us) AS value
FROM {monitoring.NAME}
WHERE test_id = %(test_id)s AND match(metric, %(metrics_re)s)
GROUP BY host, metric, ts
ORDER BY host, metric, ts
"""


# Its fields are the SELECT's columns, in order (columns.rows_as).
@dataclass(frozen=True)
class SecondRows:
    """Column lists, one entry per second, ascending."""

    ts: list[int]
    planned_rps: list[float]
    instances: list[int]
    resps: list[int]
    mean_ms: list[float]
    q50_ms: list[float]
    q95_ms: list[float]
    q99_ms: list[float]
    failed: list[int]  # analytics.definitions: discarded requests included
    timeouts: list[int]
    discarded: list[int]


def overall_seconds(test_id: int, source_id: int) -> SecondRows:
    rows = client.execute(SERIES_SQL, {"test_id": test_id, "source_id": source_id}, tag="diagnosis.series")
    return rows_as(SecondRows, rows)


def monitoring_points(test_id: int) -> dict[str, dict[str, tuple[list[int], list[float]]]]:
    """host → metric → (ts, values) for the CPU and memory metrics of a test."""
    rows = client.execute(
        MONITORING_SQL, {"test_id": test_id, "metrics_re": MONITORING_METRICS_RE}, tag="diagnosis.monitoring"
    )
    out: dict[str, dict[str, tuple[list[int], list[float]]]] = {}
    for host, metric, ts, value in rows:
        ts_list, values = out.setdefault(str(host), {}).setdefault(str(metric), ([], []))
        ts_list.append(int(ts))
        values.append(float(value))
    return out


def steady_histogram(test_id: int, source_id: int, from_ts: int, to_ts: int) -> tuple[list[int], list[int]]:
    """The overall histogram (bin indexes, counts) of `[from_ts, to_ts)`, merged on the tank's grid."""
    rows = client.execute(
        STEADY_HISTOGRAM_SQL,
        {"test_id": test_id, "source_id": source_id, "from_ts": from_ts, "to_ts": to_ts},
        tag="diagnosis.steady_histogram",
    )
    if not rows:
        return [], []
    bins, counts = rows[0][0]
    return [int(b) for b in bins], [int(c) for c in counts]


def starts_per_second(test_id: int, upload_id: int) -> dict[int, int]:
    """Requests started in each second (unix s) of an upload's raw samples, Pandora's discarded ones included."""
    rows = client.execute(STARTS_SQL, {"test_id": test_id, "upload_id": upload_id}, tag="diagnosis.starts")
    return {int(second): int(count) for second, count in rows}
