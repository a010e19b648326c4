"""One module per ClickHouse table: its NAME, its CREATE_SQL and why it is keyed the way it is.

Every statement here must run on ClickHouse 18.16 (the local and CI server) and on current releases:
no DateTime64, no codecs, no Map, no window functions. Times are UInt32 unix seconds or UInt64 microseconds.
"""

from __future__ import annotations

from collections.abc import Sequence

from backend.clickhouse.engines import TableSpec

# The version column of the tables a tank push fills: when the push was received (µs).
RECEIVED_AT_US = ("received_at_us", "UInt64")


def columns_sql(columns: Sequence[tuple[str, str]]) -> str:
    """The column list of a CREATE TABLE: `name Type`, one a line."""
    return "\n" + ",\n".join(f"    {name} {clickhouse_type}" for name, clickhouse_type in columns)


def pushed_table(name: str, columns: Sequence[tuple[str, str]], order_by: str) -> TableSpec:
    """A table the tank's pushes fill, one row per key of `order_by` and second `ts`: a ReplacingMergeTree whose
    version is the time the push was received (the last column), so a push the tank retries after a 5xx lands
    once; partitioned by the month of `ts`."""
    return TableSpec(
        name=name,
        columns=columns_sql([*columns, RECEIVED_AT_US]),
        engine="ReplacingMergeTree",
        version_column=RECEIVED_AT_US[0],
        keys=f"""
PARTITION BY toYYYYMM(toDateTime(ts))
ORDER BY ({order_by})""",
    )
