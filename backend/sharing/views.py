"""The preview pictures that chat clients fetch from og:image: `/preview/<id>.png`, `/preview/compare/<a>/<b>.png`.

Same access rule as the pages: a test the requester may not read is a 404 (not 403, so its existence is not
confirmed to a stranger). Pictures of readable tests are public to caches only when anyone may read them.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.views.decorators.http import require_safe

from backend.clickhouse.client import ClickHouseUnavailable
from backend.core.errors import json_error
from backend.loadtests.models import Test
from backend.loadtests.permissions import can_read, readable_test
from backend.reports.cache import conditional
from backend.sharing.preview import png_for_compare, png_for_test


def _png(request: HttpRequest, tests: list[Test], png: Callable[[], bytes]) -> HttpResponseBase:
    """The picture, or a 304 when the client has it (finished tests: backend/reports/cache.py)."""

    def build() -> HttpResponse:
        try:
            return HttpResponse(png(), content_type="image/png")
        except ClickHouseUnavailable:
            return json_error("storage temporarily unavailable, retry later", 503)

    response = conditional(request, tests, build)
    if response.status_code == 200 and "ETag" not in response:  # an online test: a short while, then drawn anew
        anonymous_can_read = all(can_read(None, t) for t in tests)
        response["Cache-Control"] = "public, max-age=300" if anonymous_can_read else "private, max-age=300"
    return response


@require_safe  # some link expanders send HEAD first to learn the type and size
def test_preview(request: HttpRequest, test_id: int) -> HttpResponseBase:
    test = readable_test(request.user, test_id)
    if test is None:
        return json_error(f"no test {test_id}", 404)
    return _png(request, [test], lambda: png_for_test(test))


@require_safe  # some link expanders send HEAD first to learn the type and size
def compare_preview(request: HttpRequest, ids: str) -> HttpResponseBase:
    wanted = [int(part) for part in ids.split("/")]
    tests = []
    for test_id in wanted:
        test = readable_test(request.user, test_id)
        if test is None:
            return json_error(f"no test {test_id}", 404)
        tests.append(test)
    return _png(request, tests, lambda: png_for_compare(tests))
