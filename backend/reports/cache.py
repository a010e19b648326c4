"""Cache of the default view (whole test, overall, default levels, automatic resolution) in Redis.

Post-processing (tasks.postprocess_test) fills it when a test closes or an upload ends; a request for the
default view of a finished test then costs one Redis read. The key carries the test's data version
(backend/reports/source.py), so a new upload or a re-close never serves stale figures. Online tests are never
cached: their seconds keep arriving. Other windows are computed on demand.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.core.cache import cache
from django.http import HttpResponse, HttpResponseNotModified
from django.http.response import HttpResponseBase
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response

from backend.loadtests.models import Test, TestStatus
from backend.loadtests.permissions import can_read
from backend.reports.source import cache_key, data_version
from backend.reports.window import Window

TTL_S = 30 * 24 * 3600
PREFIX = "reports:v3"  # v3: summaries carry `outcomes`, tables their codes' classes and shares


def key_for(test: Test, name: str, window: Window) -> str:
    return cache_key(f"{PREFIX}:{name}", [test], window.cache_key())


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
    # A refresh is a new version of the answers for validators and the rendered copies (below).
    cache.set(_generation_key(int(test.pk)), time.time_ns(), TTL_S)


def _generation_key(test_id: int) -> str:
    return f"{PREFIX}:generation:{test_id}"


def generation(test_id: int) -> int:
    """When post-processing last refreshed the test's cached answers (0: never)."""
    return int(cache.get(_generation_key(test_id)) or 0)


# ── HTTP validators ──────────────────────────────────────────────────────────────────────────────────────────
# A finished test's report answers change only with its data version (a new upload, a re-close) and a refresh of
# its cached figures: those make its version, and the version with the URL makes the ETag. A request that
# presents it gets a 304 before any figure is read. Online and processing tests have no version (their data keeps
# arriving): they are answered in full, and caches must revalidate. Cache-Control lets a proxy keep an answer of a
# test that anyone may read; a test only some may read is `private` (a browser's own cache only).
RESPONSE_VERSION = 1  # bump when the shape of the answers changes, so that no cache keeps an old one
MAX_AGE_S = 60
FINAL_STATUSES = frozenset({TestStatus.READY, TestStatus.FAILED})


def version_of(test: Test) -> str | None:
    return version_from(data_version(test), str(test.status), test.created_at, generation(int(test.pk)))


def version_from(data: str, status: str, created_at: datetime | None, refreshed: int) -> str | None:
    """What a finished test's answers depend on, as a string; None while they may still change: its data version,
    its status and when its cached figures were refreshed. The creation time makes it unique to the row (ids are
    reused by test databases, never in production)."""
    if status not in FINAL_STATUSES:
        return None
    created = created_at.timestamp() if created_at else 0
    return f"{RESPONSE_VERSION}.{data}.{status}.{created}.{refreshed}"


def etag_for(tests: list[Test], url: str) -> str | None:
    """The ETag of the answer at `url` (path and query) about these tests, or None when one of them may change."""
    return etag_of_versions([version_of(t) for t in tests], url)


def etag_of_versions(versions: list[str | None], url: str) -> str | None:
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


class _Rendered:
    """Rendered answers of finished tests, in this process: a burst of people opening one report gets the same bytes
    without the figures being read from Redis and encoded to JSON again for each of them. By ETag (any reader, after
    the view's access check), and by URL for the anonymous readers of public tests (backend/fastpaths/shared_answers.py,
    which checks the version itself). Bounded by entries and bytes; the least recently used go first."""

    def __init__(self, max_entries: int = 512, max_bytes: int = 64 * 1024 * 1024) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._items: OrderedDict[str, tuple[Any, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def _get(self, key: str) -> Any:
        with self._lock:
            hit = self._items.get(key)
            if hit is None:
                return None
            self._items.move_to_end(key)
            return hit[0]

    def _put(self, key: str, value: Any, size: int) -> None:
        if size > self.max_bytes // 8:
            return
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._bytes -= old[1]
            self._items[key] = (value, size)
            self._bytes += size
            while len(self._items) > self.max_entries or self._bytes > self.max_bytes:
                _, (_value, dropped) = self._items.popitem(last=False)
                self._bytes -= dropped

    def get(self, etag: str) -> tuple[bytes, str] | None:
        hit: tuple[bytes, str] | None = self._get(f"etag:{etag}")
        return hit

    def put(self, etag: str, body: bytes, content_type: str) -> None:
        self._put(f"etag:{etag}", (body, content_type), len(body))

    def get_shared(self, url: str) -> tuple[str, bytes, str, str] | None:
        hit: tuple[str, bytes, str, str] | None = self._get(f"url:{url}")
        return hit

    def put_shared(self, url: str, etag: str, body: bytes, content_type: str, control: str) -> None:
        self._put(f"url:{url}", (etag, body, content_type, control), len(body))

    def get_page(self, key: str) -> tuple[bytes, str, float] | None:
        hit: tuple[bytes, str, float] | None = self._get(f"page:{key}")
        return hit

    def put_page(self, key: str, body: bytes, etag: str, stored_at: float) -> None:
        self._put(f"page:{key}", (body, etag, stored_at), len(body))

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes = 0


rendered = _Rendered()


def conditional(request: Any, tests: list[Test], build: Callable[[], HttpResponseBase]) -> HttpResponseBase:
    """The answer `build` makes, with its validators; 304 without building it when the client has it already, and
    the bytes rendered before when this process answered the same URL of the same finished tests."""
    etag = etag_for(tests, request.get_full_path())
    response: HttpResponseBase
    hit = rendered.get(etag) if etag is not None else None
    if etag is not None and matches(request.META.get("HTTP_IF_NONE_MATCH", ""), etag):
        response = HttpResponseNotModified()
    elif hit is not None:
        response = HttpResponse(hit[0], content_type=hit[1])
    else:
        response = build()
        if etag is not None and response.status_code == 200:
            if isinstance(response, Response):  # DRF renders after the view returns: render here, as it would
                response = HttpResponse(JSONRenderer().render(response.data), content_type="application/json")
            if isinstance(response, HttpResponse):
                rendered.put(etag, response.content, response.get("Content-Type", "application/octet-stream"))
    if response.status_code in (200, 304):
        if etag is not None:
            response["ETag"] = etag
        response["Cache-Control"] = cache_control(tests, etag)
    return response
