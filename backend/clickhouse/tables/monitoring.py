"""Monitoring time series: one row per (test, host, metric, second), as the tank's telegraf collector sends.

ReplacingMergeTree on that key: a chunk retried after a 5xx lands once. ORDER BY starts with the test, then
host and metric, because the Monitoring tab reads one test's metrics group by group over a window.
"""

from backend.clickhouse.engines import Shape, create
from backend.clickhouse.tables import RECEIVED_AT_US, pushed_table

NAME = "monitoring"

_COLUMNS = (("test_id", "UInt64"), ("ts", "UInt32"), ("host", "String"), ("metric", "String"), ("value", "Float64"))
COLUMNS = (*(name for name, _ in _COLUMNS), RECEIVED_AT_US[0])

SPEC = pushed_table(NAME, _COLUMNS, order_by="test_id, host, metric, ts")

CREATE_SQL = create(SPEC, Shape())[0]
