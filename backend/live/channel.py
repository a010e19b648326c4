"""The online pages' push channel in Redis: per test, numbered events, a short history to resume from, and one
PUBLISH per event that every process's subscriber (hub.py) fans out to its watchers.

An event is framed once, here, as the bytes Server-Sent Events put on the wire (`id`, `event`, `data`), so a
watcher costs a socket write, not an encoding. Its id is the test's own counter (INCR), so ids only grow and a
reconnect names the last one it saw (Last-Event-ID): the history (a sorted set by id, the newest HISTORY_EVENTS,
kept HISTORY_TTL_S after the last event) gives what came after it.

A test is "watched" while a process' subscriber (hub.py) follows it and WATCHED_TTL_S after (`watched_key`, which
the hubs keep set): the push path announces its seconds only then (publish.py), so that a test nobody looks at costs
its pushes no figures and no events. The grace is the history's span: whoever saw an event of the test within it
resumes without a gap; a page away longer, or a new one, starts from the newest event.

Redis' channels are shared by all its databases: the channel's name carries the database number, so two
installations (or test runs) on one Redis never hear each other.
"""

from __future__ import annotations

import hashlib
import logging
from typing import Any

import orjson
import redis

from backend.core import redis_client

log = logging.getLogger(__name__)

HISTORY_EVENTS = 300  # five minutes of seconds: a watcher away longer reloads the page's answers instead
HISTORY_TTL_S = 3600
WATCHED_TTL_S = HISTORY_EVENTS  # (seconds) a watcher away this long has lost its place in the history anyway

SECOND = "second"  # a second pushed: its live figures (publish.py)
STORED = "stored"  # seconds stored: the charts and tables may be asked again
STATUS = "status"  # the test's status changed (a stop asked, the test closed): ask its metadata again

# KEYS: counter, history; ARGV: event name, JSON data, history size, TTL, channel. Returns the id.
_PUBLISH_SCRIPT = """
local id = redis.call('INCR', KEYS[1])
local frame = 'id: ' .. id .. '\\nevent: ' .. ARGV[1] .. '\\ndata: ' .. ARGV[2] .. '\\n\\n'
redis.call('ZADD', KEYS[2], id, frame)
redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -tonumber(ARGV[3]) - 1)
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[4])
redis.call('PUBLISH', ARGV[5], frame)
return id
"""
_PUBLISH_SHA = hashlib.sha1(_PUBLISH_SCRIPT.encode()).hexdigest()


def _database(conn: redis.Redis) -> int:
    return int(conn.connection_pool.connection_kwargs.get("db", 0) or 0)


def channel_prefix(database: int) -> str:
    return f"tankodrom:live:{database}:"


def channel_name(database: int, test_id: int) -> str:
    return f"{channel_prefix(database)}{test_id}"


def counter_key(test_id: int) -> str:
    return f"live:seq:{test_id}"


def history_key(test_id: int) -> str:
    return f"live:history:{test_id}"


def watched_key(test_id: int) -> str:
    return f"live:watched:{test_id}"


def frame_id(frame: bytes) -> int:
    """The id of a framed event (its first line, `id: N`)."""
    return int(frame[4 : frame.index(b"\n")])


def publish(test_id: int, event: str, data: dict[str, Any]) -> int | None:
    """Publish one event of the test to its watchers in every process; its id, or None when Redis is away (the pages
    then catch up by polling: the channel is never the only way to the data)."""
    conn = redis_client.connection()
    payload = orjson.dumps(data)
    keys = (counter_key(test_id), history_key(test_id))
    args = (event, payload, HISTORY_EVENTS, HISTORY_TTL_S, channel_name(_database(conn), test_id))
    try:
        try:
            return int(conn.evalsha(_PUBLISH_SHA, len(keys), *keys, *args))
        except redis.exceptions.NoScriptError:
            return int(conn.eval(_PUBLISH_SCRIPT, len(keys), *keys, *args))
    except redis.RedisError as exc:
        log.warning("live event of test %s not published: %s", test_id, exc)
        return None


def history_after(conn: Any, test_id: int, after_id: int) -> Any:
    """The framed events of the test with an id above `after_id`, oldest first (awaitable on an asyncio client)."""
    return conn.zrangebyscore(history_key(test_id), f"({after_id}", "+inf")


def last_id(test_id: int) -> int:
    """The id of the test's newest event (0 when none)."""
    value = redis_client.connection().get(counter_key(test_id))
    return int(value) if value else 0
