"""Celery task that computes a comparison and caches it (queue `analysis`, so ingestion never waits behind it).

Idempotent: it takes test ids and plain parameters, and writes the same cache entry however often it runs.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task
from django.core.cache import cache

from backend.clickhouse.client import ClickHouseUnavailable
from backend.compare import service
from backend.loadtests.models import Test

log = logging.getLogger(__name__)

# Failures are cached briefly so that waiting views see them, and a retry soon after recomputes.
ERROR_TTL_S = 30
PENDING_TTL_S = 300


def pending_key(key: str) -> str:
    return f"{key}:pending"


@shared_task(name="backend.compare.tasks.compute_comparison", ignore_result=True)
def compute_comparison(params: dict[str, Any]) -> None:
    """Compute the comparison of `params["test_ids"]` and store it under its cache key."""
    parsed = service.CompareParams.from_dict(params)
    by_id = Test.objects.in_bulk(list(parsed.test_ids))
    tests = [by_id[i] for i in parsed.test_ids if i in by_id]
    if len(tests) != len(parsed.test_ids):
        log.info("compare %s: a test was deleted before the comparison ran", parsed.test_ids)
        return
    key = service.cache_key(parsed, tests)
    try:
        result = service.build(parsed, tests)
    except Exception as exc:
        status = 503 if isinstance(exc, ClickHouseUnavailable) else 500
        cache.set(key, {"__error__": str(exc), "status": status}, ERROR_TTL_S)
        raise
    finally:
        cache.delete(pending_key(key))
    cache.set(key, result, service.RESULT_TTL_S)
