"""The API's view of an upload (backend/uploads/views.py), and its shapes for the OpenAPI schema.

`upload_summary` builds the answer; the serializers only describe it (and the upload PUT's answer) for the schema,
from which the frontend's types are generated.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework import serializers

from analytics.formats import ALIASES, FORMAT_NAMES
from backend.loadtests.models import Upload, UploadStatus
from backend.uploads import formats


def upload_summary(upload: Upload, active_upload_id: int | None) -> Mapping[str, Any]:
    return {
        "id": upload.pk,
        "test": upload.test_id,
        "status": upload.status,
        "active": upload.pk == active_upload_id,
        "size_bytes": upload.size_bytes,
        "progress_bytes": upload.progress_bytes,
        "content_digest": upload.content_digest,
        "lines_total": upload.lines_total,
        "lines_bad": upload.lines_bad,
        "bad_examples": upload.bad_examples,
        "error": upload.error,
        "format": formats.format_of(int(upload.pk)),
        "created_at": upload.created_at.isoformat(),
        "finished_at": upload.finished_at.isoformat() if upload.finished_at else None,
    }


class BadLineSerializer(serializers.Serializer[Any]):
    line = serializers.IntegerField(help_text="1-based line number in the (decompressed) file")
    reason = serializers.CharField()
    text = serializers.CharField(help_text="the start of the line")


class UploadSerializer(serializers.Serializer[Any]):
    """One upload of a test's result file, as `upload_summary` gives it."""

    id = serializers.IntegerField()
    test = serializers.IntegerField()
    status = serializers.ChoiceField(
        choices=UploadStatus.choices,
        help_text="receiving (pieces arriving), parsing, ready, failed (see error), superseded (a newer upload "
        "became the test's data)",
    )
    active = serializers.BooleanField(help_text="whether it is the test's data now")
    size_bytes = serializers.IntegerField(help_text="the whole file's size, bytes (0 until known)")
    progress_bytes = serializers.IntegerField(help_text="bytes received, then bytes parsed")
    content_digest = serializers.CharField(allow_blank=True, help_text='"xxh3-128:<hex>", or "" until received')
    lines_total = serializers.IntegerField(help_text="lines read so far")
    lines_bad = serializers.IntegerField(help_text="malformed lines, skipped")
    bad_examples = BadLineSerializer(many=True, help_text="the first malformed lines")
    error = serializers.CharField(
        allow_blank=True, help_text='why it failed, or a note on a ready one (e.g. the same file again); "" if none'
    )
    format = serializers.ChoiceField(
        choices=[*FORMAT_NAMES, *ALIASES], help_text="the format it is read as (the one asked for until detected)"
    )
    created_at = serializers.CharField(help_text="ISO 8601")
    finished_at = serializers.CharField(allow_null=True, help_text="ISO 8601; null until ready or failed")


class UploadReceivedSerializer(serializers.Serializer[Any]):
    """The answer to a result file's PUT (or one of its pieces)."""

    id = serializers.IntegerField(help_text="the test")
    upload_id = serializers.IntegerField()
    status = serializers.ChoiceField(
        choices=["receiving", "processing"], help_text="processing: the file is whole and queued for ingestion"
    )
    received_bytes = serializers.IntegerField(help_text="bytes received so far")
    size_bytes = serializers.IntegerField(help_text="the whole file's size, bytes")
