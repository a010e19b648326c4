"""The shared answers' check (shared_answers._current_etag): access is permissions.can_read's for an anonymous user,
the version is the views' own, and it costs one query."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser, User
from django.db import connection
from django.test.utils import CaptureQueriesContext

from backend.fastpaths import shared_answers
from backend.loadtests.models import Test
from backend.loadtests.permissions import can_read
from backend.projects.models import Visibility
from backend.reports import cache, source

pytestmark = pytest.mark.usefixtures("db", "redis_db")


def _test(visibility: str) -> Test:
    owner = User.objects.create_user(f"owner-{visibility}")
    return Test.objects.create(owner=owner, name="done", status="ready", has_stream=True, visibility=visibility)


@pytest.mark.parametrize("private_instance", [False, True])
@pytest.mark.parametrize("visibility", [choice.value for choice in Visibility])
def test_served_exactly_when_permissions_let_anyone_read(
    visibility: str, private_instance: bool, settings: Any
) -> None:
    settings.TANKODROM_PRIVATE_INSTANCE = private_instance
    test = _test(visibility)
    url = f"/api/v1/tests/{test.pk}/summary"
    with CaptureQueriesContext(connection) as queries:
        etag = shared_answers._current_etag(test.pk, url)
    assert len(queries) == 1, queries.captured_queries
    assert (etag is not None) == can_read(AnonymousUser(), test)


def test_the_etag_is_the_views_version_of_the_test() -> None:
    test = _test(Visibility.PUBLIC)
    url = f"/api/v1/tests/{test.pk}/report"
    version = cache.version_from(source.data_version(test), test.status, test.created_at, cache.generation(test.pk))
    assert shared_answers._current_etag(test.pk, url) == cache.etag_of_versions([version], url)


def test_a_missing_test_is_not_served() -> None:
    assert shared_answers._current_etag(987654321, "/api/v1/tests/987654321/summary") is None
