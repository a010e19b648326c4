"""Diagnosis API: a test's findings. Thin: check access, call `service`, answer JSON (errors as `{"error": ...}`
through the project's exception handler). A component's trend and its CI check are component routes
(backend/regressions/views.py)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from backend.diagnosis import service
from backend.diagnosis.enqueue import request_diagnosis
from backend.diagnosis.serializers import AnalysisAnswerSerializer
from backend.loadtests.permissions import test_or_404


class AnalysisView(APIView):
    @extend_schema(
        responses={200: AnalysisAnswerSerializer},
        summary="Findings of the automatic diagnosis: ready, or pending until it is computed, or failed",
    )
    def get(self, request: Request, test_id: int) -> Response:
        test = test_or_404(request, test_id)
        analysis = service.stored_analysis(test)
        if service.needs_diagnosis(test, analysis):
            request_diagnosis(test)
            analysis = service.stored_analysis(test)
        return Response(service.analysis_payload(test, analysis, request.user))
