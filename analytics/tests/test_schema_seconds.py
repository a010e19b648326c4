"""The per-second row's one description (analytics.schema.seconds) against the views derived from it."""

from __future__ import annotations

import numpy as np

from analytics.aggregate import aggregate_table
from analytics.schema.samples import SampleColumns
from analytics.schema.seconds import (
    CODE_COUNTS,
    COLUMN_RANGES,
    FIELDS,
    QUANTILE_COLUMNS,
    QUANTILE_KEYS,
    QUANTILE_LEVELS,
    ROW_FIELDS,
    TRAIL_KEYS,
)
from analytics.tank_push import parse_push_data
from analytics.tests.seconds_support import rows_of


def test_levels_name_the_quantile_fields() -> None:
    assert QUANTILE_LEVELS == (50, 75, 80, 85, 90, 95, 98, 99, 100)
    assert QUANTILE_KEYS[-2:] == ("q99", "q100") and QUANTILE_COLUMNS[-2:] == ("q99_ms", "q100_ms")
    assert [name for name in ROW_FIELDS if name.startswith("q")] == list(QUANTILE_COLUMNS)
    assert TRAIL_KEYS[-len(QUANTILE_KEYS) :] == QUANTILE_KEYS


def test_integer_ranges_follow_the_types() -> None:
    assert COLUMN_RANGES["ts"] == (0, 2**32 - 1) and COLUMN_RANGES["hist_bins"] == (0, 2**16 - 1)
    assert COLUMN_RANGES["net_codes"] == (-(2**31), 2**31 - 1) and COLUMN_RANGES["resps"] == (0, 2**64 - 1)
    assert set(COLUMN_RANGES) == {f.name for f in FIELDS if f.element.startswith(("UInt", "Int"))}


def test_an_aggregated_table_names_every_field_in_row_order() -> None:
    samples = SampleColumns.of_response_times(
        np.array([10, 10, 11]),
        np.array([1, 0, 1]),
        np.array([1000, 2000, 3000]),
        np.zeros(3, dtype=np.int32),
        np.full(3, 200),
    )
    table = aggregate_table(samples, ["", "a"])
    scalars = list(table.scalars())
    assert [*scalars, *(name for pair in table.code_counts() for name in pair)] == list(ROW_FIELDS)
    assert tuple(table.code_counts()) == CODE_COUNTS


def test_a_pushed_row_and_an_aggregated_row_have_the_same_shape() -> None:
    samples = SampleColumns.of_response_times(
        np.array([1795316038]), np.array([0]), np.array([33_999]), np.zeros(1, dtype=np.int32), np.full(1, 200)
    )
    (aggregated,) = rows_of(aggregate_table(samples, [""]))
    (pushed,) = parse_push_data(
        [
            {
                "overall": 1,
                "trail": {"time": "1795316038", "resps": 1, "expect": 33.999, **dict.fromkeys(QUANTILE_KEYS, 33.999)},
                "net_codes": [{"code": 0, "count": 1}],
                "http_codes": [{"code": 200, "count": 1}],
                "time_intervals": [{"from": 0, "to": 34.0, "count": 1}],
            }
        ]
    )
    assert len(pushed) == len(aggregated) == len(ROW_FIELDS)
    assert [type(v) for v in pushed] == [type(v) for v in aggregated]
    assert pushed == aggregated
