"""The schema and the queries the suite ran on ClickHouse 18.16 also run on a current ClickHouse (chDB)."""

from __future__ import annotations

from typing import Any

import pytest

from backend.clickhouse.migrate import discover
from backend.clickhouse.tables import schema_migrations

chdb = pytest.importorskip("chdb")


def _session_with_schema(database: str) -> Any:
    from chdb import session

    sess = session.Session()
    sess.query(f"CREATE DATABASE IF NOT EXISTS {database}")
    sess.query(f"USE {database}")
    sess.query(schema_migrations.CREATE_SQL)
    for migration in discover():
        for statement in migration.forwards:
            sess.query(statement)
    return sess


def test_every_migration_applies_on_current_clickhouse() -> None:
    sess = _session_with_schema("compat_ddl")
    tables = {line.strip('"') for line in str(sess.query("SHOW TABLES")).split()}
    assert {"samples", "second_aggregates", "monitoring"} <= tables


@pytest.mark.replays_recorded_queries
def test_recorded_queries_run_on_current_clickhouse(request: pytest.FixtureRequest) -> None:
    from backend.testing import RECORDED_QUERIES

    recorded = dict(RECORDED_QUERIES)
    if not recorded:
        pytest.skip("no ClickHouse read queries ran in this session")
    sess = _session_with_schema("compat_queries")
    failures = []
    for rendered, template in recorded.items():
        try:
            sess.query(rendered)
        except Exception as exc:
            failures.append(f"{template.strip()[:300]}\n  -> {str(exc).splitlines()[0][:300]}")
    assert not failures, f"{len(failures)} of {len(recorded)} queries fail on current ClickHouse:\n" + "\n".join(
        failures
    )
