"""A counting semaphore shared by every worker (Redis): at most `limit` holders of a key at once.

Holders are members of a sorted set scored by when they took it; a holder that died (a killed worker) stops counting
once its lease (`lease_s`) is over, so a crash never blocks a key for good. Taking a place is one Lua script, so two
workers racing for the last place never both get it.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from backend.core.redis_client import connection

PREFIX = "tankodrom:semaphore:"


# Atomic on the server: forget holders whose lease is over, then take a place if one is free.
_ACQUIRE = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1] - ARGV[2])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  return 0
end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
redis.call('EXPIRE', KEYS[1], math.ceil(tonumber(ARGV[2])) + 1)
return 1
"""


def acquire(key: str, limit: int, lease_s: float) -> str | None:
    """A token when a place was free (give it back with `release`), else None."""
    token = uuid.uuid4().hex
    taken = connection().eval(_ACQUIRE, 1, PREFIX + key, repr(time.time()), repr(float(lease_s)), limit, token)
    return token if int(taken) else None


def release(key: str, token: str) -> None:
    connection().zrem(PREFIX + key, token)


@contextmanager
def held(key: str, limit: int, lease_s: float) -> Iterator[bool]:
    """`with held(...) as got:` — got is False when all places are taken (nothing to release then)."""
    token = acquire(key, limit, lease_s)
    try:
        yield token is not None
    finally:
        if token is not None:
            release(key, token)
