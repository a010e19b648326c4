"""One per-second aggregate row: one second of one case ('' = the overall row), in the tank's units.

This is the row the tank pushes (`push_data.json`, tank-protocol.md §4.4), the row an upload's samples aggregate to
(analytics.aggregate) and the row table `second_aggregates` stores between its key (test_id, source_id) and its
version (received_at_us). `FIELDS` lists it once, in table order, with each field's ClickHouse type, unit and the
tank's name for it; everything else is derived here or by its reader:

- `ROW_FIELDS`, the field names: a row in flight (the tank push's parse, the ingest buffer, the flush) is a plain
  tuple of values in this order, so it goes to JSON and into an INSERT without naming each field;
- `COLUMN_RANGES`, what each integer field can hold (a pushed value outside it is refused at the door);
- `QUANTILE_LEVELS`, the levels the row carries (`QUANTILE_KEYS` the tank's names `q99`, `QUANTILE_COLUMNS`
  the fields `q99_ms`);
- `CODE_COUNTS`, the array fields that go in pairs (codes and their counts, equally long);
- `TRAIL_FIELDS`, the numbers of the tank's `trail` object and the fields they fill;
- `Field.dtype`, the numpy dtype of a field's values;
- readers' views: the table's column list and DDL (backend/clickhouse/tables/second_aggregates.py), the columns
  of an aggregated table (analytics.aggregate.SecondTable.scalars and code_counts), the push's msgspec lane
  (analytics.tank_push_fast).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

QUANTILE_LEVELS = (50, 75, 80, 85, 90, 95, 98, 99, 100)
QUANTILE_KEYS = tuple(f"q{level}" for level in QUANTILE_LEVELS)
QUANTILE_COLUMNS = tuple(f"{key}_ms" for key in QUANTILE_KEYS)

# The numpy dtype of each ClickHouse type a row holds (an Array's is its element's).
_DTYPES = {
    "UInt16": np.uint16,
    "UInt32": np.uint32,
    "UInt64": np.uint64,
    "Int32": np.int32,
    "Float64": np.float64,
    "String": np.object_,
}


@dataclass(frozen=True)
class Field:
    """One field of the row: its name (= the column's), ClickHouse type, unit, and the key of the tank's `trail`
    object that holds it ('' where the push carries it elsewhere: the time, the case, the arrays)."""

    name: str
    clickhouse: str
    unit: str
    trail: str = ""

    @property
    def element(self) -> str:
        """The scalar type: the column's own, or an Array's element type."""
        return self.clickhouse.removeprefix("Array(").removesuffix(")")

    @property
    def is_array(self) -> bool:
        return self.clickhouse.startswith("Array(")

    @property
    def dtype(self) -> np.dtype[Any]:
        return np.dtype(_DTYPES[self.element])

    @property
    def is_integer(self) -> bool:
        return self.dtype.kind in "iu"


FIELDS: tuple[Field, ...] = (
    Field("ts", "UInt32", "unix second"),
    Field("case", "String", "case name, '' = overall"),
    Field("reqps", "Float64", "planned requests per second", "reqps"),
    Field("threads", "UInt32", "generator instances", "threads"),
    Field("resps", "UInt64", "responses", "resps"),
    Field("expect_ms", "Float64", "ms, mean response time", "expect"),
    Field("connect_time_ms", "Float64", "ms, mean", "connect_time"),
    Field("send_time_ms", "Float64", "ms, mean", "send_time"),
    Field("latency_ms", "Float64", "ms, mean", "latency"),
    Field("receive_time_ms", "Float64", "ms, mean", "receive_time"),
    Field("input_bytes", "UInt64", "bytes received", "input"),
    Field("output_bytes", "UInt64", "bytes sent", "output"),
    *(Field(column, "Float64", "ms", key) for column, key in zip(QUANTILE_COLUMNS, QUANTILE_KEYS, strict=True)),
    Field("net_codes", "Array(Int32)", "net code (errno, or a generator's own: analytics.schema.codes)"),
    Field("net_counts", "Array(UInt64)", "responses per net code"),
    Field("http_codes", "Array(Int32)", "HTTP status (0 = no response)"),
    Field("http_counts", "Array(UInt64)", "responses per HTTP status"),
    Field("hist_bins", "Array(UInt16)", "index into analytics.histogram.BIN_EDGES_US, ascending"),
    Field("hist_counts", "Array(UInt64)", "responses per bin"),
)

ROW_FIELDS = tuple(field.name for field in FIELDS)
FIELD = {field.name: field for field in FIELDS}

# A row in flight: its values in ROW_FIELDS order (arrays as sequences of ints).
Row = tuple[Any, ...]

# The fields of the tank's `trail` object, in row order (all numbers, all right after `ts` and `case`).
TRAIL_FIELDS = tuple(field for field in FIELDS if field.trail)
TRAIL_KEYS = tuple(field.trail for field in TRAIL_FIELDS)
assert ROW_FIELDS[2 : 2 + len(TRAIL_FIELDS)] == tuple(field.name for field in TRAIL_FIELDS)

# The array fields come in pairs, codes then their counts: per row the codes are distinct and ascending, each count
# beside its code (net code, HTTP status, histogram bin).
_ARRAYS = tuple(field.name for field in FIELDS if field.is_array)
CODE_COUNTS = tuple(zip(_ARRAYS[::2], _ARRAYS[1::2], strict=True))


def _range(field: Field) -> tuple[int, int]:
    limits = np.iinfo(field.dtype)
    return int(limits.min), int(limits.max)


# What each integer field holds (an Array's elements): a pushed value outside it is refused at the door, naming the
# field, never wrapped by the INSERT nor left to fail the flush. (Float64 fields hold any finite number; `ts` is
# narrower than its column: a plausible unix second, see analytics.tank_push.parse_time.)
COLUMN_RANGES: dict[str, tuple[int, int]] = {field.name: _range(field) for field in FIELDS if field.is_integer}
