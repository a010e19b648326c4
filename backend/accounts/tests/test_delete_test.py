"""Deleting a test, from the permissions side: strangers are refused and nothing goes; the owner's session needs
CSRF; staff may delete anyone's test, and then its rows are gone from both stores."""

from __future__ import annotations

import time

import pytest
from django.urls import Resolver404, resolve
from rest_framework.test import APIClient

from backend.clickhouse import client as ch
from backend.clickhouse.tables import samples, second_aggregates
from backend.loadtests.models import Test, Upload
from backend.sharing.tests.rows import insert_samples, insert_seconds
from backend.testing import TokenUser, make_token_user


def _rows(test_id: int) -> dict[str, int]:
    return {
        table: int(
            ch.execute(
                f"SELECT count() FROM {table} WHERE test_id = %(id)s", {"id": test_id}, tag="tests.delete.count"
            )[0][0]
        )
        for table in (samples.NAME, second_aggregates.NAME)
    }


@pytest.fixture
def stored(db: None, clickhouse: None, redis_db: object) -> tuple[TokenUser, Test]:
    try:
        resolve("/api/v1/tests/1/")
    except Resolver404:
        pytest.skip("DELETE /api/v1/tests/<id>/ is not mounted yet")
    alice = make_token_user("alice")
    test = Test.objects.create(owner=alice.user, name="to delete", status="ready", has_stream=True)
    upload = Upload.objects.create(test=test, status="ready")
    insert_seconds(test.pk, 0, 5, fast_ms=10, slow_ms=20, fast=9, slow=1)
    insert_samples(test.pk, upload.pk, [5, 6, 7])
    Test.objects.filter(pk=test.pk).update(active_upload=upload)
    return alice, test


def test_strangers_cannot_delete_and_nothing_goes(stored: tuple[TokenUser, Test]) -> None:
    alice, test = stored
    bob = make_token_user("bob")
    before = _rows(test.pk)
    assert before == {samples.NAME: 3, second_aggregates.NAME: 5}
    for client in (APIClient(), bob.client()):
        response = client.delete(f"/api/v1/tests/{test.pk}/")
        assert response.status_code in (401, 403), response.content
    session = APIClient(enforce_csrf_checks=True)
    session.force_login(alice.user)
    assert session.delete(f"/api/v1/tests/{test.pk}/").status_code == 403  # session writes need the CSRF token
    assert Test.objects.filter(pk=test.pk).exists()
    assert Upload.objects.filter(test_id=test.pk).count() == 1
    assert _rows(test.pk) == before


def test_staff_may_delete_and_both_stores_forget_the_test(stored: tuple[TokenUser, Test]) -> None:
    _alice, test = stored
    other = Test.objects.create(owner=test.owner, name="kept", has_stream=True)
    insert_seconds(other.pk, 0, 3, fast_ms=10, slow_ms=20, fast=9, slow=1)
    operator = make_token_user("operator", staff=True)
    response = operator.client().delete(f"/api/v1/tests/{test.pk}/")
    assert response.status_code in (200, 202, 204), response.content
    assert not Test.objects.filter(pk=test.pk).exists()
    assert not Upload.objects.filter(test_id=test.pk).exists()
    # ClickHouse 18.16 applies a DELETE mutation in the background: wait for it, boundedly.
    deadline = time.monotonic() + 20
    while _rows(test.pk) != {samples.NAME: 0, second_aggregates.NAME: 0} and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _rows(test.pk) == {samples.NAME: 0, second_aggregates.NAME: 0}
    assert _rows(other.pk)[second_aggregates.NAME] == 3  # only that test's rows
