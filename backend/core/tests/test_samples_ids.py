"""Migration m0003: samples' test and upload ids narrowed from UInt64 to UInt32 by copying the table into the new
shape, without changing a row, again safely, and not at all when an id would not fit; ingestion refuses such ids."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from clickhouse_driver.errors import ServerException

from backend.clickhouse import client
from backend.clickhouse.migrations import m0003_narrow_sample_ids as m0003
from backend.clickhouse.tables import samples
from backend.uploads.result import IngestError
from backend.uploads.stages import IdColumns as _IdColumns

TABLE = "scratch_samples_m0003"  # scratch_*: not replayed on current ClickHouse (see conftest)

ROWS: list[tuple[Any, ...]] = [
    (m0003.ID_MAX, 1, 1_700_000_000, 1_700_000_000_000_001, "a", 5, 1, 2, 3, 4, 5, 6, 7, 0, 200),
    (1, m0003.ID_MAX, 1_700_000_001, 1_700_000_001_000_002, "", 6, -9223372036854775, 2, 3, 4, 5, 6, 7, 110, 0),
    (7, 8, 1_700_000_002, 1_700_000_002_000_003, "b#1", 7, 1, 2, 3, 4, 5, 6, 7, 0, 503),
]


def _types(table: str) -> dict[str, str]:
    return {str(r[0]): str(r[1]) for r in client.execute(f"DESCRIBE TABLE {table}", tag="tests.ids")}


def _rows(table: str) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in client.execute(f"SELECT * FROM {table} ORDER BY send_ts_us", tag="tests.ids")]


def _run(statements: list[str]) -> None:
    for statement in statements:
        client.execute(statement, tag="tests.ids")


@pytest.fixture
def old_table(clickhouse: None) -> Iterator[str]:
    """A table in samples' shape before m0003 (UInt64 ids), made by m0003's BACKWARDS from today's shape."""
    for leftover in (TABLE, f"{TABLE}_m0003_new", f"{TABLE}_m0003_old"):
        client.execute(f"DROP TABLE IF EXISTS {leftover}", tag="tests.ids")
    client.execute(samples.CREATE_SQL.replace(f"EXISTS {samples.NAME} (", f"EXISTS {TABLE} ("), tag="tests.ids")
    _run(m0003.backwards(TABLE))
    assert (_types(TABLE)["test_id"], _types(TABLE)["upload_id"]) == ("UInt64", "UInt64")
    yield TABLE
    client.execute(f"DROP TABLE IF EXISTS {TABLE}", tag="tests.ids")


def test_the_migration_narrows_the_ids_without_changing_a_row(old_table: str) -> None:
    client.insert_rows(old_table, samples.COLUMNS, ROWS, tag="tests.ids")
    for _ in range(2):  # the second run copies the same rows again, changing nothing
        _run(m0003.forwards(old_table))
        assert _types(old_table) == _types(samples.NAME)  # the declared shape, as a fresh install has it
        assert _rows(old_table) == ROWS
    tables = {str(r[0]) for r in client.execute("SHOW TABLES", tag="tests.ids")}
    assert not {f"{old_table}_m0003_new", f"{old_table}_m0003_old"} & tables  # nothing left behind


def test_an_interrupted_run_is_finished_by_the_next(old_table: str) -> None:
    client.insert_rows(old_table, samples.COLUMNS, ROWS, tag="tests.ids")
    statements = m0003.forwards(old_table)
    _run(statements[:-1])  # stopped before dropping the old table: both shapes exist
    _run(m0003.forwards(old_table))
    assert _types(old_table)["test_id"] == "UInt32" and _rows(old_table) == ROWS


@pytest.mark.parametrize("column", ["test_id", "upload_id"])
def test_the_migration_refuses_an_id_it_would_wrap(old_table: str, column: str) -> None:
    row = list(ROWS[2])
    row[samples.COLUMNS.index(column)] = m0003.ID_MAX + 1
    client.insert_rows(old_table, samples.COLUMNS, [tuple(row)], tag="tests.ids")
    guard, *_ = m0003.forwards(old_table)
    with pytest.raises(ServerException, match="throwIf"):
        client.execute(guard, tag="tests.ids")
    assert _types(old_table)[column] == "UInt64"  # untouched


@pytest.mark.parametrize(("test_id", "upload_id"), [(samples.ID_MAX + 1, 1), (1, samples.ID_MAX + 1), (-1, 1)])
def test_ingestion_refuses_ids_the_columns_would_wrap(test_id: int, upload_id: int) -> None:
    with pytest.raises(IngestError, match="beyond what samples stores"):
        _IdColumns(test_id, upload_id)
    assert _IdColumns(samples.ID_MAX, samples.ID_MAX).of(2)[0].tolist() == [samples.ID_MAX] * 2
