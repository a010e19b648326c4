"""Health of the four dependencies: ClickHouse, PostgreSQL, Redis and a Celery worker."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import redis
from django.conf import settings
from django.db import connection

from backend.celery_app import app
from backend.clickhouse import client as ch


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str


def check_clickhouse() -> Check:
    try:
        return Check("clickhouse", True, f"version {ch.ping()}")
    except Exception as exc:
        return Check("clickhouse", False, str(exc))


def check_postgres() -> Check:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT version()")
            row = cursor.fetchone()
        return Check("postgres", True, str(row[0]).split(",")[0] if row else "")
    except Exception as exc:
        connection.close()
        return Check("postgres", False, str(exc).strip())


def redis_client() -> redis.Redis:
    return redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=2, socket_timeout=2)


def check_redis() -> Check:
    try:
        info = redis_client().info("server")
        return Check("redis", True, f"version {info.get('redis_version', '?')}")
    except Exception as exc:
        return Check("redis", False, str(exc))


def check_celery() -> Check:
    try:
        replies = app.control.ping(timeout=1.0)
    except Exception as exc:
        return Check("celery", False, str(exc))
    if not replies:
        return Check("celery", False, "no worker answered a ping within 1 s")
    return Check("celery", True, f"{len(replies)} worker(s): " + ", ".join(sorted(k for r in replies for k in r)))


def run_all() -> list[Check]:
    return [check_clickhouse(), check_postgres(), check_redis(), check_celery()]


# The shallow check: the last full check, refreshed in the background once it is FRESH_S old. A poll costs a lock
# and a clock read; the first poll of a process waits for one check, since there is nothing to answer with yet.
FRESH_S = 5.0
FRESH_DEGRADED_S = 2.0  # a failing check is retried sooner, so that recovery (a start-up) is seen soon
_state_lock = threading.Lock()
_last: list[tuple[float, list[Check]]] = []  # [(monotonic time of the check, checks)], at most one entry
_refreshing = threading.Event()


def _refresh() -> None:
    try:
        _refresh_in_this_thread()
    finally:
        connection.close()  # this thread's own PostgreSQL connection (Django's are per thread)


def recent() -> tuple[list[Check], float]:
    """The last full check and its age in seconds; starts a refresh when it is older than FRESH_S."""
    with _state_lock:
        last = _last[0] if _last else None
        fresh_s = FRESH_S if last is not None and all(c.ok for c in last[1]) else FRESH_DEGRADED_S
        stale = last is None or time.monotonic() - last[0] >= fresh_s
        start = stale and not _refreshing.is_set()
        if start:
            _refreshing.set()
    if last is None:
        if start:
            _refresh_in_this_thread()
        else:
            _wait_for_first()
        with _state_lock:
            last = _last[0]
    elif start:
        threading.Thread(target=_refresh, name="healthz-refresh", daemon=True).start()
    return last[1], time.monotonic() - last[0]


def _refresh_in_this_thread() -> None:
    try:
        checks = run_all()
        with _state_lock:
            _last[:] = [(time.monotonic(), checks)]
    finally:
        _refreshing.clear()


def _wait_for_first() -> None:
    deadline = time.monotonic() + 10.0
    while not _last and time.monotonic() < deadline:
        time.sleep(0.01)
    if not _last:
        _refresh_in_this_thread()


def forget() -> None:
    """Drop the remembered check (tests)."""
    with _state_lock:
        _last.clear()
