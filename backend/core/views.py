"""Operational endpoints."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_GET

from backend.core import health


@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """200 when every dependency answers; 503 naming the ones that do not.

    A load balancer polls this several times a second per instance: by default the answer is the last check, at most
    `health.FRESH_S` old (refreshed by a background thread, so no poll waits for the four round trips).
    `?deep=1` checks every dependency now, for a person or a deploy script.
    """
    deep = request.GET.get("deep", "") not in ("", "0", "false")
    checks, checked_at = (health.run_all(), None) if deep else health.recent()
    down = [c.name for c in checks if not c.ok]
    body: dict[str, object] = {
        "status": "ok" if not down else "degraded",
        "down": down,
        "checks": {c.name: {"ok": c.ok, "detail": c.detail} for c in checks},
    }
    if checked_at is not None:
        body["checked_s_ago"] = round(checked_at, 3)
    if down:
        body["error"] = "down: " + ", ".join(down)
    response = JsonResponse(body, status=503 if down else 200)
    response["Cache-Control"] = "no-store"
    return response
