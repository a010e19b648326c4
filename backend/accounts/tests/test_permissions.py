"""The access rules of backend/loadtests/permissions.py, as a table: who may read and write which test."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser, User
from pytest_django.fixtures import Settings

from backend.loadtests.models import Test
from backend.loadtests.permissions import can_create, can_read, can_write
from backend.loadtests.tokens import create_token, resolve_token
from backend.projects.models import Visibility


@pytest.fixture
def people(db: None) -> dict[str, Any]:
    owner = User.objects.create_user("owner")
    return {
        "anonymous": AnonymousUser(),
        "none": None,
        "owner": owner,
        "other": User.objects.create_user("other"),
        "staff": User.objects.create_user("staff", is_staff=True),
    }


# (instance private, test private) -> who may read; writing is always owner + staff.
READERS = {
    (False, False): {"anonymous", "none", "owner", "other", "staff"},
    (False, True): {"owner", "staff"},
    (True, False): {"owner", "other", "staff"},
    (True, True): {"owner", "staff"},
}


@pytest.mark.parametrize(("private_instance", "private_test"), sorted(READERS))
def test_access_table(people: dict[str, Any], settings: Settings, private_instance: bool, private_test: bool) -> None:
    settings.TANKODROM_PRIVATE_INSTANCE = private_instance
    test = Test.objects.create(
        owner=people["owner"], visibility=Visibility.OWNER if private_test else Visibility.PUBLIC
    )
    readers = {name for name, user in people.items() if can_read(user, test)}
    writers = {name for name, user in people.items() if can_write(user, test)}
    assert readers == READERS[(private_instance, private_test)]
    assert writers == {"owner", "staff"}


def test_only_users_create(people: dict[str, Any]) -> None:
    assert {name for name, user in people.items() if can_create(user)} == {"owner", "other", "staff"}


def test_a_deactivated_users_tokens_stop_working(people: dict[str, Any]) -> None:
    owner = people["owner"]
    _token, raw = create_token(owner)
    assert resolve_token(raw) is not None
    owner.is_active = False
    owner.save()
    # Deactivating an account in the admin site is how an operator locks someone out: their tanks stop too.
    assert resolve_token(raw) is None
