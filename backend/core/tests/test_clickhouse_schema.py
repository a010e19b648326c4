"""ClickHouse migrations: idempotent, recorded in ClickHouse, and the live schema equals the declared one."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

from backend.clickhouse import client, migrate
from backend.clickhouse import tables as tables_pkg


def _table_modules() -> list[object]:
    return [
        importlib.import_module(f"{tables_pkg.__name__}.{info.name}")
        for info in pkgutil.iter_modules(tables_pkg.__path__)
    ]


def test_apply_all_twice_is_a_no_op(clickhouse: None) -> None:
    assert migrate.apply_all() == []
    assert {m.name for m in migrate.discover()} <= migrate.applied()


def test_migration_names_are_numbered_and_unique() -> None:
    names = [m.name for m in migrate.discover()]
    numbers = [name[1:5] for name in names]
    assert len(set(numbers)) == len(numbers), f"two migrations share a number: {names}"
    for m in migrate.discover():
        for statement in m.forwards:
            text = " ".join(statement.split()).upper()
            if text.startswith("CREATE"):
                assert "IF NOT EXISTS" in text, f"{m.name}: CREATE without IF NOT EXISTS"


@pytest.mark.parametrize("module", _table_modules(), ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_live_columns_match_declared(clickhouse: None, module: object) -> None:
    columns = getattr(module, "COLUMNS", None)
    if columns is None:
        pytest.skip("table module declares no COLUMNS")
    # DESCRIBE lists columns in table order (18.16's system.columns has no `position`).
    rows = client.execute(f"DESCRIBE TABLE {module.NAME}", tag="tests.columns")  # type: ignore[attr-defined]
    live = tuple(str(r[0]) for r in rows)
    assert live == tuple(columns)
