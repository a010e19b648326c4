"""Diagnosis API: a test's findings, a component's trend, and the CI pass/fail check. Thin: validate, call one
function of `service`, answer JSON (errors as `{"error": ...}` through the project's exception handler)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.exceptions import APIException, NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from backend.diagnosis import service
from backend.diagnosis.enqueue import request_diagnosis
from backend.diagnosis.serializers import AnalysisAnswerSerializer, TrendAnswerSerializer
from backend.loadtests.models import Test
from backend.loadtests.permissions import test_or_404
from backend.regressions.service import CheckError, check
from backend.regressions.views import component_name, component_project


def _readable_test(request: Request, test_id: int) -> Test:
    return test_or_404(request, test_id)


class Conflict(APIException):
    status_code = 409
    default_detail = "conflict"


class AnalysisView(APIView):
    @extend_schema(
        responses={200: AnalysisAnswerSerializer},
        summary="Findings of the automatic diagnosis: ready, or pending until it is computed, or failed",
    )
    def get(self, request: Request, test_id: int) -> Response:
        test = _readable_test(request, test_id)
        analysis = service.stored_analysis(test)
        if service.needs_diagnosis(test, analysis):
            request_diagnosis(test)
            analysis = service.stored_analysis(test)
        return Response(service.analysis_payload(test, analysis, request.user))


class TrendView(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter(
                "figure",
                OpenApiTypes.STR,
                enum=list(service.FIGURE_FIELDS),
                description="figure to follow; q99 by default",
            )
        ],
        responses={200: TrendAnswerSerializer},
        summary="A figure across a component's tests, with change points and thresholds",
    )
    def get(self, request: Request, name: str) -> Response:
        figure = request.query_params.get("figure", "q99")
        try:
            project_id = component_project(request).pk
            body: dict[str, Any] = service.component_trend(project_id, component_name(name), figure, request.user)
        except service.UnknownFigure as exc:
            raise ValidationError(str(exc)) from exc
        return Response(body)


class CheckView(APIView):
    @extend_schema(
        responses={
            200: OpenApiTypes.OBJECT,
            400: OpenApiTypes.OBJECT,
            401: OpenApiTypes.OBJECT,
            404: OpenApiTypes.OBJECT,
            409: OpenApiTypes.OBJECT,
        },
        summary="CI check: does the test pass its component's thresholds, and is it not worse than the baseline? "
        "409 while the test is still running or being processed",
    )
    def get(self, request: Request, name: str, test_id: int) -> Response:
        component = component_name(name)
        test = _readable_test(request, test_id)
        if test.component != name:  # as a missing test: the pair (component, test) names nothing
            raise NotFound(f"test {test_id} is not a test of component {name!r}")
        try:
            body = check(component, test, request.user)
        except CheckError as exc:
            if exc.status == 409:
                raise Conflict(exc.message) from exc
            raise ValidationError(exc.message) from exc
        return Response(body)
