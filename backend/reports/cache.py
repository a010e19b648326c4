"""Cache of the default view (whole test, overall, default levels, automatic resolution) in Redis.

Post-processing (tasks.postprocess_test) fills it when a test closes or an upload ends; a request for the
default view of a finished test then costs one Redis read. The key carries what changes the figures of a
finished test (its active upload and when it finished), so a new upload or a re-close never serves stale
figures. Online tests are never cached: their seconds keep arriving. Other windows are computed on demand.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from django.core.cache import cache
from django.http import HttpResponseNotModified
from django.http.response import HttpResponseBase

from backend.loadtests.models import Test, TestStatus
from backend.loadtests.permissions import can_read
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


# ── HTTP validators ──────────────────────────────────────────────────────────────────────────────────────────
# A finished test's report answers change only with what key_for names (a new upload, a re-close): those make its
# version, and the version with the URL makes the ETag. A request that presents it gets a 304 before any figure is
# read. Online and processing tests have no version (their data keeps arriving): they are answered in full, and
# caches must revalidate. Cache-Control lets a proxy keep an answer of a test that anyone may read; a test only
# some may read is `private` (a browser's own cache only).
RESPONSE_VERSION = 1  # bump when the shape of the answers changes, so that no cache keeps an old one
MAX_AGE_S = 60
FINAL_STATUSES = frozenset({TestStatus.READY, TestStatus.FAILED})


def version_of(test: Test) -> str | None:
    if test.status not in FINAL_STATUSES:
        return None
    finished = int(test.finished_at.timestamp()) if test.finished_at else 0
    return (
        f"{RESPONSE_VERSION}.{test.pk}.{test.status}.{test.active_upload_id or 0}.{int(test.has_stream)}."
        f"{finished}.{test.first_ts}.{test.last_ts}"
    )


def etag_for(tests: list[Test], url: str) -> str | None:
    """The ETag of the answer at `url` (path and query) about these tests, or None when one of them may change."""
    versions = [version_of(t) for t in tests]
    if any(v is None for v in versions):
        return None
    digest = hashlib.blake2b(f"{url}|{'|'.join(v or '' for v in versions)}".encode(), digest_size=12).hexdigest()
    return f'"{digest}"'


def cache_control(tests: list[Test], etag: str | None) -> str:
    if etag is None:
        return "no-cache"
    scope = "public" if all(can_read(None, t) for t in tests) else "private"
    return f"{scope}, max-age={MAX_AGE_S}"


def matches(if_none_match: str, etag: str) -> bool:
    """RFC 9110 If-None-Match: a list of (weak or strong) tags, or *."""
    if if_none_match.strip() == "*":
        return True
    return any(tag.strip().removeprefix("W/") == etag for tag in if_none_match.split(","))


def conditional(request: Any, tests: list[Test], build: Callable[[], HttpResponseBase]) -> HttpResponseBase:
    """The answer `build` makes, with its validators; 304 without building it when the client has it already."""
    etag = etag_for(tests, request.get_full_path())
    response: HttpResponseBase
    if etag is not None and matches(request.META.get("HTTP_IF_NONE_MATCH", ""), etag):
        response = HttpResponseNotModified()
    else:
        response = build()
    if response.status_code in (200, 304):
        if etag is not None:
            response["ETag"] = etag
        response["Cache-Control"] = cache_control(tests, etag)
    return response
