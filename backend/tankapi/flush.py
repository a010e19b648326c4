"""Draining the ingest buffer into ClickHouse: few large inserts, then the bookkeeping in PostgreSQL.

One batch = the oldest entries of the Redis stream. Their rows (validated by the push path, buffer.KIND_*_ROWS)
become two column blocks (`second_aggregates` with source_id 0, each case as its test stores it under the
cardinality limits, stream_cases; and `monitoring`), inserted
with one INSERT per table; the tests' first/last second and last push time are updated in one UPDATE, and only
then are the entries deleted. An entry that cannot be read, or whose rows ClickHouse refuses, is moved to the dead
letters (buffer.DEAD_LETTER_KEY, listed by `manage.py tank_dead_letters`) and the rest of the batch goes on.
A failure before the delete leaves them in the stream for the next run; rows inserted twice collapse in the
ReplacingMergeTree tables, whose readers use FINAL (or argMax on received_at_us) to see each key once.

A lock in Redis keeps flushes serial, so a slow flush is not overlapped by the next beat tick.
"""

from __future__ import annotations

import logging
import struct
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson
from django.db import connection as pg_connection

from analytics.cases import CaseNames
from analytics.schema.seconds import ROW_FIELDS
from analytics.tank_push import PushFormatError
from backend.clickhouse import client
from backend.clickhouse.client import ClickHouseUnavailable
from backend.clickhouse.tables import monitoring, second_aggregates
from backend.live import publish as live
from backend.loadtests.models import Test
from backend.tankapi import buffer, stream_cases

log = logging.getLogger(__name__)

STREAM_SOURCE_ID = 0
# While the flusher sees ClickHouse down, pushes are refused for this long after each failed attempt; the beat
# runs every second, so the flag stays up for the whole outage and drops within seconds after it ends.
CLICKHOUSE_DOWN_TTL_MS = 5_000
DEFAULT_BATCH_ENTRIES = 5_000
_LOCK_TTL_MS = 120_000


@dataclass
class FlushResult:
    entries: int = 0
    second_rows: int = 0
    monitoring_rows: int = 0
    dead_letters: int = 0
    skipped_lock: bool = False
    error: str = ""


@dataclass
class _TestSpan:
    first_ts: int | None = None
    last_ts: int | None = None
    last_push_s: int = 0
    has_data: bool = False


_ROW_LENGTH = len(ROW_FIELDS)


@dataclass
class _Parsed:
    """One readable buffer entry: its seconds (values in ROW_FIELDS order) and monitoring points."""

    entry: buffer.Entry
    seconds: list[Sequence[Any]] = field(default_factory=list)
    points: list[tuple[int, str, str, float]] = field(default_factory=list)  # (ts, host, metric, value)


@dataclass
class _Batch:
    # (test, second, case) -> (received_at_us, values in ROW_FIELDS order)
    seconds: dict[tuple[int, int, str], tuple[int, Sequence[Any]]] = field(default_factory=dict)
    points: dict[tuple[int, str, str, int], tuple[float, int]] = field(default_factory=dict)
    spans: dict[int, _TestSpan] = field(default_factory=dict)


def _parse(entry: buffer.Entry) -> _Parsed:
    """The entry's rows; ValueError, TypeError or PushFormatError when it is unreadable."""
    body = orjson.loads(entry.body)
    parsed = _Parsed(entry)
    if entry.kind == buffer.KIND_DATA_ROWS:
        for row in body:
            if not isinstance(row, list | tuple) or len(row) != _ROW_LENGTH:
                raise PushFormatError(f"a buffered second has {len(row)} values, not {_ROW_LENGTH}")
            int(row[0])  # the second: a key of the batch
            parsed.seconds.append(row)
    elif entry.kind == buffer.KIND_MONITORING_ROWS:
        parsed.points = [(int(ts), str(host), str(metric), float(value)) for ts, host, metric, value in body]
    else:
        raise PushFormatError(f"unknown buffer entry kind {entry.kind!r}")
    return parsed


def _readable(entries: Iterable[buffer.Entry]) -> tuple[list[_Parsed], int]:
    """The entries that parse, and how many did not (moved to the dead letters)."""
    readable: list[_Parsed] = []
    dead = 0
    for entry in entries:
        try:
            readable.append(_parse(entry))
        except (ValueError, TypeError, PushFormatError) as exc:  # both JSONDecodeErrors are ValueErrors
            log.error("tank buffer entry %r of test %s is unreadable: %s", entry.entry_id, entry.test_id, exc)
            buffer.move_to_dead_letters(entry, f"unreadable: {exc}")
            dead += 1
    return readable, dead


def _batch_of(parsed: Iterable[_Parsed], names: Mapping[int, CaseNames]) -> _Batch:
    """The entries' rows keyed for the INSERT, each case as its test stores it (stream_cases.fold)."""
    batch = _Batch()
    for item in parsed:
        entry = item.entry
        span = batch.spans.setdefault(entry.test_id, _TestSpan())
        span.last_push_s = max(span.last_push_s, entry.received_at_us // 1_000_000)
        for row in item.seconds:
            ts, case = int(row[0]), row[1]
            # Within a batch the last copy of a key wins, as the ReplacingMergeTree would decide later.
            batch.seconds[(entry.test_id, ts, case)] = (entry.received_at_us, row)
            span.has_data = True
            span.first_ts = ts if span.first_ts is None else min(span.first_ts, ts)
            span.last_ts = ts if span.last_ts is None else max(span.last_ts, ts)
        for ts, host, metric, value in item.points:
            batch.points[(entry.test_id, host, metric, ts)] = (value, entry.received_at_us)
    batch.seconds = stream_cases.fold(batch.seconds, names)
    return batch


def _second_columns(batch: _Batch) -> dict[str, list[object]]:
    columns: dict[str, list[object]] = {name: [] for name in second_aggregates.COLUMNS}
    lists = [columns[name] for name in second_aggregates.COLUMNS]
    for (test_id, _ts, _case), (received_at_us, row) in batch.seconds.items():
        for target, value in zip(lists, (test_id, STREAM_SOURCE_ID, *row, received_at_us), strict=True):
            target.append(value)
    return columns


def _monitoring_columns(batch: _Batch) -> dict[str, list[object]]:
    columns: dict[str, list[object]] = {name: [] for name in monitoring.COLUMNS}
    for (test_id, host, metric, ts), (value, received_at_us) in batch.points.items():
        for name, item in zip(monitoring.COLUMNS, (test_id, ts, host, metric, value, received_at_us), strict=True):
            columns[name].append(item)
    return columns


def _update_tests(spans: dict[int, _TestSpan]) -> dict[int, tuple[int | None, Any, str]]:
    """One UPDATE for every test of the batch: has_stream, first/last second, last push time. Returns each test's
    (first second, load scheme, status) after it, for the online pages' event (backend/live/publish.py)."""
    if not spans:
        return {}
    table = Test._meta.db_table
    rows_sql = ", ".join(["(%s::bigint, %s::bigint, %s::bigint, %s::double precision, %s::boolean)"] * len(spans))
    params: list[int | float | bool | None] = []
    for test_id, span in spans.items():
        params += [test_id, span.first_ts, span.last_ts, float(span.last_push_s), span.has_data]
    # PostgreSQL's LEAST/GREATEST ignore NULLs, so a monitoring-only batch leaves first/last second unchanged.
    sql = (
        f'UPDATE "{table}" AS t SET '
        "has_stream = t.has_stream OR v.has_data, "
        "first_ts = LEAST(t.first_ts, v.first_ts), "
        "last_ts = GREATEST(t.last_ts, v.last_ts), "
        "last_push_at = GREATEST(t.last_push_at, to_timestamp(v.pushed_s)) "
        f"FROM (VALUES {rows_sql}) AS v(id, first_ts, last_ts, pushed_s, has_data) WHERE t.id = v.id "
        "RETURNING t.id, t.first_ts, t.loadscheme, t.status"
    )
    with pg_connection.cursor() as cursor:
        cursor.execute(sql, params)
        returned = cursor.fetchall()
    return {int(row[0]): (row[1], _json(row[2]), str(row[3])) for row in returned}


def _json(value: Any) -> Any:
    # psycopg2 decodes jsonb; a json column comes back as text.
    return orjson.loads(value) if isinstance(value, str | bytes) else value


def flush_once(max_entries: int = DEFAULT_BATCH_ENTRIES) -> FlushResult:
    """Move one batch from the stream into ClickHouse. Safe to run concurrently (a lock makes it serial)."""
    token = buffer.acquire_flush_lock(_LOCK_TTL_MS)
    if token is None:
        return FlushResult(skipped_lock=True)
    try:
        return _flush_locked(max_entries)
    finally:
        buffer.release_flush_lock(token)


def _insert(batch: _Batch, result: FlushResult) -> None:
    result.second_rows += client.insert_columns(
        second_aggregates.NAME, _second_columns(batch), tag="tankapi.flush.seconds"
    )
    result.monitoring_rows += client.insert_columns(
        monitoring.NAME, _monitoring_columns(batch), tag="tankapi.flush.monitoring"
    )


# ClickHouse's error codes that blame the data sent (not the server's state): CANNOT_PARSE_TEXT, CANNOT_PARSE_INPUT_
# ASSERTION_FAILED, TYPE_MISMATCH (also what the driver raises for a value its column type cannot encode),
# ARGUMENT_OUT_OF_BOUND, CANNOT_CONVERT_TYPE, INCORRECT_DATA, SIZES_OF_ARRAYS_DOESNT_MATCH.
_BAD_DATA_CODES = frozenset((6, 27, 53, 69, 70, 117, 190))


def _blames_the_data(exc: Exception) -> bool:
    """Whether an INSERT failed for what it held (set that aside), rather than for the server's state (too many
    parts, memory, a read-only table...: wait, as when ClickHouse is down)."""
    code = getattr(exc, "code", None)
    if code is not None:
        return code in _BAD_DATA_CODES
    # The driver encodes values client-side: a value of the wrong type fails there with one of these.
    return isinstance(exc, TypeError | ValueError | OverflowError | AttributeError | struct.error)


def _insert_or_set_aside(parsed: list[_Parsed], result: FlushResult, names: Mapping[int, CaseNames]) -> list[_Parsed]:
    """Insert these entries' rows; the entries whose rows ClickHouse refuses for what they hold (a value its column
    cannot take) are found by halving and moved to the dead letters, so that they hold nothing else back. Returns
    the entries inserted. ClickHouseUnavailable passes through: then nothing is set aside, everything waits.

    The door validates every value against its column (analytics.schema.seconds.COLUMN_RANGES), so this is for entries
    written otherwise: an older version, a bug, a hand. Halving re-inserts rows of the good half that were already
    in an INSERT that failed; the ReplacingMergeTree tables keep one copy of each."""
    try:
        _insert(_batch_of(parsed, names), result)
        return parsed
    except ClickHouseUnavailable:
        raise
    except Exception as exc:
        if not _blames_the_data(exc):
            raise _Postponed(str(exc)) from exc
        if len(parsed) == 1:
            entry = parsed[0].entry
            log.error("ClickHouse refuses tank buffer entry %r of test %s: %s", entry.entry_id, entry.test_id, exc)
            buffer.move_to_dead_letters(entry, f"refused by ClickHouse: {exc}")
            result.dead_letters += 1
            return []
    middle = len(parsed) // 2
    return _insert_or_set_aside(parsed[:middle], result, names) + _insert_or_set_aside(parsed[middle:], result, names)


class _Postponed(Exception):
    """The INSERT failed for the server's state: everything waits for the next flush."""


def _flush_locked(max_entries: int) -> FlushResult:
    entries, malformed = buffer.read_batch(max_entries)
    if malformed:
        # Not written by buffer.append: nothing to keep, and leaving them would block the stream.
        log.error("dropping %d tank buffer entries without the expected fields", len(malformed))
        buffer.delete(malformed)
    if not entries:
        return FlushResult(dead_letters=len(malformed))
    parsed, unreadable = _readable(entries)
    result = FlushResult(entries=len(entries), dead_letters=unreadable + len(malformed))
    try:
        # The names each test keeps so far: its cases past TANKODROM_CASES_MAX are folded (stream_cases).
        names = stream_cases.load(item.entry.test_id for item in parsed if item.seconds)
        inserted = _insert_or_set_aside(parsed, result, names)
    except ClickHouseUnavailable as exc:
        buffer.mark_clickhouse_down(CLICKHOUSE_DOWN_TTL_MS)
        log.warning("tank buffer flush postponed, %d entries wait in Redis: %s", len(entries), exc)
        result.error = str(exc)
        return result
    except _Postponed as exc:
        log.error("tank buffer flush postponed, ClickHouse refused the INSERT: %s", exc)
        result.error = str(exc)
        return result
    buffer.mark_clickhouse_up()
    stored = _batch_of(inserted, names)
    stream_cases.save(stored.seconds)
    tests = _update_tests(stored.spans)
    buffer.delete([item.entry.entry_id for item in inserted])
    rows = ((test_id, ts, case, row) for (test_id, ts, case), (_at, row) in stored.seconds.items())
    live.seconds_stored(live.last_stored(rows), tests)
    return result


def flush_all(max_seconds: float = 50.0, max_entries: int = DEFAULT_BATCH_ENTRIES) -> FlushResult:
    """Flush batches until the stream is empty, a flush fails, or `max_seconds` pass; return the totals."""
    total = FlushResult()
    deadline = time.monotonic() + max_seconds
    while time.monotonic() < deadline:
        step = flush_once(max_entries)
        total.entries += step.entries
        total.second_rows += step.second_rows
        total.monitoring_rows += step.monitoring_rows
        total.dead_letters += step.dead_letters
        if step.skipped_lock or step.error:
            total.skipped_lock = step.skipped_lock
            total.error = step.error
            break
        if step.entries < max_entries:
            break
    return total
