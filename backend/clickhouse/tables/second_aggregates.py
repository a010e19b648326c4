"""Per-second, per-case aggregates: what the tank streams (`push_data.json`) and what we derive from phout.

One row per (test, source, second, case); case '' is the overall row (the tank renames an empty tag to
`__NOTAG__`, so '' is unambiguous). `source_id` is 0 for the tank's stream and the upload id for rows derived
from a phout upload, so that exact figures can take over while the streamed ones stay available.

ReplacingMergeTree on the natural key makes a push that arrives twice (the tank retries 5xx with a new
request id) count once; readers that need exactness before merges use FINAL or argMax on `received_at_us`.
Histograms are on the tank's fixed bin grid (analytics.histogram.BIN_EDGES_US): `hist_bins` holds bin
indexes, `hist_counts` their counts, so windows merge exactly by summing counts per index.
Means are kept as sent (ms) and re-weighted by `resps` when windows are merged.
The row between the key (test_id, source_id) and the version (received_at_us) is analytics.schema.seconds: its
fields, their types and units are listed there once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from analytics.schema.seconds import FIELDS, ROW_FIELDS
from backend.clickhouse.engines import Shape, create
from backend.clickhouse.native import ArrayColumn, CodedStrings, ColumnData
from backend.clickhouse.tables import RECEIVED_AT_US, pushed_table

if TYPE_CHECKING:
    from analytics.aggregate import SecondTable

NAME = "second_aggregates"

_KEY = (("test_id", "UInt64"), ("source_id", "UInt64"))
COLUMNS = (*(name for name, _ in _KEY), *ROW_FIELDS, RECEIVED_AT_US[0])

SPEC = pushed_table(
    NAME, [*_KEY, *((field.name, field.clickhouse) for field in FIELDS)], order_by="test_id, source_id, ts, case"
)

CREATE_SQL = create(SPEC, Shape())[0]


def columns_of(test_id: int, source_id: int, table: SecondTable, received_at_us: int) -> dict[str, ColumnData]:
    """Rows of per-second aggregates (analytics.aggregate) as columns for client.native_insert, in COLUMNS order:
    no Python object per row or per count."""
    n = table.size
    columns: dict[str, ColumnData] = {
        "test_id": np.full(n, test_id, dtype=np.uint64),
        "source_id": np.full(n, source_id, dtype=np.uint64),
        "received_at_us": np.full(n, received_at_us, dtype=np.uint64),
    }
    for name, values in table.scalars().items():
        if isinstance(values, list):  # the case names
            names = sorted(set(values))
            code_of = {name: i for i, name in enumerate(names)}
            codes = np.array([code_of[c] for c in values], dtype=np.int64)
            columns[name] = CodedStrings(codes, [c.encode() for c in names])
        else:
            columns[name] = values
    for (codes_name, counts_name), sparse in table.code_counts().items():
        ends = sparse.ends(n)
        columns[codes_name] = ArrayColumn(ends, sparse.code)
        columns[counts_name] = ArrayColumn(ends, sparse.count)
    return {name: columns[name] for name in COLUMNS}
