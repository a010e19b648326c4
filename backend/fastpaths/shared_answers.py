"""Answers to anonymous readers of a finished public test, served from this process's memory.

A link posted in a chat is opened by a couple of hundred people within seconds, anonymously, each fetching the same
few report answers. Django's whole cycle (sessions, authentication, the ORM's lookup of the test, DRF) costs far
more than the answer itself, and a small server falls behind such a burst (bench/report_burst/README.md). This
middleware, early in the chain, answers such a request with the bytes the view produced for an earlier anonymous
reader, after checking in one indexed PostgreSQL read that the test is still the same finished version and still
readable by anyone: nothing is served that the view would not serve now, and a test made private or deleted stops
being served at its next request. Everything else (signed-in users, tokens, online tests, other URLs) goes on to
the views as before.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.http.response import HttpResponseBase

from backend.loadtests.models import Test
from backend.projects.models import Visibility
from backend.reports import cache
from backend.reports.source import data_version_from

# The report answers that reports.cache.conditional versions (one test each).
SHARED_PATH = re.compile(r"^/api/v1/tests/(\d{1,18})/(?:summary|report|charts/[a-z_]{1,40}|tables|monitoring|config)$")
_VERSION_SQL = (
    "SELECT status, active_upload_id, has_stream, first_ts, last_ts, last_push_at, finished_at, created_at, "
    f"visibility, raw_expired_at, aggregates_expired_at FROM {Test._meta.db_table} WHERE id = %s"
)


def _anonymous(request: HttpRequest) -> bool:
    return (
        "HTTP_AUTHORIZATION" not in request.META
        and settings.SESSION_COOKIE_NAME not in request.COOKIES
        and "api_token" not in request.GET
    )


def _current_etag(test_id: int, url: str) -> str | None:
    """The ETag the view would give `url` now, when anyone may read the test; else None."""
    if getattr(settings, "TANKODROM_PRIVATE_INSTANCE", False):
        return None
    with connection.cursor() as cursor:
        cursor.execute(_VERSION_SQL, [test_id])
        row = cursor.fetchone()
    if row is None or row[8] != Visibility.PUBLIC:  # gone, or not for anyone with the link
        return None
    status, upload_id, has_stream, first_ts, last_ts, last_push_at, finished_at, created_at, _visibility = row[:9]
    raw_expired_at, aggregates_expired_at = row[9:]
    refreshed = cache.generation(test_id)
    data = data_version_from(
        test_id,
        upload_id,
        has_stream,
        first_ts,
        last_ts,
        last_push_at,
        finished_at,
        raw_expired_at,
        aggregates_expired_at,
    )
    version = cache.version_from(data, status, created_at, refreshed)
    return cache.etag_of_versions([version], url)


class SharedAnswersMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        match = SHARED_PATH.match(request.path) if request.method in ("GET", "HEAD") else None
        if match is None or not _anonymous(request):
            return self.get_response(request)
        url = request.get_full_path()
        stored = cache.rendered.get_shared(url)
        if stored is not None:
            etag, body, content_type, control = stored
            if _current_etag(int(match.group(1)), url) == etag:
                return _answer(request, etag, body, content_type, control)
        response = self.get_response(request)
        self._keep(url, response)
        return response

    @staticmethod
    def _keep(url: str, response: Any) -> None:
        etag = response.get("ETag") if response.status_code == 200 else None
        if etag and response.get("Cache-Control", "").startswith("public") and isinstance(response, HttpResponse):
            content_type = response.get("Content-Type", "application/octet-stream")
            cache.rendered.put_shared(url, etag, response.content, content_type, response["Cache-Control"])


def _answer(request: HttpRequest, etag: str, body: bytes, content_type: str, control: str) -> HttpResponseBase:
    response: HttpResponseBase
    if cache.matches(request.META.get("HTTP_IF_NONE_MATCH", ""), etag):
        response = HttpResponseNotModified()
    else:
        response = HttpResponse(body, content_type=content_type)
    response["ETag"] = etag
    response["Cache-Control"] = control
    return response
