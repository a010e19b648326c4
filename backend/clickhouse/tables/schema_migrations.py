"""Which ClickHouse migrations have been applied (state lives in ClickHouse itself, as Snuba does)."""

NAME = "schema_migrations"

COLUMNS = ("name", "applied_at")

CREATE_SQL = f"""
CREATE TABLE IF NOT EXISTS {NAME} (
    name String,
    applied_at DateTime
) ENGINE = ReplacingMergeTree(applied_at)
ORDER BY name
"""
