"""Fixtures of the accounts tests: users with tokens, and an emptied test Redis (rate-limit counters live there)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from backend.loadtests.models import ApiToken
from backend.loadtests.tokens import create_token


@dataclass
class Account:
    user: User
    token: ApiToken
    raw: str

    def client(self) -> APIClient:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {self.raw}")
        return client


def make_account(username: str, *, staff: bool = False, password: str = "correct horse battery") -> Account:
    user = User.objects.create_user(username, password=password, is_staff=staff)
    token, raw = create_token(user, name=f"{username} token")
    return Account(user=user, token=token, raw=raw)


@pytest.fixture
def clean_cache(redis_db: object) -> Iterator[None]:
    """Rate-limit counters start at zero (they live in the test Redis database, emptied by `redis_db`)."""
    yield


@pytest.fixture
def alice(db: None, clean_cache: None) -> Account:
    return make_account("alice")


@pytest.fixture
def bob(db: None, clean_cache: None) -> Account:
    return make_account("bob")


@pytest.fixture
def staff(db: None, clean_cache: None) -> Account:
    return make_account("operator", staff=True)
