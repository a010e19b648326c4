"""`GET /api/v1/compare`: validate, check access, answer from the cache or have the `analysis` queue compute.

The view waits a bounded time for the task (TANKODROM_COMPARE_WAIT_S, long enough for most comparisons), then
answers 202 with `{"status": "pending"}` so the page can poll the same URL.
"""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.http.response import HttpResponseBase
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from backend.compare import service
from backend.compare.serializers import CompareAnswerSerializer, ComparePendingSerializer
from backend.compare.tasks import PENDING_TTL_S, compute_comparison, pending_key
from backend.core import schema
from backend.loadtests.models import Test
from backend.loadtests.permissions import can_read
from backend.reports import cache as reports_cache
from backend.reports.window import WindowError

POLL_INTERVAL_S = 0.05


def _wait_s() -> float:
    return float(settings.TANKODROM_COMPARE_WAIT_S)


class CompareView(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter(
                "tests",
                {
                    "type": "array",
                    "items": {"type": "integer", "minimum": 0, "maximum": 2**63 - 1},
                    "minItems": 2,
                    "maxItems": service.MAX_TESTS,
                    "uniqueItems": True,
                },
                style="form",
                explode=False,
                required=True,
                description="different test ids, comma-separated; the first is the baseline",
            ),
            OpenApiParameter(
                "from",
                schema.WHOLE_UNIX_SECONDS,
                description="window start: seconds from each test's start (align=start) or unix s",
            ),
            OpenApiParameter(
                "to", schema.WHOLE_UNIX_SECONDS, description="window end (exclusive), same scale as from; after from"
            ),
            OpenApiParameter(
                "case", schema.CASES, explode=True, description="cases to include (repeatable); none = all"
            ),
            OpenApiParameter(
                "q", schema.PERCENTS, style="form", explode=False, description="quantile levels in percent, e.g. 50,99"
            ),
            OpenApiParameter(
                "align", OpenApiTypes.STR, enum=list(service.ALIGNMENTS), description="start (default) or absolute"
            ),
        ],
        responses={200: CompareAnswerSerializer, 202: ComparePendingSerializer},
        summary="Compare tests with the first (the baseline); 202 while the comparison is being computed",
    )
    def get(self, request: Request) -> HttpResponseBase:
        try:
            params = service.parse_params(request.query_params)
        except WindowError as exc:
            return Response({"error": str(exc)}, status=400)
        by_id = Test.objects.in_bulk(list(params.test_ids))
        for test_id in params.test_ids:
            test = by_id.get(test_id)
            # A test the user may not read is answered like a missing one: its existence is not disclosed.
            if test is None or not can_read(request.user, test):
                return Response({"error": f"test {test_id} not found"}, status=404)
        tests = [by_id[i] for i in params.test_ids]
        # A comparison of finished tests never changes: validators and 304 as for a report (backend/reports/cache.py).
        return reports_cache.conditional(request, tests, lambda: self._answer(params, tests))

    def _answer(self, params: Any, tests: list[Test]) -> Response:
        key = service.cache_key(params, tests)
        found = cache.get(key)
        if found is None:
            if cache.add(pending_key(key), 1, PENDING_TTL_S):
                compute_comparison.delay(params.to_dict())
            found = self._wait(key)
        if found is None:
            return Response({"status": "pending", "retry_after_s": 1}, status=202, headers={"Retry-After": "1"})
        if "__error__" in found:
            if found.get("status") == 503:
                return Response({"error": "storage temporarily unavailable, retry later"}, status=503)
            return Response({"error": "the comparison failed; the error is logged"}, status=500)
        return Response(found)

    @staticmethod
    def _wait(key: str) -> Any:
        deadline = time.monotonic() + _wait_s()
        while True:
            found = cache.get(key)
            if found is not None or time.monotonic() >= deadline:
                return found
            time.sleep(POLL_INTERVAL_S)
