"""Fixtures of the accounts tests: users with tokens, and an emptied test Redis (rate-limit counters live there)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from backend.testing import TokenUser, make_token_user


@pytest.fixture
def clean_cache(redis_db: object) -> Iterator[None]:
    """Rate-limit counters start at zero (they live in the test Redis database, emptied by `redis_db`)."""
    yield


@pytest.fixture
def alice(db: None, clean_cache: None) -> TokenUser:
    return make_token_user("alice")


@pytest.fixture
def bob(db: None, clean_cache: None) -> TokenUser:
    return make_token_user("bob")


@pytest.fixture
def staff(db: None, clean_cache: None) -> TokenUser:
    return make_token_user("operator", staff=True)
