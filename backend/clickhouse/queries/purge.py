"""Deleting a test's rows from every ClickHouse table that holds them (DELETE /api/v1/tests/<id>/).

Tables are found through the table modules (their NAME constants), never from user input: any MergeTree
table whose columns include `test_id` is purged, so a table added later by another area is covered too.
ALTER ... DELETE is a mutation: ClickHouse applies it in the background, and reads of a deleted test are
refused by PostgreSQL long before the mutation finishes.
"""

from __future__ import annotations

import importlib
import pkgutil

from backend.clickhouse import client
from backend.clickhouse import tables as tables_pkg


def tables_with_test_id() -> list[str]:
    names = []
    for info in pkgutil.iter_modules(tables_pkg.__path__):
        module = importlib.import_module(f"{tables_pkg.__name__}.{info.name}")
        name = getattr(module, "NAME", None)
        columns = getattr(module, "COLUMNS", ())
        create_sql = str(getattr(module, "CREATE_SQL", ""))
        if isinstance(name, str) and "test_id" in columns and "MergeTree" in create_sql:
            names.append(name)
    return sorted(names)


def existing_tables() -> set[str]:
    rows = client.execute(
        "SELECT name FROM system.tables WHERE database = %(db)s",
        {"db": client.database()},
        tag="reports.purge.tables",
    )
    return {str(r[0]) for r in rows}


def delete_test_rows(test_id: int) -> list[str]:
    """Queue the deletion of every row of `test_id`; returns the tables it was asked of."""
    present = existing_tables()
    done = []
    for name in tables_with_test_id():
        if name not in present:
            continue
        client.mutate(name, "DELETE WHERE test_id = %(test_id)s", {"test_id": test_id}, tag="reports.purge.delete")
        done.append(name)
    return done
