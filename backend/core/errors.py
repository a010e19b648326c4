"""Errors as JSON `{"error": "..."}` with a 4xx/5xx status, whatever raised them."""

from __future__ import annotations

from typing import Any

from django.http import JsonResponse
from rest_framework.response import Response
from rest_framework.views import exception_handler

from backend.clickhouse.client import ClickHouseUnavailable


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
