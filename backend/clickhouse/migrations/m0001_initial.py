"""Samples, per-second aggregates and monitoring."""

from backend.clickhouse.engines import Shape, create, drop
from backend.clickhouse.tables import monitoring, samples, second_aggregates

TABLES = (samples, second_aggregates, monitoring)


def forwards_for(shape: Shape) -> list[str]:
    return [statement for table in TABLES for statement in create(table.SPEC, shape)]


def backwards_for(shape: Shape) -> list[str]:
    return [statement for table in reversed(TABLES) for statement in drop(table.NAME, shape)]


FORWARDS = forwards_for(Shape())
BACKWARDS = backwards_for(Shape())
