"""What the online pages are told, fanned out by channel.py:

- `second`, as soon as a push of the tank's is buffered (the door answers the push, then announces it): the live
  figures of each second it carries (its overall row), so a watcher sees the second within moments of the push,
  whatever the flush's pace. The planned duration is not known there (no database on the push path): it comes
  with `stored`. Only while the test is watched (channel.watched_key, kept by the hubs; one Redis round trip tells
  it with the first second): a test nobody looks at costs its pushes nothing more.
- `stored`, when the flusher has stored a test's new seconds in ClickHouse: the pages ask their charts and tables
  again then, and take the first second and the planned duration from it.
- `status`, when a test's status changes (a stop asked, the test closed).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import orjson
import redis

from analytics.live_figures import live_figures, planned_s
from backend.core import redis_client
from backend.live import channel

log = logging.getLogger(__name__)


def _first_key(test_id: int) -> str:
    return f"live:first:{test_id}"


def second_pushed(test_id: int, rows: bytes) -> None:
    """Announce the seconds of a buffered push (rows as buffer.KIND_DATA_ROWS holds them). Never raises: the push
    is answered already, and the pages poll when the channel is quiet."""
    try:
        conn = redis_client.connection()
        pipe = conn.pipeline(transaction=False)
        pipe.exists(channel.watched_key(test_id))
        pipe.get(_first_key(test_id))
        watched, first = pipe.execute()
        if not watched and first is not None:
            return  # nobody watches, nor did lately (channel.py): nothing to announce, nobody to resume
        overall = sorted((row for row in orjson.loads(rows) if row[1] == ""), key=lambda row: int(row[0]))
        if not overall:
            return
        if first is None:  # the test's first second as the pushes saw it (the stored one comes with `stored`)
            conn.set(_first_key(test_id), int(overall[0][0]), nx=True, ex=channel.HISTORY_TTL_S)
            first = conn.get(_first_key(test_id))
        if not watched:
            return
        first_ts = int(first or overall[0][0])
        for row in overall:
            figures = live_figures(row, first_ts, None)
            data = {"test": test_id, "first_ts": first_ts, "last_ts": figures.ts, "live": figures.as_dict()}
            channel.publish(test_id, channel.SECOND, data)
    except (redis.RedisError, ValueError, TypeError, IndexError) as exc:
        log.warning("live second of test %s not announced: %s", test_id, exc)


def last_stored(rows: Iterable[tuple[int, int, str, Sequence[Any]]]) -> dict[int, int]:
    """Per test, the newest second among (test, second, case, row)."""
    newest: dict[int, int] = {}
    for test_id, ts, _case, _row in rows:
        newest[test_id] = max(ts, newest.get(test_id, ts))
    return newest


def seconds_stored(newest: Mapping[int, int], tests: Mapping[int, tuple[int | None, Any, str]]) -> None:
    """Tell each test's pages that its seconds up to `newest` are stored; `tests` gives each test's (first_ts,
    loadscheme, status) as stored after the flush."""
    for test_id, last_ts in newest.items():
        first_ts, loadscheme, status = tests.get(test_id, (None, None, ""))
        if first_ts is None:
            continue
        data = {"test": test_id, "first_ts": first_ts, "last_ts": last_ts, "status": status}
        channel.publish(test_id, channel.STORED, {**data, "planned_s": planned_s(loadscheme)})


def status_changed(test_id: int, status: str, **extra: Any) -> None:
    """The test's status changed (stopped from the web, closed): its pages ask its metadata again."""
    channel.publish(test_id, channel.STATUS, {"test": test_id, "status": status, **extra})
