"""`POST /api/v1/tests/<id>/stop`: stop an online test from the web.

The stop is kept in PostgreSQL (StopRequest) and noted in Redis (buffer.STOPPED_TESTS_KEY), where the append of
every push checks it: the tank's next push for the test is answered 410, on which yandex-tank ends its upload
("Lunapark is rejecting Data Uploader data"); its status call (`PATCH api/v2/jobs/<id>/`, sent in Lunapark mode) is
answered 410 too, on which it ends the shooting as stopped from the web (exit code 8). The test closes with the
tank's close.json, recording "stopped from the web", or after its silence.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from backend.loadtests.models import TestStatus
from backend.loadtests.permissions import test_or_404
from backend.projects.service import audit
from backend.tankapi import lifecycle

_STOPPING = inline_serializer("StopAnswer", {"id": serializers.IntegerField(), "status": serializers.CharField()})
_ERROR = inline_serializer("StopError", {"error": serializers.CharField()})


class StopView(APIView):
    @extend_schema(
        request=None,
        responses={202: _STOPPING, 401: _ERROR, 403: _ERROR, 404: _ERROR, 409: _ERROR},
        summary="Stop an online test: the tank's next push for it is refused (410) and it ends its upload",
    )
    def post(self, request: Request, test_id: int) -> Response:
        # 401 without a user, a test the caller may not read answers as missing, 403 naming the role needed.
        test = test_or_404(request, test_id, write=True)
        if test.status != TestStatus.ONLINE:
            return Response({"error": f"test {test_id} is not online (it is {test.status})"}, status=409)
        lifecycle.request_stop(test, request.user if request.user.is_authenticated else None)
        audit(request.user, test.project, "test.stop", f"test {test.pk}", name=test.name)
        answer: dict[str, Any] = {"id": test.pk, "status": "stopping"}
        return Response(answer, status=status.HTTP_202_ACCEPTED)
