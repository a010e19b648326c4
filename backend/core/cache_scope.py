"""Who may keep an answer: every answer that is not explicitly shared (`Cache-Control: public`) varies with the
credentials, and one given to a signed-in user or a token is `private` unless its view said more.

Views that know their answer is the same for everyone say `public` (reports.cache.cache_control, the shared report
page, WhiteNoise's static files); a proxy in front (deploy/nginx) stores only those. Everything else (the test's
metadata with its `can_write`, `me`, lists filtered by who asks) must never be served from a shared cache to
someone else: `Vary: Cookie, Authorization` tells any cache so, and `private` keeps a signed-in answer out of them.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest
from django.http.response import HttpResponseBase
from django.utils.cache import patch_vary_headers

CREDENTIAL_HEADERS = ("Cookie", "Authorization")


def _has_credentials(request: HttpRequest) -> bool:
    return (
        "HTTP_AUTHORIZATION" in request.META
        or settings.SESSION_COOKIE_NAME in request.COOKIES
        or "api_token" in request.GET
    )


class CacheScopeMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        control = response.get("Cache-Control", "")
        if "public" in (directive.strip().lower() for directive in control.split(",")):
            return response
        if _has_credentials(request) and "private" not in control and "no-store" not in control:
            response["Cache-Control"] = f"private, {control}" if control else "private, no-cache"
        patch_vary_headers(response, CREDENTIAL_HEADERS)
        return response
