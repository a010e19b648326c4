"""Fixtures of the uploads tests: an owner with a token, a test to upload into, uploads stored in a temp VAR_DIR."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from backend.loadtests.models import Test, Upload, UploadStatus
from backend.testing import TokenUser, make_token_user

GOLDEN = Path(__file__).resolve().parents[3] / "analytics" / "tests" / "golden" / "phout"


def final_upload(upload_id: int, timeout_s: float = 30) -> Upload:
    """The upload once it is ready or failed, or as it is after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while True:
        upload = Upload.objects.get(pk=upload_id)
        if upload.status in (UploadStatus.READY, UploadStatus.FAILED) or time.monotonic() > deadline:
            return upload
        time.sleep(0.05)


@pytest.fixture
def uploads_env(db: None, clickhouse: None, redis_db: object, settings: Any, tmp_path: Path) -> Iterator[Path]:
    """Real PostgreSQL, ClickHouse and Redis (the post-processing task is sent to it); files under tmp_path."""
    settings.VAR_DIR = tmp_path
    yield tmp_path


@pytest.fixture
def owner(uploads_env: Path) -> TokenUser:
    return make_token_user("shooter")


@pytest.fixture
def test_row(owner: TokenUser) -> Test:
    return Test.objects.create(owner=owner.user, name="phout upload")
