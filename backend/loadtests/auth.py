"""DRF authentication by API token: `Authorization: Token <t>` or `?api_token=<t>` (as the tank sends it).
The tank's protocol endpoints also take the token as the password of HTTP Basic auth (tank_token_from)."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from backend.loadtests.tokens import resolve_token


def raw_token_from(request: Any) -> str | None:
    header = request.META.get("HTTP_AUTHORIZATION", "")
    if header:
        scheme, _, value = header.partition(" ")
        if scheme.lower() in {"token", "bearer"} and value.strip():
            return str(value.strip())
    query_token = request.GET.get("api_token")
    return str(query_token) if query_token else None


def basic_auth_password(request: Any) -> str | None:
    """The password of `Authorization: Basic`, unless the request comes from a browser.

    yandex-tank's Lunapark-mode uploader sends no `api_token`; the token rides in its `api_address` as
    `http://lunapark:TOKEN@host/`, which `requests` turns into Basic auth on every call. A browser may replay such
    credentials on its own (after someone opened the tank's printed link), so a request a browser marks as its own
    (Sec-Fetch-*: every current browser sends them, no tank does) is not authenticated this way: no other site can
    make a visitor's browser close or create tests with them."""
    if request.META.get("HTTP_SEC_FETCH_MODE") or request.META.get("HTTP_SEC_FETCH_SITE"):
        return None
    scheme, _, value = request.META.get("HTTP_AUTHORIZATION", "").partition(" ")
    if scheme.lower() != "basic" or not value.strip():
        return None
    try:
        decoded = base64.b64decode(value.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    _user, colon, password = decoded.partition(":")
    return password if colon and password else None


def tank_token_from(request: Any) -> str | None:
    """The API token of a call of the tank's protocol: `api_token` (Overload mode) or Basic auth (Lunapark mode)."""
    return raw_token_from(request) or basic_auth_password(request)


class ApiTokenAuthentication(authentication.BaseAuthentication):
    keyword = "Token"

    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        raw = raw_token_from(request._request)
        if raw is None:
            return None
        token = resolve_token(raw)
        if token is None:
            raise exceptions.AuthenticationFailed("invalid or revoked API token")
        return (token.user, token)

    def authenticate_header(self, request: Request) -> str:
        return self.keyword


class ApiTokenScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]  # untyped drf-spectacular
    """Describes the token scheme in the OpenAPI schema, so clients generated from it know how to authenticate."""

    target_class = "backend.loadtests.auth.ApiTokenAuthentication"
    name = "apiToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "`Token <token>`; the tank's `?api_token=<token>` query parameter is accepted too.",
        }
