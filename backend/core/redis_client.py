"""The process's Redis client for settings.REDIS_URL: the tank stream's buffer, the live channel and the
semaphores all talk through it, so it lives below them."""

from __future__ import annotations

import threading

import redis
from django.conf import settings

_lock = threading.Lock()
_connections: dict[str, redis.Redis] = {}


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
