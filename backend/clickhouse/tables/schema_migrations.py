"""Which ClickHouse migrations have been applied (state lives in ClickHouse itself, as Snuba does).

On a cluster every node holds all of it (a Replicated table on one ZooKeeper path, no Distributed table): any
node the application reaches knows the schema's state.
"""

from backend.clickhouse.engines import Shape, TableSpec, create

NAME = "schema_migrations"

COLUMNS = ("name", "applied_at")

SPEC = TableSpec(
    name=NAME,
    columns="""
    name String,
    applied_at DateTime""",
    engine="ReplacingMergeTree",
    version_column="applied_at",
    keys="ORDER BY name",
    everywhere=True,
)

CREATE_SQL = create(SPEC, Shape())[0]
