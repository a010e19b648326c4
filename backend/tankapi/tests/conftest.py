"""Fixtures of the tank protocol tests: a user with an API token, captured bodies, a clean buffer."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


def fixture_bytes(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def fixture_json(name: str) -> Any:
    return json.loads(fixture_bytes(name))


@pytest.fixture
def tank_caches() -> Iterator[None]:
    from backend.tankapi import views

    views.clear_caches()
    yield
    views.clear_caches()


@pytest.fixture
def tank_user(db: None, tank_caches: None) -> tuple[Any, str]:
    """(user, raw API token) of the tester."""
    from django.contrib.auth.models import User

    from backend.loadtests.tokens import create_token

    user = User.objects.create_user("tester", password="x-not-used-1")
    _token, raw = create_token(user, "tank")
    return user, raw


@pytest.fixture
def other_user(db: None) -> tuple[Any, str]:
    from django.contrib.auth.models import User

    from backend.loadtests.tokens import create_token

    user = User.objects.create_user("intruder", password="x-not-used-2")
    _token, raw = create_token(user, "tank")
    return user, raw
