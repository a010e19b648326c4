"""DRF authentication by API token: `Authorization: Token <t>` or `?api_token=<t>` (as the tank sends it)."""

from __future__ import annotations

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
