"""Answers to anonymous readers of a finished public test, served from this process's memory.

A link posted in a chat is opened by a couple of hundred people within seconds, anonymously, each fetching the same
few report answers. Django's whole cycle (sessions, authentication, the ORM's lookup of the test, DRF) costs far
more than the answer itself, and a small server falls behind such a burst (bench/report_burst/README.md). This
middleware, early in the chain, answers such a request with the bytes the view produced for an earlier anonymous
reader, after checking in one indexed PostgreSQL read that the test is still the same finished version and still
readable by anyone (permissions.can_read for an anonymous user decides it, as it does for the views):
nothing is served that the view would not serve now, and a test made private or deleted stops being served at its
next request. Everything else (signed-in users, tokens, online tests, other URLs) goes on to the views as before.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.http.response import HttpResponseBase

from backend.loadtests.models import Test
from backend.loadtests.permissions import can_read
from backend.reports import cache, source

# The report answers that reports.cache.conditional versions (one test each).
SHARED_PATH = re.compile(r"^/api/v1/tests/(\d{1,18})/(?:summary|report|charts/[a-z_]{1,40}|tables|monitoring|config)$")
# What access and the version of a test's answers are decided from (permissions.can_read; reports.source.data_version
# and the status and creation time reports.cache.version_from adds), in the model's field order (Model.from_db).
_DATA_FIELDS = tuple(inspect.signature(source.data_version_from).parameters)[1:]  # after pk: Test's fields, by name
_READ = {"id", "visibility", "project_id", "owner_id", "status", "created_at", *_DATA_FIELDS}
_FIELDS = [field for field in Test._meta.concrete_fields if field.attname in _READ]
_NAMES = [field.attname for field in _FIELDS]
_VERSION_SQL = (
    f"SELECT {', '.join(connection.ops.quote_name(str(field.column)) for field in _FIELDS)} "
    f"FROM {connection.ops.quote_name(Test._meta.db_table)} WHERE id = %s"
)
_ANONYMOUS = AnonymousUser()


def _anonymous(request: HttpRequest) -> bool:
    return (
        "HTTP_AUTHORIZATION" not in request.META
        and settings.SESSION_COOKIE_NAME not in request.COOKIES
        and "api_token" not in request.GET
    )


def _current_etag(test_id: int, url: str) -> str | None:
    """The ETag the view would give `url` now, when anyone may read the test; else None."""
    # One indexed read of the columns by name, made a Test by the ORM's own row loader (the ORM's query building
    # would double this middleware's cost), then the views' own rules on it.
    with connection.cursor() as cursor:
        cursor.execute(_VERSION_SQL, [test_id])
        values = cursor.fetchone()
    if values is None:
        return None  # gone
    # (A field a rule reads that is not in _READ would be loaded by a query of its own: slower, still right.)
    test = Test.from_db(connection.alias, _NAMES, values)
    if not can_read(_ANONYMOUS, test):
        return None  # not for anyone with the link
    version = cache.version_from(source.data_version(test), test.status, test.created_at, cache.generation(test_id))
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
