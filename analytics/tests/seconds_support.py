"""Per-second rows for tests: an aggregated table as rows (analytics.schema.seconds), and a row by field name."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from analytics.aggregate import SecondTable, aggregate_table
from analytics.schema.samples import SampleColumns
from analytics.schema.seconds import ROW_FIELDS, Row


def rows_of(table: SecondTable) -> list[Row]:
    """The table's rows, values in ROW_FIELDS order (arrays as tuples), as the tank's push gives them."""
    n = table.size
    scalars = [values if isinstance(values, list) else values.tolist() for values in table.scalars().values()]
    arrays = []
    for sparse in table.code_counts().values():
        codes: list[tuple[int, ...]] = [()] * n
        counts: list[tuple[int, ...]] = [()] * n
        group, code, count = sparse.group.tolist(), sparse.code.tolist(), sparse.count.tolist()
        for _row, entries in itertools.groupby(range(len(group)), key=group.__getitem__):
            span = list(entries)
            codes[_row] = tuple(code[span[0] : span[-1] + 1])
            counts[_row] = tuple(count[span[0] : span[-1] + 1])
        arrays += [codes, counts]
    rows = list(zip(*scalars, *arrays, strict=True))
    assert not rows or len(rows[0]) == len(ROW_FIELDS)
    return rows


def aggregate(cols: SampleColumns, cases: Sequence[str]) -> list[Row]:
    """aggregate_table's rows, one tuple each."""
    return rows_of(aggregate_table(cols, cases))


def named(row: Row) -> dict[str, Any]:
    """A row's values by field name."""
    return dict(zip(ROW_FIELDS, row, strict=True))
