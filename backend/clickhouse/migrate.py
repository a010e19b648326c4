"""Apply ClickHouse migrations in order; their state is kept in ClickHouse (`schema_migrations`)."""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from datetime import UTC, datetime
from types import ModuleType

from backend.clickhouse import client
from backend.clickhouse import migrations as migrations_pkg
from backend.clickhouse.tables import schema_migrations


@dataclass(frozen=True)
class Migration:
    name: str
    forwards: list[str]
    backwards: list[str]


def discover() -> list[Migration]:
    """All migration modules, ordered by their number (`m0001_...`)."""
    found: list[Migration] = []
    for info in pkgutil.iter_modules(migrations_pkg.__path__):
        if not info.name.startswith("m") or not info.name[1:5].isdigit():
            continue
        module: ModuleType = importlib.import_module(f"{migrations_pkg.__name__}.{info.name}")
        found.append(Migration(info.name, list(module.FORWARDS), list(module.BACKWARDS)))
    found.sort(key=lambda m: m.name)
    return found


def applied() -> set[str]:
    rows = client.execute(f"SELECT name FROM {schema_migrations.NAME}", tag="migrations.applied")
    return {str(row[0]) for row in rows}


def apply_all() -> list[str]:
    """Create the database and apply every pending migration; return the names applied now."""
    client.ensure_database()
    client.execute(schema_migrations.CREATE_SQL, tag="migrations.state_table")
    done = applied()
    newly: list[str] = []
    for migration in discover():
        if migration.name in done:
            continue
        for statement in migration.forwards:
            try:
                client.execute(statement, tag=f"migration.{migration.name}")
            except Exception as exc:
                # A server error names neither the migration nor the statement (e.g. m0002's guard: "Value passed
                # to 'throwIf' function is non zero"); the migration's docstring says what to do.
                exc.add_note(f"in ClickHouse migration {migration.name}: {' '.join(statement.split())[:300]}")
                raise
        client.insert_rows(
            schema_migrations.NAME,
            ("name", "applied_at"),
            [(migration.name, _now())],
            tag="migrations.record",
        )
        newly.append(migration.name)
    return newly


def _now() -> datetime:
    # clickhouse_driver writes naive datetimes as the server's local time; the server runs in UTC.
    return datetime.now(UTC).replace(tzinfo=None, microsecond=0)
