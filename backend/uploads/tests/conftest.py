"""Fixtures of the uploads tests: an owner with a token, a test to upload into, uploads stored in a temp VAR_DIR."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from backend.loadtests.models import Test
from backend.loadtests.tokens import create_token

GOLDEN = Path(__file__).resolve().parents[3] / "analytics" / "tests" / "golden" / "phout"


@dataclass
class Owner:
    user: User
    raw_token: str

    def client(self) -> APIClient:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {self.raw_token}")
        return client


def make_owner(username: str) -> Owner:
    user = User.objects.create_user(username, password="x" * 12)
    _token, raw = create_token(user, name="uploads tests")
    return Owner(user=user, raw_token=raw)


@pytest.fixture
def uploads_env(db: None, clickhouse: None, redis_db: object, settings: Any, tmp_path: Path) -> Iterator[Path]:
    """Real PostgreSQL, ClickHouse and Redis (the post-processing task is sent to it); files under tmp_path."""
    settings.VAR_DIR = tmp_path
    yield tmp_path


@pytest.fixture
def owner(uploads_env: Path) -> Owner:
    return make_owner("shooter")


@pytest.fixture
def test_row(owner: Owner) -> Test:
    return Test.objects.create(owner=owner.user, name="phout upload")
