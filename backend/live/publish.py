"""What the flusher and the stop tell the online pages: one event per new second of each test (its live figures,
from the rows just stored: no read), and one when a test's status changes. Fanned out by channel.py."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from analytics.live_figures import live_figures, planned_s
from backend.live import channel


def overall_rows(rows: Iterable[tuple[int, int, str, Sequence[Any]]]) -> dict[int, list[Sequence[Any]]]:
    """Per test, the overall rows ('' case) among (test, second, case, row), oldest second first."""
    by_test: dict[int, list[tuple[int, Sequence[Any]]]] = {}
    for test_id, ts, case, row in rows:
        if case == "":
            by_test.setdefault(test_id, []).append((ts, row))
    return {test_id: [row for _ts, row in sorted(seconds, key=lambda s: s[0])] for test_id, seconds in by_test.items()}


def seconds_stored(stored: Mapping[int, list[Sequence[Any]]], tests: Mapping[int, tuple[int | None, Any, str]]) -> None:
    """Publish each test's new seconds, one event per second in order: `stored` their overall rows, `tests` each
    test's (first_ts, loadscheme, status) as stored after the flush. A flush usually holds one new second per test;
    after a pause (Redis or ClickHouse away) it holds several, and each gets its event."""
    for test_id, rows in stored.items():
        first_ts, loadscheme, status = tests.get(test_id, (None, None, ""))
        if first_ts is None:
            continue
        planned = planned_s(loadscheme)
        for row in rows:
            figures = live_figures(row, first_ts, planned)
            data = {"test": test_id, "first_ts": first_ts, "last_ts": figures.ts, "status": status}
            channel.publish(test_id, channel.SECOND, {**data, "live": figures.as_dict()})


def status_changed(test_id: int, status: str, **extra: Any) -> None:
    """The test's status changed (stopped from the web, closed): its pages ask its metadata again."""
    channel.publish(test_id, channel.STATUS, {"test": test_id, "status": status, **extra})
