"""Monitoring time series: one row per (test, host, metric, second), as the tank's telegraf collector sends.

ReplacingMergeTree on that key: a chunk retried after a 5xx lands once. ORDER BY starts with the test, then
host and metric, because the Monitoring tab reads one test's metrics group by group over a window.
"""

from backend.clickhouse.engines import Shape, TableSpec, create

NAME = "monitoring"

COLUMNS = ("test_id", "ts", "host", "metric", "value", "received_at_us")

SPEC = TableSpec(
    name=NAME,
    columns="""
    test_id UInt64,
    ts UInt32,
    host String,
    metric String,
    value Float64,
    received_at_us UInt64""",
    engine="ReplacingMergeTree",
    version_column="received_at_us",
    keys="""
PARTITION BY toYYYYMM(toDateTime(ts))
ORDER BY (test_id, host, metric, ts)""",
)

CREATE_SQL = create(SPEC, Shape())[0]
