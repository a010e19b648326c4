"""Archive API: download a test as one file, upload such a file as a new test. Thin: access, one call, JSON."""

from __future__ import annotations

import shutil
import tempfile

from django.conf import settings
from django.http import FileResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.exceptions import NotAuthenticated, PermissionDenied
from rest_framework.parsers import BaseParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from backend.loadtests import quota
from backend.loadtests.permissions import can_create, project_for_new_test, test_or_404
from backend.retention import archive, monitoring_log
from backend.retention import serializers as s

COPY_CHUNK = 1024 * 1024


class TestArchiveView(APIView):
    @extend_schema(
        responses={(200, "application/zip"): OpenApiTypes.BINARY, 404: s.ErrorSerializer, 409: s.ErrorSerializer},
        summary="The test as one archive file (metadata, raw samples or aggregates, monitoring, notes, tags)",
    )
    def get(self, request: Request, test_id: int) -> FileResponse | Response:
        test = test_or_404(request, test_id)
        out = tempfile.TemporaryFile(dir=settings.VAR_DIR)  # noqa: SIM115 (FileResponse closes it: then it is gone)
        try:
            archive.export(test, out)
        except archive.ArchiveError as exc:
            out.close()
            return Response({"error": str(exc)}, status=409)
        out.seek(0)
        return FileResponse(
            out, as_attachment=True, filename=f"tankodrom-test-{test.pk}.zip", content_type="application/zip"
        )


class ArchivesView(APIView):
    parser_classes: list[type[BaseParser]] = []  # the body is copied to disk as it is, never parsed

    @extend_schema(
        request={"application/zip": OpenApiTypes.BINARY},
        responses={
            201: s.ArchiveImportedSerializer,
            400: s.ErrorSerializer,
            401: s.ErrorSerializer,
            403: s.ErrorSerializer,
            507: OpenApiResponse(response=OpenApiTypes.OBJECT, description="the storage quota is used up"),
        },
        summary="Import an archive (from GET /api/v1/tests/<id>/archive) as a new test",
    )
    def post(self, request: Request) -> Response:
        if not (request.user and request.user.is_authenticated):
            raise NotAuthenticated("an API token is required: header 'Authorization: Token <token>'")
        # The new test lands where the caller's other new tests would: the acting token's project, else the default.
        project = project_for_new_test(request.user)
        if project is None or not can_create(request.user, project):
            raise PermissionDenied("this api_token may not create tests: it needs the uploader role in a project")
        refused = quota.refusal(project)
        if refused is not None:
            return Response(refused, status=507)
        if request.stream is None:
            return Response({"error": "file: the body is empty; send the archive file as it is"}, status=400)
        with tempfile.TemporaryFile(dir=settings.VAR_DIR) as body:
            shutil.copyfileobj(request.stream, body, COPY_CHUNK)
            body.seek(0)
            try:
                test = archive.import_archive(body, request.user, project)
            except archive.ArchiveError as exc:
                return Response({"error": str(exc)}, status=400)
        return Response({"id": int(test.pk), "url": f"/{test.pk}"}, status=201)


class MonitoringLogView(APIView):
    parser_classes: list[type[BaseParser]] = []  # JSON lines, read line by line

    @extend_schema(
        request={"application/x-ndjson": OpenApiTypes.BINARY},
        responses={200: s.MonitoringLogStoredSerializer, 400: s.ErrorSerializer, 404: s.ErrorSerializer},
        summary="Store a yandex-tank monitoring.log (JSON lines of monitoring chunks) as the test's monitoring",
    )
    def put(self, request: Request, test_id: int) -> Response:
        test = test_or_404(request, test_id, write=True)
        if request.stream is None:
            return Response({"error": "file: the body is empty; send monitoring.log as it is"}, status=400)
        try:
            points = monitoring_log.store(int(test.pk), monitoring_log.lines_of(request.stream))
        except monitoring_log.MonitoringLogError as exc:
            return Response({"error": f"file: {exc}"}, status=400)
        return Response({"test": int(test.pk), "points": points})
