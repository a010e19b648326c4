"""Table `samples` in narrow columns: it holds exactly what the phout parser accepts, values at the limits arrive
as they were parsed, and migration m0002 narrows an existing table without changing a value (or refuses to)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from clickhouse_driver.errors import ServerException

from analytics.phout import INT_COLUMNS, PhoutParser
from analytics.schema.samples import VALUE_RANGES
from analytics.tests.phout_support import read_golden
from backend.clickhouse import client
from backend.clickhouse.migrations import m0002_narrow_samples as m0002
from backend.clickhouse.tables import samples
from backend.uploads.stages import IdColumns as _IdColumns
from backend.uploads.stages import sample_columns as _sample_columns

TABLE = "scratch_samples_m0002"  # scratch_*: not replayed on current ClickHouse (see conftest)

TYPE_RANGES = {
    "UInt32": (0, 2**32 - 1),
    "Int16": (-(2**15), 2**15 - 1),
    "Int32": (-(2**31), 2**31 - 1),
    "Int64": (-(2**63), 2**63 - 1),
}
# The samples columns that hold phout's integer fields, in phout's order.
PHOUT_INT_COLUMNS = dict(zip(INT_COLUMNS, samples.COLUMNS[5:], strict=True))


def _types(table: str) -> dict[str, str]:
    return {str(r[0]): str(r[1]) for r in client.execute(f"DESCRIBE TABLE {table}", tag="tests.narrow")}


def test_phout_fields_map_to_their_columns() -> None:
    assert all(column.startswith(field) for field, column in PHOUT_INT_COLUMNS.items())


def test_each_column_holds_exactly_what_the_parser_accepts(clickhouse: None) -> None:
    types = _types(samples.NAME)
    stored = {field: TYPE_RANGES[types[column]] for field, column in PHOUT_INT_COLUMNS.items()}
    assert stored == VALUE_RANGES


def test_values_at_the_limits_are_stored_as_parsed(clickhouse: None) -> None:
    # out_of_range.phout: every narrowed column at both its limits, pandora's sentinels, and the lines that do
    # not fit (bad lines, never sent).
    parser = PhoutParser()
    batches = [*parser.feed(read_golden("out_of_range.phout")), *parser.finish()]
    assert parser.stats.lines_bad == 8
    with client.native_insert(samples.NAME, samples.COLUMNS, tag="tests.narrow") as insert:
        for batch in batches:
            insert.send(_sample_columns(_IdColumns(7, 8), batch, tuple(parser.cases)))
    fields = ("send_ts_us", "receive_sec", *PHOUT_INT_COLUMNS.values())
    parsed = sorted(
        tuple(int(getattr(b, name)[i]) for name in fields) for b in batches for i in range(b.rows)
    )  # fmt: skip
    rows = client.execute(
        f"SELECT {', '.join(fields)} FROM {samples.NAME} WHERE test_id = 7 AND upload_id = 8 ORDER BY send_ts_us",
        tag="tests.narrow",
    )
    assert len(rows) == 10
    assert [tuple(r) for r in rows] == parsed


# Every narrowed column at both limits of its new type; the Int64 ones with pandora's sentinels.
LIMIT_ROWS: list[tuple[Any, ...]] = [
    (1, 2, 1_700_000_000, 1, "a", 2**32 - 1, -9223372036854775, -(2**31), 9223372036854775, 0, 2**31 - 1, 0, 2**32 - 1,
     -(2**15), 2**15 - 1),
    (1, 2, 1_700_000_001, 2, "", 0, 9223372036854775, 2**31 - 1, -9223372036854775, 5, -(2**31), 2**32 - 1, 0,
     2**15 - 1, -(2**15)),
]  # fmt: skip


@pytest.fixture
def old_table(clickhouse: None) -> Iterator[str]:
    """A table in samples' shape before m0002: today's CREATE_SQL widened by m0002's BACKWARDS."""
    client.execute(f"DROP TABLE IF EXISTS {TABLE}", tag="tests.narrow")
    create = samples.CREATE_SQL.replace(f"EXISTS {samples.NAME} (", f"EXISTS {TABLE} (")
    assert TABLE in create
    client.execute(create, tag="tests.narrow")
    for statement in m0002.backwards(TABLE):
        client.execute(statement, tag="tests.narrow")
    types = _types(TABLE)
    assert {column: types[column] for column in m0002.TYPES} == {c: old for c, (old, _new) in m0002.TYPES.items()}
    yield TABLE
    client.execute(f"DROP TABLE IF EXISTS {TABLE}", tag="tests.narrow")


def _rows(table: str) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in client.execute(f"SELECT * FROM {table} ORDER BY send_ts_us", tag="tests.narrow")]


def test_the_migration_narrows_an_old_table_without_changing_a_value(old_table: str) -> None:
    client.insert_rows(old_table, samples.COLUMNS, LIMIT_ROWS, tag="tests.narrow")
    for _ in range(2):  # the second run changes nothing
        for statement in m0002.forwards(old_table):
            client.execute(statement, tag="tests.narrow")
        assert _types(old_table) == _types(samples.NAME)  # the declared shape, as a fresh install has it
        assert _rows(old_table) == LIMIT_ROWS


@pytest.mark.parametrize(
    ("column", "value"),
    [("interval_real_us", 2**32), ("interval_real_us", -1), ("size_in_bytes", 2**32), ("net_code", 2**15),
     ("proto_code", -(2**15) - 1), ("send_time_us", 2**31), ("interval_event_us", -(2**31) - 1)],
)  # fmt: skip
def test_the_migration_refuses_a_value_it_would_wrap(old_table: str, column: str, value: int) -> None:
    row = list(LIMIT_ROWS[0])
    row[samples.COLUMNS.index(column)] = value
    client.insert_rows(old_table, samples.COLUMNS, [tuple(row), LIMIT_ROWS[1]], tag="tests.narrow")
    guard, *_ = m0002.forwards(old_table)
    with pytest.raises(ServerException, match="throwIf"):
        client.execute(guard, tag="tests.narrow")
    found = client.execute(f"SELECT {column} FROM {old_table} WHERE {m0002.OUT_OF_RANGE}", tag="tests.narrow")
    assert found == [(value,)]
    assert _types(old_table)[column] == m0002.TYPES[column][0]  # untouched
