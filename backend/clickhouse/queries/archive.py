"""Reading a test's rows out of ClickHouse for an archive, and writing an archive's rows back under new ids.

Samples travel as numpy columns (the table's own types), per-second rows and monitoring as rows in their tables'
column order. Per-second rows are read with FINAL (a second pushed twice is one row).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from analytics.schema import samples as sample
from backend.clickhouse import client
from backend.clickhouse.tables import monitoring, samples, second_aggregates

SAMPLE_COLUMNS = tuple(c.stored_as for c in sample.COLUMNS)
AGGREGATE_COLUMNS = second_aggregates.COLUMNS
MONITORING_COLUMNS = monitoring.COLUMNS
ROWS_PER_READ = 50_000


def sample_columns(test_id: int, upload_id: int) -> dict[str, np.ndarray]:
    """The upload's samples as columns (tag as a string column)."""
    read = client.execute_numpy(
        f"SELECT {', '.join(SAMPLE_COLUMNS)} FROM {samples.NAME} "
        "WHERE test_id = %(test_id)s AND upload_id = %(upload_id)s ORDER BY receive_sec",
        {"test_id": test_id, "upload_id": upload_id},
        tag="archive.samples",
    )
    if not read:
        return {name: np.zeros(0) for name in SAMPLE_COLUMNS}
    return {name: np.asarray(values) for name, values in zip(SAMPLE_COLUMNS, read, strict=True)}


def _test_rows(table: str, columns: Sequence[str], order_by: str, test_id: int, tag: str) -> list[tuple[Any, ...]]:
    """One test's rows of `table` (FINAL: a row written twice is one), in `order_by` order."""
    return client.execute(
        f"SELECT {', '.join(columns)} FROM {table} FINAL WHERE test_id = %(test_id)s ORDER BY {order_by}",
        {"test_id": test_id},
        tag=tag,
    )


def aggregate_rows(test_id: int) -> list[tuple[Any, ...]]:
    return _test_rows(second_aggregates.NAME, AGGREGATE_COLUMNS, "source_id, ts, case", test_id, "archive.aggregates")


def monitoring_rows(test_id: int) -> list[tuple[Any, ...]]:
    return _test_rows(monitoring.NAME, MONITORING_COLUMNS, "host, metric, ts", test_id, "archive.monitoring")


def insert_samples(test_id: int, upload_id: int, columns: Mapping[str, np.ndarray]) -> int:
    """Insert an archive's samples under these ids, ROWS_PER_READ at a time."""
    n = len(columns["receive_sec"])
    done = 0
    for start in range(0, n, ROWS_PER_READ):
        stop = min(start + ROWS_PER_READ, n)
        data: dict[str, Sequence[Any]] = {
            "test_id": [test_id] * (stop - start),
            "upload_id": [upload_id] * (stop - start),
        }
        for name in SAMPLE_COLUMNS:
            data[name] = columns[name][start:stop].tolist()
        done += client.insert_columns(samples.NAME, data, tag="archive.insert_samples")
    return done


def insert_aggregates(rows: Sequence[Sequence[Any]]) -> int:
    return client.insert_rows(second_aggregates.NAME, AGGREGATE_COLUMNS, rows, tag="archive.insert_aggregates")


def insert_monitoring(rows: Sequence[Sequence[Any]]) -> int:
    return client.insert_rows(monitoring.NAME, MONITORING_COLUMNS, rows, tag="archive.insert_monitoring")
