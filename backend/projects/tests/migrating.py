"""Moving the test database along the migration graph, for the tests of data migrations."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import connection
from django.db.migrations.executor import MigrationExecutor


def migrate(targets: Sequence[tuple[str, str | None]] | None = None) -> MigrationExecutor:
    """Migrate to `targets` (None: the latest of every app) with a fresh executor, whose loader sees the graph as
    migrated so far; the executor, for the apps of a state (`.loader.project_state(targets).apps`)."""
    executor = MigrationExecutor(connection)
    executor.migrate(targets if targets is not None else executor.loader.graph.leaf_nodes())
    return executor
