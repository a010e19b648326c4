"""`GET /api/v1/tests/<id>/live` (a report page) and `GET /api/v1/live?tests=1,2,3` (the list's online rows): the
online pages' Server-Sent Events.

These views only check access, as every report call does (backend.loadtests.permissions: a test the caller may not
read is answered as missing, on the list left out like a missing one), inside Django's whole request cycle
(sessions, tokens, middleware). Their answer names the tests in LIVE_HEADER; the ASGI door (sse.py, in front of
Django under gunicorn) then keeps the connection and streams the tests' events on its event loop, so a watcher holds
no thread. Where no door stands in front (runserver), the body below is what the client gets: a `fallback` event,
on which the page polls.
"""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.exceptions import NotAuthenticated, ValidationError
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.views import APIView

from analytics.numbers import is_digits
from backend.loadtests.permissions import readable_test, test_or_404

LIVE_HEADER = "X-Tankodrom-Live"
FALLBACK = b"retry: 60000\nevent: fallback\ndata: {}\n\n"
MAX_LIST_TESTS = 50  # a page of the list


def _events(test_ids: list[int]) -> HttpResponse:
    response = HttpResponse(FALLBACK, content_type="text/event-stream")
    response[LIVE_HEADER] = ",".join(str(test_id) for test_id in test_ids)
    response["Cache-Control"] = "no-cache, no-store"
    return response


_STREAM = {200: OpenApiResponse(OpenApiTypes.STR, description="text/event-stream")}


class _EventsView(APIView):
    def perform_content_negotiation(self, request: Request, force: bool = False) -> tuple[BaseRenderer, str]:
        # EventSource asks for text/event-stream only: a refusal is still this API's JSON error, not a 406.
        renderer = JSONRenderer()
        return renderer, renderer.media_type


class LiveView(_EventsView):
    @extend_schema(
        responses=_STREAM,
        summary="Server-Sent Events of an online test: `second` (the live figures of its newest stored second) and"
        " `status`; resumes after the Last-Event-ID header (or ?last_event_id=)",
    )
    def get(self, request: Request, test_id: int) -> HttpResponse:
        return _events([test_or_404(request, test_id).pk])


class LiveListView(_EventsView):
    @extend_schema(
        parameters=[OpenApiParameter("tests", str, description="ids, comma-separated (50 at most)", required=True)],
        responses=_STREAM,
        summary="Server-Sent Events of several online tests (the list's online rows); those the caller may not read"
        " are left out",
    )
    def get(self, request: Request) -> HttpResponse:
        raw = request.query_params.get("tests", "")
        parts = [part for part in raw.split(",") if part]
        if not parts or len(parts) > MAX_LIST_TESTS or not all(is_digits(p) and len(p) < 12 for p in parts):
            raise ValidationError({"tests": f"1 to {MAX_LIST_TESTS} test ids, comma-separated"})
        readable = [test_id for test_id in dict.fromkeys(int(p) for p in parts) if readable_test(request.user, test_id)]
        if not readable and not request.user.is_authenticated:
            raise NotAuthenticated("log in or send an API token (Authorization: Token ...)")
        if not readable:
            raise ValidationError({"tests": "none of these tests exists"})
        return _events(readable)
