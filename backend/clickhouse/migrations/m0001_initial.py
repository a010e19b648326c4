"""Samples, per-second aggregates and monitoring."""

from backend.clickhouse.tables import monitoring, samples, second_aggregates

FORWARDS = [samples.CREATE_SQL, second_aggregates.CREATE_SQL, monitoring.CREATE_SQL]
BACKWARDS = [
    f"DROP TABLE IF EXISTS {monitoring.NAME}",
    f"DROP TABLE IF EXISTS {second_aggregates.NAME}",
    f"DROP TABLE IF EXISTS {samples.NAME}",
]
