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

import hashlib
import threading
import time
from dataclasses import dataclass
from typing import Any

import redis
from django.conf import settings
from redis.connection import SSLConnection, parse_url

STREAM_KEY = "tankapi:buffer"
# Entries the flusher could not read or ClickHouse refused (should never happen: the door validated them) are moved
# here with the reason, so one poisoned entry cannot block the stream, and nothing accepted is silently dropped.
# `manage.py tank_dead_letters` lists them, puts them back into the stream, or deletes them.
DEAD_LETTER_KEY = "tankapi:buffer:dead"
CLICKHOUSE_DOWN_KEY = "tankapi:clickhouse_down"
# Set of the SHA-256 of revoked API tokens (revocation.py keeps it): a push carrying one is refused by the append
# itself, so a revocation takes effect at the next push of every process, whatever their caches hold.
REVOKED_TOKENS_KEY = "tankapi:revoked_tokens"
# Set of the ids of online tests whose stop was asked from the web (stop.py): their pushes are answered 410.
STOPPED_TESTS_KEY = "tankapi:stopped_tests"
LAST_PUSH_KEY = "tankapi:last_push"  # hash test_id -> unix s of the last accepted push (silence detection)
FLUSH_LOCK_KEY = "tankapi:flush_lock"

# What an entry holds: the rows the push path validated ("D": analytics.schema.seconds rows, "M": [ts, host, metric,
# value] lists), so the flusher only decodes JSON. Any other kind is moved to the dead letters.
KIND_DATA_ROWS = "D"
KIND_MONITORING_ROWS = "M"

# Refuse (-3) a revoked API token, (-4) a test stopped from the web, (-1) while ClickHouse is known down, (-2) past
# the backlog cap, else append and note the time. The two refusals that concern the push itself come first, and cost
# the push nothing more than the round trip it makes anyway.
_APPEND_SCRIPT = """
if ARGV[7] ~= '' and redis.call('SISMEMBER', KEYS[4], ARGV[7]) == 1 then return -3 end
if redis.call('SISMEMBER', KEYS[5], ARGV[3]) == 1 then return -4 end
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


class TokenRevoked(Exception):
    """The push's API token was revoked: the view answers 401."""


class TestStopped(Exception):
    """The push's test was stopped from the web: the view answers 410 (the tank ends its upload)."""

    __test__ = False  # not a pytest test class


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


def _max_entries() -> int:
    return int(settings.TANKODROM_TANK_BUFFER_MAX_ENTRIES)


_APPEND_SHA = hashlib.sha1(_APPEND_SCRIPT.encode()).hexdigest().encode()
_KEY_NAMES = (STREAM_KEY, CLICKHOUSE_DOWN_KEY, LAST_PUSH_KEY, REVOKED_TOKENS_KEY, STOPPED_TESTS_KEY)
_KEYS = tuple(key.encode() for key in _KEY_NAMES)
_KEY_COUNT = b"%d" % len(_KEYS)


def resp(*args: bytes) -> bytes:
    """One command in Redis's protocol (RESP): an array of bulk strings."""
    parts = [b"*%d\r\n" % len(args)]
    for arg in args:
        parts += (b"$%d\r\n" % len(arg), arg, b"\r\n")
    return b"".join(parts)


def redis_options() -> dict[str, Any]:
    """settings.REDIS_URL parsed by redis-py (host, port or path, db, username, password, connection_class)."""
    url = str(settings.REDIS_URL)
    options = _url_options.get(url)
    if options is None:
        # redis-py's own URL parser, so REDIS_URL means the same to every client of it.
        options = _url_options[url] = parse_url(url)  # type: ignore[no-untyped-call]
    return options


_url_options: dict[str, dict[str, Any]] = {}


def speaks_plain_resp() -> bool:
    """Whether REDIS_URL is a plain TCP or Unix socket (the event loop's appender speaks RESP on it itself); TLS
    is left to redis-py."""
    return redis_options().get("connection_class") is not SSLConnection


def setup_commands(options: dict[str, Any]) -> list[bytes]:
    """What a new append connection sends first (each answered +OK): AUTH and SELECT, as REDIS_URL asks."""
    commands = []
    if options.get("password"):
        user = options.get("username")
        auth = (user.encode(), options["password"].encode()) if user else (options["password"].encode(),)
        commands.append(resp(b"AUTH", *auth))
    if options.get("db"):
        commands.append(resp(b"SELECT", b"%d" % int(options["db"])))
    return commands


@dataclass(frozen=True, slots=True)
class AppendCommand:
    """One append: the append script's keys and arguments, what both appenders send (this module's append, and
    buffer_async.AsyncAppender on an event loop), as EVALSHA; as EVAL (the script's text with them) only when Redis
    answers NOSCRIPT, which is rare enough not to build it for every push."""

    keys_and_args: tuple[bytes, ...]

    @classmethod
    def of(
        cls, kind: str, test_id: int, body: bytes, received_at_us: int | None = None, token_hash: str = ""
    ) -> AppendCommand:
        now_us = received_at_us if received_at_us is not None else time.time_ns() // 1000
        args = (
            b"%d" % _max_entries(),
            kind.encode(),
            b"%d" % test_id,
            b"%d" % now_us,
            body,
            b"%d" % (now_us // 1_000_000),
            token_hash.encode(),
        )
        return cls((*_KEYS, *args))

    def evalsha(self) -> bytes:
        return resp(b"EVALSHA", _APPEND_SHA, _KEY_COUNT, *self.keys_and_args)

    def eval(self) -> bytes:
        return resp(b"EVAL", _APPEND_SCRIPT.encode(), _KEY_COUNT, *self.keys_and_args)


def append(kind: str, test_id: int, body: bytes, received_at_us: int | None = None, token_hash: str = "") -> None:
    """Append one accepted push to the stream, blocking (redis-py); raise BufferUnavailable if it is refused
    (TokenRevoked, TestStopped when the push itself is refused). `token_hash`: the push's API token, hashed, or ''
    when it sent none."""
    command = AppendCommand.of(kind, test_id, body, received_at_us, token_hash)
    conn = connection()
    reply: Any
    try:
        try:
            reply = conn.evalsha(_APPEND_SHA.decode(), len(_KEYS), *command.keys_and_args)
        except redis.exceptions.NoScriptError:
            # First append since Redis started: EVAL runs the script and caches it for the next EVALSHA.
            reply = conn.eval(_APPEND_SCRIPT, len(_KEYS), *command.keys_and_args)
    except redis.RedisError as exc:
        # Down, or an error reply (out of memory, read-only replica, a failed persistence write...): not stored.
        raise BufferUnavailable(f"the ingest buffer (Redis) is unavailable: {exc}") from exc
    check_append_result(b":%d" % reply)


def check_append_result(reply: bytes) -> None:
    """Raise what the append script's reply (a RESP line, without its CRLF) refuses; nothing for an append."""
    if reply.startswith(b"-"):
        # An error reply (out of memory, read-only replica, a failed persistence write...): not stored, retry later.
        raise BufferUnavailable(f"the ingest buffer (Redis) is unavailable: {reply[1:].decode(errors='replace')}")
    if reply == b":-3":
        raise TokenRevoked("unknown or revoked api_token")
    if reply == b":-4":
        raise TestStopped("the test was stopped from the web")
    if reply == b":-1":
        raise BufferUnavailable("ClickHouse is unavailable; retry later")
    if reply == b":-2":
        raise BufferUnavailable("the ingest buffer is full; retry later")
    if reply != b":1":
        raise BufferUnavailable(f"the ingest buffer (Redis) answered {reply[:100]!r}")


def mark_revoked(token_hashes: list[str]) -> None:
    if token_hashes:
        connection().sadd(REVOKED_TOKENS_KEY, *token_hashes)


def unmark_revoked(token_hashes: list[str]) -> None:
    if token_hashes:
        connection().srem(REVOKED_TOKENS_KEY, *token_hashes)


def mark_stopped(test_id: int) -> None:
    connection().sadd(STOPPED_TESTS_KEY, test_id)


def unmark_stopped(test_id: int) -> None:
    connection().srem(STOPPED_TESTS_KEY, test_id)


def mark_clickhouse_down(ttl_ms: int) -> None:
    connection().set(CLICKHOUSE_DOWN_KEY, b"1", px=ttl_ms)


def mark_clickhouse_up() -> None:
    connection().delete(CLICKHOUSE_DOWN_KEY)


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


@dataclass(frozen=True)
class DeadLetter:
    entry_id: str
    kind: str
    test_id: int
    received_at_us: int
    body: bytes
    reason: str


def dead_letters(count: int = 1000) -> list[DeadLetter]:
    """The oldest `count` dead letters."""
    raw: Any = connection().xrange(DEAD_LETTER_KEY, "-", "+", count=count)
    return [
        DeadLetter(
            entry_id=entry_id.decode(),
            kind=fields.get(b"k", b"").decode(errors="replace"),
            test_id=int(fields.get(b"t", b"0") or 0),
            received_at_us=int(fields.get(b"r", b"0") or 0),
            body=fields.get(b"b", b""),
            reason=fields.get(b"why", b"").decode(errors="replace"),
        )
        for entry_id, fields in raw
    ]


def requeue_dead_letter(letter: DeadLetter) -> None:
    """Put a dead letter back at the end of the stream (after a fix), as it was received."""
    pipe = connection().pipeline(transaction=True)
    pipe.xadd(STREAM_KEY, {"k": letter.kind, "t": letter.test_id, "r": letter.received_at_us, "b": letter.body})
    pipe.xdel(DEAD_LETTER_KEY, letter.entry_id)
    pipe.execute()


def delete_dead_letter(entry_id: str) -> int:
    return int(connection().xdel(DEAD_LETTER_KEY, entry_id))


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
