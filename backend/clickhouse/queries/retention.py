"""The ClickHouse side of retention (backend/retention): deleting tests' raw samples, or their per-second aggregates
and monitoring, in one mutation per table for a batch of tests, and waiting until the mutations are done.

Mutations, not partition drops: `samples` is partitioned by month of the response second across all tests, so a
partition holds tests that must stay (baselines, starred, younger ones). ALTER … DELETE runs on 18.16 and on current
releases alike; on a cluster it goes to the local tables ON CLUSTER (client.mutate). A mutation rewrites only the
parts that hold a deleted row's test (the sort key starts with test_id), and deleting rows that are already gone
changes nothing: a step can run again after a crash.
"""

from __future__ import annotations

from collections.abc import Sequence

from backend.clickhouse import client
from backend.clickhouse.queries.uploads import wait_for_mutations
from backend.clickhouse.tables import monitoring, samples, second_aggregates

RAW_TABLES = (samples.NAME,)
AGGREGATE_TABLES = (second_aggregates.NAME, monitoring.NAME)
# A batch's mutations may rewrite every part of a month; generous, but bounded (the step is retried later).
MUTATION_WAIT_S = 900.0


def _delete(tables: Sequence[str], test_ids: Sequence[int], tag: str) -> None:
    if not test_ids:
        return
    params = {"test_ids": tuple(int(t) for t in test_ids)}  # a tuple renders as IN (…)
    for table in tables:
        rows = client.execute(f"SELECT count() FROM {table} WHERE test_id IN %(test_ids)s", params, tag=f"{tag}.count")
        if rows and int(rows[0][0]) > 0:
            client.mutate(table, "DELETE WHERE test_id IN %(test_ids)s", params, tag=tag)
    for table in tables:
        wait_for_mutations(table, MUTATION_WAIT_S)


def delete_raw(test_ids: Sequence[int]) -> None:
    """Delete the raw samples of these tests and wait until it is done."""
    _delete(RAW_TABLES, test_ids, "retention.delete_raw")


def delete_aggregates(test_ids: Sequence[int]) -> None:
    """Delete these tests' per-second aggregates and monitoring and wait until it is done."""
    _delete(AGGREGATE_TABLES, test_ids, "retention.delete_aggregates")
