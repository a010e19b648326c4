"""The report page of a finished test, as caches may share it.

The page carries the first screen's answers (first_screen.py), so it costs a dozen API answers to build. An
anonymous reader of a finished test that anyone may read gets the same page as every other anonymous reader: it is
built once per process and test version and kept PAGE_TTL_S seconds (a note, a renamed test or a new build shows
within that), answered with an ETag (304 when the browser has it) and `Cache-Control: public`, so that a proxy
(deploy/nginx) may keep it as long. Everyone else (signed in, a token, a test still moving) gets a page built for
them, `private` when signed in, never stored by a shared cache. Every page varies with the credentials.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.http.response import HttpResponseBase
from django.utils.cache import patch_vary_headers

from backend.loadtests.models import Test
from backend.loadtests.permissions import can_read
from backend.reports import cache

PAGE_TTL_S = 10
CREDENTIAL_HEADERS = ("Cookie", "Authorization")


def _shared_version(request: HttpRequest, test: Test) -> str | None:
    """What the shared page depends on, when this request may be given the page every anonymous reader gets."""
    if request.user.is_authenticated or "HTTP_AUTHORIZATION" in request.META or "api_token" in request.GET:
        return None
    if not can_read(None, test):
        return None
    return cache.version_of(test)


def answer(request: HttpRequest, test: Test, build: Callable[[], HttpResponse]) -> HttpResponseBase:
    version = _shared_version(request, test)
    if version is None:
        own = build()
        if request.user.is_authenticated:
            own["Cache-Control"] = "private, no-cache"
        patch_vary_headers(own, CREDENTIAL_HEADERS)
        return own
    key = f"{request.path}|{version}"
    hit = cache.rendered.get_page(key)
    now = time.monotonic()
    if hit is None or now - hit[2] > PAGE_TTL_S:
        built = build()
        if built.status_code != 200:
            return built
        etag = '"' + hashlib.blake2b(built.content, digest_size=12).hexdigest() + '"'
        hit = (built.content, etag, now)
        cache.rendered.put_page(key, *hit)
    body, etag, stored_at = hit
    response: HttpResponseBase
    if cache.matches(request.META.get("HTTP_IF_NONE_MATCH", ""), etag):
        response = HttpResponseNotModified()
    else:
        response = HttpResponse(body, content_type="text/html; charset=utf-8")
    response["ETag"] = etag
    left_s = max(1, int(PAGE_TTL_S - (now - stored_at)))
    response["Cache-Control"] = f"public, max-age={left_s}"
    patch_vary_headers(response, CREDENTIAL_HEADERS)
    return response
