"""What the flusher and the stop tell the online pages: one event per test per flush with new seconds (its live
figures, from the rows just stored: no read), and one when a test's status changes. Fanned out by channel.py."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from analytics.live_figures import live_figures, planned_s
from backend.live import channel


def newest_overall_rows(rows: Iterable[tuple[int, int, str, Sequence[Any]]]) -> dict[int, Sequence[Any]]:
    """Per test, the overall row ('' case) of its newest second among (test, second, case, row)."""
    newest: dict[int, tuple[int, Sequence[Any]]] = {}
    for test_id, ts, case, row in rows:
        if case == "" and (test_id not in newest or ts > newest[test_id][0]):
            newest[test_id] = (ts, row)
    return {test_id: row for test_id, (_ts, row) in newest.items()}


def seconds_stored(newest: Mapping[int, Sequence[Any]], tests: Mapping[int, tuple[int | None, Any, str]]) -> None:
    """Publish each test's new seconds: `newest` its newest overall row, `tests` its (first_ts, loadscheme, status)
    as stored after the flush."""
    for test_id, row in newest.items():
        first_ts, loadscheme, status = tests.get(test_id, (None, None, ""))
        if first_ts is None:
            continue
        figures = live_figures(row, first_ts, planned_s(loadscheme))
        data = {"test": test_id, "first_ts": first_ts, "last_ts": figures.ts, "status": status}
        channel.publish(test_id, channel.SECOND, {**data, "live": figures.as_dict()})


def status_changed(test_id: int, status: str, **extra: Any) -> None:
    """The test's status changed (stopped from the web, closed): its pages ask its metadata again."""
    channel.publish(test_id, channel.STATUS, {"test": test_id, "status": status, **extra})
