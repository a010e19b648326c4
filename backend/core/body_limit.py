"""Refuses oversized requests before any view reads them, with a JSON 413 naming the limit.

Two limits, both in bytes and set through backend/env.py: TANKODROM_MAX_BODY_BYTES for every request, and
TANKODROM_MAX_UPLOAD_BYTES for the one kind of request that legitimately carries gigabytes, the phout upload
(`PUT /api/v1/tests/<id>/phout`). Deciding from Content-Length costs nothing and happens before a byte of the body
is read; bodies sent without a length (chunked) are bounded by Django's DATA_UPLOAD_MAX_MEMORY_SIZE where a view
reads `request.body`, and by the upload view itself where it streams.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse

from backend.core.content_range import announced_total

UPLOAD_PATH = re.compile(
    r"^/api/v1/(tests/\d+/(phout|results|monitoring-log)|archives)$"
)  # uploads, archives, tank logs


def body_limit_for(path: str) -> tuple[int, str]:
    """The byte limit that applies to a request on `path`, and the name of the setting that sets it."""
    if UPLOAD_PATH.match(path):
        return int(settings.TANKODROM_MAX_UPLOAD_BYTES), "TANKODROM_MAX_UPLOAD_BYTES"
    return int(settings.TANKODROM_MAX_BODY_BYTES), "TANKODROM_MAX_BODY_BYTES"


class BodySizeLimitMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        raw_length = request.META.get("CONTENT_LENGTH") or "0"
        try:
            length = int(raw_length)
        except ValueError:
            return JsonResponse({"error": f"bad Content-Length header {raw_length!r}"}, status=400)
        limit, setting = body_limit_for(request.path)
        if length > limit:
            return JsonResponse(
                {"error": f"request body of {length} bytes exceeds the limit of {limit} bytes ({setting})"},
                status=413,
            )
        # A resumable upload sends the file in pieces (`Content-Range: bytes a-b/total`): the file's size is the
        # total, which must be refused at the first piece rather than after gigabytes have been stored.
        total = announced_total(request.META.get("HTTP_CONTENT_RANGE", ""))
        if total is not None and UPLOAD_PATH.match(request.path) and total > limit:
            return JsonResponse(
                {"error": f"file of {total} bytes exceeds the limit of {limit} bytes ({setting})"},
                status=413,
            )
        return self.get_response(request)
