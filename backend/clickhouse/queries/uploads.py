"""The ClickHouse statements of an upload's ingestion (backend/uploads/): its samples and per-second rows counted,
deleted, and read back to aggregate a second again.

Table names and columns come from the table modules and analytics/schema/samples.py, values are bound parameters.
DELETE is a mutation: ClickHouse applies it in the background; readers never see the rows of an upload that is not
its test's active one, so a pending deletion is invisible to them (`wait_for_mutations` where it is not).
"""

from __future__ import annotations

import time

import numpy as np

from analytics.schema import samples as sample
from analytics.schema.samples import SampleColumns
from backend.clickhouse import client
from backend.clickhouse.tables import samples, second_aggregates

MUTATION_WAIT_S = 120.0
# The upload's rows in each table that holds them: the table and its column naming the upload.
_UPLOAD_COLUMN = ((samples.NAME, "upload_id"), (second_aggregates.NAME, "source_id"))
_STORED = ", ".join(c.stored_as for c in sample.COLUMNS)


def delete_upload_rows(test_id: int, upload_id: int) -> None:
    """Delete an upload's samples and derived aggregates (asynchronous mutations; the rows are never read)."""
    params = {"test_id": test_id, "upload_id": upload_id}
    for table, column in _UPLOAD_COLUMN:
        rows = client.execute(
            f"SELECT count() FROM {table} WHERE test_id = %(test_id)s AND {column} = %(upload_id)s",
            params,
            tag="uploads.count_upload_rows",
        )
        if rows and int(rows[0][0]) > 0:
            client.mutate(
                table,
                f"DELETE WHERE test_id = %(test_id)s AND {column} = %(upload_id)s",
                params,
                tag="uploads.delete_upload_rows",
            )


def delete_seconds(test_id: int, upload_id: int, seconds: tuple[int, ...]) -> None:
    """Delete the upload's per-second rows of these seconds (a mutation: `wait_for_mutations` to see it done)."""
    params = {"test_id": test_id, "upload_id": upload_id, "seconds": seconds}  # a tuple renders as IN (…)
    client.mutate(
        second_aggregates.NAME,
        "DELETE WHERE test_id = %(test_id)s AND source_id = %(upload_id)s AND ts IN %(seconds)s",
        params,
        tag="uploads.delete_late_seconds",
    )


def samples_of_seconds(test_id: int, upload_id: int, seconds: tuple[int, ...]) -> tuple[SampleColumns, list[str]]:
    """The upload's stored samples of these response seconds, and the cases their `case_codes` index."""
    params = {"test_id": test_id, "upload_id": upload_id, "seconds": seconds}
    read = client.execute_numpy(
        f"SELECT {_STORED} FROM {samples.NAME} "
        "WHERE test_id = %(test_id)s AND upload_id = %(upload_id)s AND receive_sec IN %(seconds)s",
        params,
        tag="uploads.late_seconds_samples",
    )
    columns = {c.name: values for c, values in zip(sample.COLUMNS, read, strict=True)}
    cases, codes = np.unique(np.asarray(columns["case_codes"], dtype=object).astype(str), return_inverse=True)
    columns["case_codes"] = codes
    return SampleColumns.of(columns), [str(c) for c in cases]


def wait_for_mutations(table: str, timeout_s: float = MUTATION_WAIT_S) -> None:
    """Wait until no mutation of `table` is pending (ClickHouseUnavailable after `timeout_s`)."""
    deadline = time.monotonic() + timeout_s
    while True:
        if client.pending_mutations(table) == 0:
            return
        if time.monotonic() > deadline:
            raise client.ClickHouseUnavailable(f"mutations on {table} still running after {timeout_s:.0f} s")
        time.sleep(0.05)
