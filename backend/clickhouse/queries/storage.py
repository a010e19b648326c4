"""What the stored tests take on disk: rows and bytes of each table from `system.parts`, rows per test.

`system.parts` knows bytes per part, not per test: a part holds the rows of many tests. A test's bytes are
therefore estimated as its rows times its table's bytes per row (the test's share of the table by rows); tests of
one table compress alike, so the estimate is close, and it sums to the table's real size.
On a cluster the parts live in the local tables of every node: one replica of each shard is summed (the table
function cluster() picks one), which is the data's size once, not once per replica.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from backend.clickhouse import client, engines
from backend.clickhouse.tables import monitoring, samples, second_aggregates

# The tables whose rows belong to a test, by what retention calls them.
TABLES = {"raw": samples.NAME, "aggregates": second_aggregates.NAME, "monitoring": monitoring.NAME}


@dataclass(frozen=True)
class TableUsage:
    table: str
    rows: int
    bytes_on_disk: int

    @property
    def bytes_per_row(self) -> float:
        return self.bytes_on_disk / self.rows if self.rows else 0.0


def table_usage(tables: Sequence[str] = tuple(TABLES.values())) -> dict[str, TableUsage]:
    """Rows and bytes on disk of the active parts of each table (its local table on a cluster)."""
    shape = engines.current()
    local = {engines.local_name(t, shape): t for t in tables}
    source = "cluster(%(cluster)s, system, parts)" if shape.is_cluster else "system.parts"
    rows = client.execute(
        f"""
        SELECT table, sum(rows), sum(bytes_on_disk)
        FROM {source}
        WHERE database = %(db)s AND table IN %(tables)s AND active
        GROUP BY table
        """,
        {"db": client.database(), "tables": tuple(local), "cluster": shape.cluster},
        tag="storage.parts",
    )
    found = {local[str(name)]: TableUsage(local[str(name)], int(n), int(b)) for name, n, b in rows}
    return {t: found.get(t, TableUsage(t, 0, 0)) for t in tables}


def rows_per_test(table: str, test_ids: Sequence[int] | None = None) -> dict[int, int]:
    """Stored rows of each test in `table` (a table module's NAME), of these tests only when given."""
    where = "WHERE test_id IN %(test_ids)s" if test_ids is not None else ""
    if test_ids is not None and not test_ids:
        return {}
    rows = client.execute(
        f"SELECT test_id, count() FROM {table} {where} GROUP BY test_id",
        {"test_ids": tuple(int(t) for t in test_ids or ())},
        tag="storage.rows_per_test",
    )
    return {int(test_id): int(n) for test_id, n in rows}
