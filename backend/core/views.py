"""Operational endpoints."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_GET

from backend.core import health


@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """200 when every dependency answers; 503 naming the ones that do not."""
    checks = health.run_all()
    down = [c.name for c in checks if not c.ok]
    body = {
        "status": "ok" if not down else "degraded",
        "down": down,
        "checks": {c.name: {"ok": c.ok, "detail": c.detail} for c in checks},
    }
    if down:
        body["error"] = "down: " + ", ".join(down)
    return JsonResponse(body, status=503 if down else 200)
