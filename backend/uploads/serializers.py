"""The API's view of an upload (backend/uploads/views.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from backend.loadtests.models import Upload
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
