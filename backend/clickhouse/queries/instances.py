"""Writing a source's active instances per second (`threads`) into its overall rows of `second_aggregates`.

An upload's per-second rows are derived from its samples, which carry no instances; a generator whose file says
them elsewhere (JMeter's thread counts, k6's `vus` points, Gatling's USER records: analytics/formats/instances.py)
has them set here once every row is written, before the upload becomes the test's data. The overall rows (case
'') of the seconds named are written again with their `threads` and a version one above theirs: the table is a
ReplacingMergeTree on `received_at_us`, and every reader of these rows sums them with FINAL, which keeps the new
one (until a merge drops the old). The values travel as bound arrays, a few thousand seconds per statement.
"""

from __future__ import annotations

from collections.abc import Sequence

from backend.clickhouse import client
from backend.clickhouse.tables import second_aggregates

T = second_aggregates.NAME
SECONDS_PER_STATEMENT = 4000  # ~70 KB of values: well under max_query_size (256 KiB by default)
_SELECTED = ", ".join(
    {
        "threads": "transform(ts, CAST(%(seconds)s AS Array(UInt32)), CAST(%(threads)s AS Array(UInt32)), threads)",
        "received_at_us": "received_at_us + 1",
    }.get(name, name)
    for name in second_aggregates.COLUMNS
)
SET_THREADS_SQL = f"""
INSERT INTO {T} ({", ".join(second_aggregates.COLUMNS)})
SELECT {_SELECTED}
FROM {T} FINAL
WHERE test_id = %(test_id)s AND source_id = %(source_id)s AND case = ''
  AND ts >= %(first)s AND ts <= %(last)s AND has(CAST(%(seconds)s AS Array(UInt32)), ts)
"""


def overall_seconds(test_id: int, source_id: int) -> list[int]:
    """The seconds the source has an overall row for, ascending."""
    rows = client.execute(
        f"SELECT DISTINCT ts FROM {T} WHERE test_id = %(test_id)s AND source_id = %(source_id)s AND case = '' "
        "ORDER BY ts",
        {"test_id": test_id, "source_id": source_id},
        tag="uploads.overall_seconds",
    )
    return [int(r[0]) for r in rows]


def set_overall_threads(test_id: int, source_id: int, seconds: Sequence[int], threads: Sequence[int]) -> None:
    """Set `threads` of the source's overall row of each of `seconds` (ascending); seconds without a row stay so."""
    for start in range(0, len(seconds), SECONDS_PER_STATEMENT):
        part = [int(s) for s in seconds[start : start + SECONDS_PER_STATEMENT]]
        client.execute(
            SET_THREADS_SQL,
            {
                "test_id": test_id,
                "source_id": source_id,
                "seconds": part,
                "threads": [int(t) for t in threads[start : start + SECONDS_PER_STATEMENT]],
                "first": part[0],
                "last": part[-1],
            },
            tag="uploads.set_instances",
        )
