"""The per-second rows an upload derives, inserted as columns (second_aggregates.columns_of through native.py),
against the same rows inserted one by one through the driver: ClickHouse must hold the same values."""

from __future__ import annotations

import numpy as np
import pytest

from analytics.aggregate import SecondTable, aggregate_table
from analytics.phout import PhoutParser, parse_stream
from analytics.schema.samples import PhoutBatch
from analytics.tests.phout_support import read_golden
from analytics.tests.seconds_support import rows_of
from backend.clickhouse import client
from backend.clickhouse.tables import second_aggregates
from backend.uploads.stages import insert_aggregates

FILES = ("bfg_capture.phout", "discarded.phout", "empty_tag.phout", "out_of_order.phout")


def table_of(name: str) -> SecondTable:
    parser = PhoutParser()
    batches = list(parse_stream([read_golden(name)], parser))
    return aggregate_table(PhoutBatch.concat(batches), parser.cases)


def stored(source_id: int) -> list[tuple[object, ...]]:
    others = [c for c in second_aggregates.COLUMNS if c not in ("source_id", "received_at_us")]
    return client.execute(
        f"SELECT {', '.join(others)} FROM {second_aggregates.NAME} WHERE test_id = 7 AND source_id = %(source)s "
        "ORDER BY ts, case",
        {"source": source_id},
        tag="tests.aggregate_insert",
    )


@pytest.mark.parametrize("name", FILES)
def test_columns_store_what_rows_store(clickhouse: None, name: str) -> None:
    table = table_of(name)
    assert table.size > 0 and table.hist.count.sum() > 0
    insert_aggregates(7, 1, table, received_at_us=5, tag="tests.aggregate_insert")
    rows = [(7, 2, *row, 5) for row in rows_of(table)]
    client.insert_rows(second_aggregates.NAME, second_aggregates.COLUMNS, rows, tag="tests.aggregate_insert")
    assert stored(1) == stored(2)
    assert len(stored(1)) == table.size


def test_tables_concatenate_as_their_rows_do() -> None:
    tables = [table_of(name) for name in FILES]
    joined = SecondTable.concat(tables)
    assert rows_of(joined) == [row for t in tables for row in rows_of(t)]
    assert SecondTable.concat([]).size == 0 and rows_of(SecondTable.empty()) == []
    assert np.array_equal(joined.hist.ends(joined.size)[-1:], [joined.hist.count.size])
