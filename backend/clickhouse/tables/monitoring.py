"""Monitoring time series: one row per (test, host, metric, second), as the tank's telegraf collector sends.

ReplacingMergeTree on that key: a chunk retried after a 5xx lands once. ORDER BY starts with the test, then
host and metric, because the Monitoring tab reads one test's metrics group by group over a window.
"""

NAME = "monitoring"

COLUMNS = ("test_id", "ts", "host", "metric", "value", "received_at_us")

CREATE_SQL = f"""
CREATE TABLE IF NOT EXISTS {NAME} (
    test_id UInt64,
    ts UInt32,
    host String,
    metric String,
    value Float64,
    received_at_us UInt64
) ENGINE = ReplacingMergeTree(received_at_us)
PARTITION BY toYYYYMM(toDateTime(ts))
ORDER BY (test_id, host, metric, ts)
"""
