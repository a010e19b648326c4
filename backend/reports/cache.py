"""Cache of the default view (whole test, overall, default levels, automatic resolution) in Redis.

Post-processing (tasks.postprocess_test) fills it when a test closes or an upload ends; a request for the
default view of a finished test then costs one Redis read. The key carries what changes the figures of a
finished test (its active upload and when it finished), so a new upload or a re-close never serves stale
figures. Online tests are never cached: their seconds keep arriving. Other windows are computed on demand.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.core.cache import cache

from backend.loadtests.models import Test, TestStatus
from backend.reports.window import Window

TTL_S = 30 * 24 * 3600
PREFIX = "reports:v1"


def key_for(test: Test, name: str, window: Window) -> str:
    finished = int(test.finished_at.timestamp()) if test.finished_at else 0
    return (
        f"{PREFIX}:{test.pk}:{test.active_upload_id or 0}:{int(test.has_stream)}:{finished}:{name}:{window.cache_key()}"
    )


def cacheable(test: Test, window: Window) -> bool:
    return test.status != TestStatus.ONLINE and window.is_default


def cached(test: Test, name: str, window: Window, compute: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    if not cacheable(test, window):
        return compute()
    key = key_for(test, name, window)
    hit: dict[str, Any] | None = cache.get(key)
    if hit is not None:
        return hit
    value = compute()
    cache.set(key, value, TTL_S)
    return value


def store(test: Test, name: str, window: Window, value: dict[str, Any]) -> None:
    """Overwrite an entry (post-processing recomputes even when a value is there: it is the refresh)."""
    cache.set(key_for(test, name, window), value, TTL_S)
