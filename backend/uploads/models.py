"""State the uploads app keeps beside `loadtests.Upload`: which result format an upload is (docs/formats.md)."""

from __future__ import annotations

from django.db import models

from backend.loadtests.models import Upload


class UploadFormat(models.Model):
    """The format asked for (`?format=`) and the one the file was read as; `samples` is False for a file of
    per-second aggregates only (Locust), whose report is then not exact."""

    upload = models.OneToOneField(Upload, on_delete=models.CASCADE, primary_key=True, related_name="result_format")
    requested = models.CharField(max_length=32, blank=True, default="")
    detected = models.CharField(max_length=32, blank=True, default="")
    samples = models.BooleanField(default=True)

    def __str__(self) -> str:
        return f"upload {self.upload_id}: {self.detected or self.requested or '?'}"
