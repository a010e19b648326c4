"""Fixtures of the diagnosis suite: users with API tokens and API clients."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from backend.loadtests.tokens import create_token


@pytest.fixture
def owner(db: Any) -> User:
    return User.objects.create_user("owner", password="x")


def _api_for(user: User) -> APIClient:
    _, raw = create_token(user)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    return api


@pytest.fixture
def owner_api(owner: User) -> APIClient:
    return _api_for(owner)


@pytest.fixture
def other_api(db: Any) -> APIClient:
    return _api_for(User.objects.create_user("other", password="x"))


@pytest.fixture
def anon_api() -> APIClient:
    return APIClient()
