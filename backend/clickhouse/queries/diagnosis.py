"""Reads behind the automatic diagnosis: one test's overall per-second series and its CPU/memory monitoring.

`second_aggregates` is read with FINAL (a ReplacingMergeTree: a second the tank pushed twice must count once
before merges); each read names one test and one source, the head of the sort key, so FINAL stays cheap.
Error counts are summed in ClickHouse from the per-second code arrays so that only flat columns travel:
net errors exclude 777 (Pandora's discarded requests, never sent), HTTP errors are codes >= 400, and a row with
a net error carries HTTP code 0, so the two never count the same request twice.
"""

from __future__ import annotations

from dataclasses import dataclass

from analytics.schema.codes import DISCARDED_NET_CODE, TIMEOUT_NET_CODE
from backend.clickhouse import client
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
    arraySum(arrayFilter((n, c) -> c != 0 AND c != {DISCARDED_NET_CODE}, net_counts, net_codes)) AS net_errors,
    arraySum(arrayFilter((n, c) -> c = {TIMEOUT_NET_CODE}, net_counts, net_codes)) AS timeouts,
    arraySum(arrayFilter((n, c) -> c = {DISCARDED_NET_CODE}, net_counts, net_codes)) AS discarded,
    arraySum(arrayFilter((n, c) -> c >= 400, http_counts, http_codes)) AS http_errors
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
    errors: list[int]
    timeouts: list[int]
    discarded: list[int]


def overall_seconds(test_id: int, source_id: int) -> SecondRows:
    rows = client.execute(SERIES_SQL, {"test_id": test_id, "source_id": source_id}, tag="diagnosis.series")
    return SecondRows(
        ts=[int(r[0]) for r in rows],
        planned_rps=[float(r[1]) for r in rows],
        instances=[int(r[2]) for r in rows],
        resps=[int(r[3]) for r in rows],
        mean_ms=[float(r[4]) for r in rows],
        q50_ms=[float(r[5]) for r in rows],
        q95_ms=[float(r[6]) for r in rows],
        q99_ms=[float(r[7]) for r in rows],
        errors=[int(r[8]) + int(r[11]) for r in rows],
        timeouts=[int(r[9]) for r in rows],
        discarded=[int(r[10]) for r in rows],
    )


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
