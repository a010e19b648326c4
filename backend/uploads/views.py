"""HTTP API of phout uploads: `PUT /api/v1/tests/<id>/phout` (the body is the file) and the uploads' status.

Thin views: access through backend.loadtests.permissions, the work in backend.uploads.receive / .ingest. The
body is read from the request stream piece by piece (no DRF parser ever touches it), so its size is bounded by
TANKODROM_MAX_UPLOAD_BYTES only (checked from Content-Length by backend.core.body_limit).
"""

from __future__ import annotations

import math
import time
from types import SimpleNamespace
from typing import Any, cast

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import NotAuthenticated, NotFound, ParseError
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.parsers import BaseParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from analytics.formats import ALIASES, FORMAT_NAMES
from analytics.numbers import is_digits
from backend.fastpaths.socket_body import SocketBody
from backend.loadtests import quota
from backend.loadtests.models import Test, Upload, UploadStatus
from backend.loadtests.permissions import test_or_404
from backend.uploads import formats, receive
from backend.uploads.serializers import UploadReceivedSerializer, UploadSerializer, upload_summary
from backend.uploads.storage import Readable


def _upload_or_404(test: Test, upload_id: int) -> Upload:
    upload = Upload.objects.filter(pk=upload_id, test=test).first()
    if upload is None:
        raise NotFound(f"upload {upload_id} of test {test.pk} not found")
    return upload


# One or more phout lines: time, tag, 8 times and sizes, net code, HTTP code, tab-separated.
PHOUT_TEXT = {
    "type": "string",
    "pattern": r"^(1[5-7][0-9]{8}\.[0-9]{3}\t[a-z_]{0,8}(\t[0-9]{1,6}){8}\t[0-9]{1,3}\t[0-9]{3}\n){1,20}$",
    "description": "a result file (phout shown; JMeter, k6, Gatling, Locust taken too), plain or gzip",
}


class _FormatIsTheFiles(DefaultContentNegotiation):
    """DRF reads `?format=` as the answer's format (URL_FORMAT_OVERRIDE) and answers 404 to names it does not
    render; on the upload it names the file's format (backend/uploads/formats.py), and the answer is JSON."""

    settings = cast(Any, SimpleNamespace(URL_FORMAT_OVERRIDE=None))


class PhoutUploadView(APIView):
    parser_classes: list[type[BaseParser]] = []  # the body is streamed to disk by hand, never parsed
    content_negotiation_class = _FormatIsTheFiles

    @extend_schema(
        # Described as the text it is (gzip of it is taken as well): any bytes would not be a result file.
        request={"text/tab-separated-values": PHOUT_TEXT},
        parameters=[
            OpenApiParameter(
                "upload",
                {"type": "integer", "minimum": 1, "maximum": 2**63 - 1},
                description="the upload a Content-Range piece belongs to",
            ),
            OpenApiParameter(
                "format",
                {"type": "string", "enum": [*FORMAT_NAMES, *ALIASES]},
                description="the file's format when its content is ambiguous (default: recognised from the content)",
            ),
        ],
        responses={
            202: UploadReceivedSerializer,
            409: OpenApiResponse(
                response=OpenApiTypes.OBJECT,
                description="the upload is already complete, or another request is sending it",
            ),
            507: OpenApiResponse(
                response=OpenApiTypes.OBJECT, description="the storage quota is used up (the message names it)"
            ),
        },
        summary="Upload a result file (phout, JMeter JTL, k6, Gatling, Locust; plain or gzip) as the test's data; "
        "resumable with Content-Range",
    )
    def put(self, request: Request, test_id: int) -> Response:
        if not (request.user and request.user.is_authenticated):
            raise NotAuthenticated("an API token is required: header 'Authorization: Token <token>' or ?api_token=")
        test = test_or_404(request, test_id, write=True)
        raw_length = request.META.get("CONTENT_LENGTH") or ""
        if not is_digits(raw_length):
            return Response(
                {"error": "Content-Length is required (send the file with a known size, e.g. curl -T file)"},
                status=status.HTTP_411_LENGTH_REQUIRED,
            )
        refused = quota.refusal(test.project) if request.query_params.get("upload") is None else None
        if refused is not None:  # a new upload; a piece of one accepted before may still complete
            return Response(refused, status=status.HTTP_507_INSUFFICIENT_STORAGE)
        try:
            result_format = formats.requested_format(request.query_params.get("format"))
        except formats.FormatError as exc:
            return Response({"error": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        try:
            result = receive.receive(
                test,
                _body_of(request) if int(raw_length) > 0 else _Empty(),
                int(raw_length),
                request.META.get("HTTP_CONTENT_RANGE"),
                request.query_params.get("upload"),
                result_format,
            )
        except receive.ReceiveError as exc:
            return Response({"error": exc.message, **exc.extra}, status=exc.status)
        body: dict[str, Any] = {
            "id": test.pk,
            "upload_id": result.upload.pk,
            "status": "processing" if result.complete else "receiving",
            "received_bytes": result.upload.progress_bytes,
            "size_bytes": result.upload.size_bytes,
        }
        return Response(body, status=status.HTTP_202_ACCEPTED)


def _body_of(request: Request) -> Readable | SocketBody:
    """The request's body: read from the socket into the upload's write buffer when the ASGI door took the
    connection over (backend/fastpaths/socket_body.py), else Django's stream of it."""
    wsgi_input = request.META.get("wsgi.input")
    return wsgi_input if isinstance(wsgi_input, SocketBody) else request.stream


class _Empty:
    def read(self, size: int = -1, /) -> bytes:
        return b""


class UploadListView(APIView):
    @extend_schema(
        responses={200: UploadSerializer(many=True)},
        summary="The test's phout uploads, newest first, with their progress",
        operation_id="v1_tests_uploads_list",  # the detail view would otherwise get the same id (check --deploy)
    )
    def get(self, request: Request, test_id: int) -> Response:
        test = test_or_404(request, test_id)
        uploads = Upload.objects.filter(test=test).order_by("-id")
        return Response([upload_summary(u, test.active_upload_id) for u in uploads])


# `?wait=S` on an upload's status: the answer waits until the upload is final (or S seconds pass), so a client
# learns at once that its upload is done instead of up to a poll interval later. Each waiting request holds one of
# the server's threads, hence the cap.
MAX_WAIT_S = 5.0
WAIT_POLL_S = 0.05
FINAL_STATUSES = frozenset({UploadStatus.READY, UploadStatus.FAILED, UploadStatus.SUPERSEDED})


def _wait_seconds(request: Request) -> float:
    raw = request.query_params.get("wait")
    if raw is None:
        return 0.0
    try:
        seconds = float(raw)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or seconds < 0:
        raise ParseError(f"wait must be a number of seconds >= 0, not {raw!r}")
    return min(seconds, MAX_WAIT_S)


def _wait_until_final(upload_id: int, status: str, wait_s: float) -> bool:
    """Poll the upload's status (one small query every WAIT_POLL_S) until it is final or `wait_s` has passed;
    whether it changed meanwhile."""
    deadline = time.monotonic() + wait_s
    changed = False
    while status not in FINAL_STATUSES and time.monotonic() < deadline:
        time.sleep(min(WAIT_POLL_S, max(0.0, deadline - time.monotonic())))
        now = Upload.objects.filter(pk=upload_id).values_list("status", flat=True).first()
        if now is None:
            return True
        changed = changed or now != status
        status = now
    return changed


class UploadDetailView(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter(
                "wait",
                {"type": "number", "minimum": 0},
                description=f"wait up to this many seconds (at most {MAX_WAIT_S:g}) for the upload to be final "
                "(ready, failed or superseded) before answering",
            )
        ],
        responses={200: UploadSerializer},
        summary="One phout upload: status, progress, bad lines, error",
    )
    def get(self, request: Request, test_id: int, upload_id: int) -> Response:
        wait_s = _wait_seconds(request)
        test = test_or_404(request, test_id)
        upload = _upload_or_404(test, upload_id)
        if wait_s and _wait_until_final(int(upload.pk), str(upload.status), wait_s):
            test = test_or_404(request, test_id)  # its active upload may have changed with it
            upload = _upload_or_404(test, upload_id)
        return Response(upload_summary(upload, test.active_upload_id))
