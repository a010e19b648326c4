"""The durable ingest buffer between the tank's pushes and ClickHouse: one Redis stream.

Why a Redis stream: ClickHouse wants few large inserts, the tank sends one small request per second per tank,
and a push answered 200 must survive the web process dying right after. So the view appends the validated rows of
the push to a stream (XADD, one round trip, persisted by Redis's append-only file) *before* answering, and a Celery beat
task (`backend.tankapi.tasks.flush_buffer`, queue `ingest`) drains the stream in batches into ClickHouse and only
then deletes the entries. A crash between the insert and the delete re-inserts the same rows, which the
ReplacingMergeTree key (test, source, second, case) collapses: at-least-once delivery, exactly-once as read.

Durability: the entry is in Redis before the 200 leaves, so a web process dying after answering loses nothing.
Redis itself persists with its append-only file (deploy/stack.sh starts it with `--appendonly yes`, default
fsync every second); a host crash can lose up to that last second unless Redis runs with `appendfsync always`.

While ClickHouse is down the flusher sets a short-lived flag; the append script refuses new pushes while it is
set (the view answers 503, the tank retries), so what was accepted is bounded and waits in Redis. The same
script refuses when the backlog exceeds TANKODROM_TANK_BUFFER_MAX_ENTRIES (overload protection, also 503).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

import redis
from django.conf import settings

STREAM_KEY = "tankapi:buffer"
# Entries the flusher could not parse (should never happen: the view parsed them first) are moved here, so one
# poisoned entry cannot block the stream forever, and nothing accepted is silently dropped.
DEAD_LETTER_KEY = "tankapi:buffer:dead"
CLICKHOUSE_DOWN_KEY = "tankapi:clickhouse_down"
LAST_PUSH_KEY = "tankapi:last_push"  # hash test_id -> unix s of the last accepted push (silence detection)
FLUSH_LOCK_KEY = "tankapi:flush_lock"

# What an entry holds. The views append the rows they validated ("D": PushSecond.as_row() lists, "M":
# [ts, host, metric, value] lists), so the flusher only decodes JSON; the raw-body kinds ("d", "m": the tank's
# own bytes, parsed by the flusher) are still read, for entries written by an older version or by hand.
KIND_DATA = "d"
KIND_MONITORING = "m"
KIND_DATA_ROWS = "D"
KIND_MONITORING_ROWS = "M"

# Refuse (-1) while ClickHouse is known down, refuse (-2) past the backlog cap, else append and note the time.
_APPEND_SCRIPT = """
if redis.call('EXISTS', KEYS[2]) == 1 then return -1 end
if redis.call('XLEN', KEYS[1]) >= tonumber(ARGV[1]) then return -2 end
redis.call('XADD', KEYS[1], '*', 'k', ARGV[2], 't', ARGV[3], 'r', ARGV[4], 'b', ARGV[5])
redis.call('HSET', KEYS[3], ARGV[3], ARGV[6])
return 1
"""

_RELEASE_SCRIPT = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

_lock = threading.Lock()
_connections: dict[str, redis.Redis] = {}


class BufferUnavailable(RuntimeError):
    """The push cannot be accepted now (Redis down, ClickHouse down, backlog full); the view answers 503."""


def connection() -> redis.Redis:
    """A per-process client for settings.REDIS_URL (its pool is thread-safe), with short timeouts so that a dead
    Redis gives a quick 503 instead of a hung tank."""
    url = str(settings.REDIS_URL)
    with _lock:
        conn = _connections.get(url)
        if conn is None:
            conn = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=1, health_check_interval=30)
            _connections[url] = conn
    return conn


_scripts: dict[str, Any] = {}


def _append_script() -> Any:
    """The append script registered on this process's connection (EVALSHA: the script text is sent once)."""
    url = str(settings.REDIS_URL)
    script = _scripts.get(url)
    if script is None:
        script = connection().register_script(_APPEND_SCRIPT)
        _scripts[url] = script
    return script


def _max_entries() -> int:
    return int(getattr(settings, "TANKODROM_TANK_BUFFER_MAX_ENTRIES", 500_000))


def append(kind: str, test_id: int, body: bytes, received_at_us: int | None = None) -> None:
    """Append one accepted push to the stream; raise BufferUnavailable if it is refused."""
    now_us = received_at_us if received_at_us is not None else time.time_ns() // 1000
    script = _append_script()
    try:
        result = script(
            keys=[STREAM_KEY, CLICKHOUSE_DOWN_KEY, LAST_PUSH_KEY],
            args=[_max_entries(), kind, test_id, now_us, body, now_us // 1_000_000],
        )
    except redis.RedisError as exc:
        raise BufferUnavailable(f"the ingest buffer (Redis) is unavailable: {exc}") from exc
    if result == -1:
        raise BufferUnavailable("ClickHouse is unavailable; retry later")
    if result == -2:
        raise BufferUnavailable("the ingest buffer is full; retry later")


def mark_clickhouse_down(ttl_ms: int) -> None:
    connection().set(CLICKHOUSE_DOWN_KEY, b"1", px=ttl_ms)


def mark_clickhouse_up() -> None:
    connection().delete(CLICKHOUSE_DOWN_KEY)


def clickhouse_marked_down() -> bool:
    return bool(connection().exists(CLICKHOUSE_DOWN_KEY))


@dataclass(frozen=True)
class Entry:
    entry_id: bytes
    kind: str
    test_id: int
    received_at_us: int
    body: bytes


def read_batch(count: int) -> tuple[list[Entry], list[bytes]]:
    """The oldest `count` entries, and ids of malformed ones (to move to the dead letters)."""
    raw: Any = connection().xrange(STREAM_KEY, "-", "+", count=count)
    entries: list[Entry] = []
    malformed: list[bytes] = []
    for entry_id, fields in raw:
        try:
            entries.append(
                Entry(
                    entry_id=entry_id,
                    kind=fields[b"k"].decode(),
                    test_id=int(fields[b"t"]),
                    received_at_us=int(fields[b"r"]),
                    body=fields[b"b"],
                )
            )
        except (KeyError, ValueError):
            malformed.append(entry_id)
    return entries, malformed


def move_to_dead_letters(entry: Entry, reason: str) -> None:
    conn = connection()
    pipe = conn.pipeline(transaction=True)
    pipe.xadd(
        DEAD_LETTER_KEY,
        {"k": entry.kind, "t": entry.test_id, "r": entry.received_at_us, "b": entry.body, "why": reason[:500]},
    )
    pipe.xdel(STREAM_KEY, entry.entry_id)
    pipe.execute()


def delete(entry_ids: list[bytes]) -> None:
    if not entry_ids:
        return
    conn = connection()
    # XDEL takes any number of ids; chunk to keep each command small.
    for start in range(0, len(entry_ids), 10_000):
        conn.xdel(STREAM_KEY, *entry_ids[start : start + 10_000])


def backlog() -> int:
    return int(connection().xlen(STREAM_KEY))


def pending_test_ids(scan_limit: int = 100_000) -> set[int]:
    """Tests with entries still waiting in the buffer (the silence closer leaves them open until flushed)."""
    raw: Any = connection().xrange(STREAM_KEY, "-", "+", count=scan_limit)
    return {int(fields[b"t"]) for _id, fields in raw if fields.get(b"t", b"").isdigit()}


def last_push_times() -> dict[int, int]:
    raw: Any = connection().hgetall(LAST_PUSH_KEY)
    return {int(k): int(v) for k, v in raw.items()}


def forget_last_push(test_id: int) -> None:
    connection().hdel(LAST_PUSH_KEY, str(test_id))


def acquire_flush_lock(ttl_ms: int) -> str | None:
    token = f"{time.time_ns()}-{threading.get_ident()}"
    ok: Any = connection().set(FLUSH_LOCK_KEY, token, nx=True, px=ttl_ms)
    return token if ok else None


def release_flush_lock(token: str) -> None:
    connection().eval(_RELEASE_SCRIPT, 1, FLUSH_LOCK_KEY, token)
