"""Health of the four dependencies: ClickHouse, PostgreSQL, Redis and a Celery worker."""

from __future__ import annotations

from dataclasses import dataclass

import redis
from django.conf import settings
from django.db import connection

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
    from backend.celery_app import app

    try:
        replies = app.control.ping(timeout=1.0)
    except Exception as exc:
        return Check("celery", False, str(exc))
    if not replies:
        return Check("celery", False, "no worker answered a ping within 1 s")
    return Check("celery", True, f"{len(replies)} worker(s): " + ", ".join(sorted(k for r in replies for k in r)))


def run_all() -> list[Check]:
    return [check_clickhouse(), check_postgres(), check_redis(), check_celery()]
