"""Apply ClickHouse migrations in order; their state is kept in ClickHouse (`schema_migrations`).

A migration's statements depend on the shape of the deployment (backend/clickhouse/engines.py): a module with
`forwards_for(shape)` / `backwards_for(shape)` gives them for either; one with plain FORWARDS / BACKWARDS lists is
single-server only, and on a cluster any of its DDL without ON CLUSTER is refused before it runs (it would change
one node and leave the others behind).
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from datetime import UTC, datetime
from types import ModuleType

from backend.clickhouse import client, engines
from backend.clickhouse import migrations as migrations_pkg
from backend.clickhouse.tables import schema_migrations


@dataclass(frozen=True)
class Migration:
    name: str
    forwards: list[str]
    backwards: list[str]


def discover(shape: engines.Shape | None = None) -> list[Migration]:
    """All migration modules, ordered by their number (`m0001_...`), with their statements for `shape` (default:
    one server)."""
    shape = shape or engines.Shape()
    found: list[Migration] = []
    for info in pkgutil.iter_modules(migrations_pkg.__path__):
        if not info.name.startswith("m") or not info.name[1:5].isdigit():
            continue
        module: ModuleType = importlib.import_module(f"{migrations_pkg.__name__}.{info.name}")
        forwards_for = getattr(module, "forwards_for", None)
        backwards_for = getattr(module, "backwards_for", None)
        forwards = forwards_for(shape) if forwards_for else list(module.FORWARDS)
        backwards = backwards_for(shape) if backwards_for else list(module.BACKWARDS)
        found.append(Migration(info.name, list(forwards), list(backwards)))
    found.sort(key=lambda m: m.name)
    return found


def applied() -> set[str]:
    rows = client.execute(f"SELECT name FROM {schema_migrations.NAME}", tag="migrations.applied")
    return {str(row[0]) for row in rows}


def apply_all() -> list[str]:
    """Create the database and apply every pending migration; return the names applied now."""
    shape = engines.current()
    client.ensure_database()
    for statement in engines.create(schema_migrations.SPEC, shape):
        client.execute(statement, tag="migrations.state_table")
    done = applied()
    newly: list[str] = []
    pending = [m for m in discover(shape) if m.name not in done]
    if shape.is_cluster:
        for migration in pending:
            for statement in migration.forwards:
                refuse_single_node_ddl(migration.name, statement)
    for migration in pending:
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


_DDL_HEADS = ("CREATE", "ALTER", "DROP", "RENAME", "TRUNCATE", "OPTIMIZE")


def refuse_single_node_ddl(migration: str, statement: str) -> None:
    """On a cluster, DDL must run ON CLUSTER: a statement without it would change only the node we talk to."""
    text = " ".join(statement.split()).upper()
    if text.startswith(_DDL_HEADS) and " ON CLUSTER " not in text:
        raise RuntimeError(
            f"ClickHouse migration {migration} has no cluster shape (CLICKHOUSE_CLUSTER is set): give it "
            f"forwards_for(shape) built with backend.clickhouse.engines; statement: {text[:200]}"
        )


def _now() -> datetime:
    # clickhouse_driver writes naive datetimes as the server's local time; the server runs in UTC.
    return datetime.now(UTC).replace(tzinfo=None, microsecond=0)
