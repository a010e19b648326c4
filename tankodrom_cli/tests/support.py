"""What the CLI's live-server tests share."""

from __future__ import annotations

from backend.clickhouse import client as ch
from backend.clickhouse.tables import second_aggregates


def overall_resps(test_id: int, source_id: int) -> dict[int, int]:
    """Responses per second of one source of a test (0: what was streamed; an upload's id: its exact rows)."""
    rows = ch.execute(
        f"SELECT ts, resps FROM {second_aggregates.NAME} FINAL WHERE test_id = %(t)s AND source_id = %(s)s "
        "AND case = '' ORDER BY ts",
        {"t": test_id, "s": source_id},
        tag="tests.overall_resps",
    )
    return {int(ts): int(n) for ts, n in rows}
