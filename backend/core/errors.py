"""Errors as JSON `{"error": "..."}` with a 4xx/5xx status, whatever raised them."""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.views import defaults
from rest_framework.response import Response
from rest_framework.views import exception_handler

from backend.clickhouse.client import ClickHouseProtocolError, ClickHouseUnavailable


def _flatten(detail: Any, prefix: str = "") -> list[str]:
    if isinstance(detail, dict):
        out: list[str] = []
        for key, value in detail.items():
            name = "" if key == "non_field_errors" else f"{prefix}{key}"
            out.extend(_flatten(value, f"{name}: " if name else prefix))
        return out
    if isinstance(detail, list):
        return [msg for item in detail for msg in _flatten(item, prefix)]
    return [f"{prefix}{detail}"]


def json_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, ClickHouseUnavailable):
        return Response({"error": "storage temporarily unavailable, retry later"}, status=503)
    if isinstance(exc, ClickHouseProtocolError):
        # Logged with its cause where it was raised (backend.clickhouse.client); the answer names no internals.
        return Response({"error": "storage error; the cause is logged"}, status=500)
    response = exception_handler(exc, context)
    if response is None:
        return None
    data = response.data
    if isinstance(data, dict) and set(data) == {"detail"}:
        message = str(data["detail"])
    else:
        message = "; ".join(_flatten(data))
    response.data = {"error": message, "details": data} if message != str(data) else {"error": message}
    return response


def json_error(message: str, status: int, **extra: Any) -> JsonResponse:
    """For plain Django views (tank protocol, uploads) that do not go through DRF."""
    return JsonResponse({"error": message, **extra}, status=status)


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """Django's 404 (no URL pattern matched, e.g. a test id that is not a number): JSON under /api/."""
    if _is_api(request):
        return json_error(f"no such URL: {request.path}", 404)
    return defaults.page_not_found(request, exception or Http404())


def server_error(request: HttpRequest) -> HttpResponse:
    """An uncaught exception: JSON under /api/, never the internals."""
    if _is_api(request):
        return json_error("internal error; it is logged", 500)
    return defaults.server_error(request)
