"""Revoking an API token and stopping a test from the web both reach the tank at its next push, in every process:
the push's one round trip to Redis (the append script) checks them, whatever the process's caches still hold."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from backend.loadtests.models import Test
from backend.loadtests.tokens import create_token, revoke_token
from backend.projects.models import Visibility
from backend.tankapi import buffer, lifecycle
from backend.testing import api_client_for

from .conftest import fixture_bytes

pytestmark = pytest.mark.usefixtures("clickhouse", "redis_db")

BODY = fixture_bytes("push_data_bfg_1795316038.json")


def _push(http: Client, test: Test, token: str) -> Any:
    return http.post(
        f"/api/job/{test.pk}/push_data.json?upload_token={test.upload_token}&api_token={token}",
        data=BODY,
        content_type="application/json",
    )


def test_a_revoked_token_is_refused_at_its_next_push(http: Client, tank_user: tuple[Any, str]) -> None:
    user, _token = tank_user
    row, raw = create_token(user, "ci")
    test = lifecycle.create_test(user, {})
    assert _push(http, test, raw).status_code == 200  # the token is now cached as valid in this process
    revoke_token(row)
    refused = _push(http, test, raw)
    assert refused.status_code == 401 and "api_token" in refused.json()["error"]
    assert buffer.backlog() == 1


def test_a_deactivated_users_tokens_are_refused_until_reactivated(http: Client, tank_user: tuple[Any, str]) -> None:
    user, raw = tank_user
    test = lifecycle.create_test(user, {})
    assert _push(http, test, raw).status_code == 200
    user.is_active = False
    user.save()
    assert _push(http, test, raw).status_code == 401
    user.is_active = True
    user.save()
    assert _push(http, test, raw).status_code == 200


def test_stop_from_the_web_refuses_the_next_push_and_the_status_call(http: Client, tank_user: tuple[Any, str]) -> None:
    user, raw = tank_user
    test = lifecycle.create_test(user, {})
    assert _push(http, test, raw).status_code == 200  # cached as online in this process
    api = api_client_for(user)
    assert api.get(f"/api/v1/tests/{test.pk}/").json()["stop_requested"] is False
    answer = api.post(f"/api/v1/tests/{test.pk}/stop")
    assert (answer.status_code, answer.json()) == (202, {"id": test.pk, "status": "stopping"})
    assert api.get(f"/api/v1/tests/{test.pk}/").json()["stop_requested"] is True
    stopped = _push(http, test, raw)
    assert stopped.status_code == 410 and "stopped from the web" in stopped.json()["error"]
    monitoring = http.post(
        f"/api/monitoring/receiver/push?job_id={test.pk}&upload_token={test.upload_token}",
        data=fixture_bytes("monitoring_1795316039.json"),
        content_type="",
    )
    assert monitoring.status_code == 410
    status = http.patch(f"/api/v2/jobs/{test.pk}/?upload_token={test.upload_token}", data=b'{"status": "shoot 50"}')
    assert status.status_code == 410
    assert http.patch(f"/api/v2/jobs/{test.pk}/?upload_token=wrong", data=b"{}").status_code == 200
    assert buffer.backlog() == 1
    # Asking twice is harmless; once the tank closes, the test records why it ended.
    assert api.post(f"/api/v1/tests/{test.pk}/stop").status_code == 202
    assert http.get(f"/api/job/{test.pk}/close.json?exitcode=0&api_token={raw}").status_code == 200
    test.refresh_from_db()
    assert (test.status, test.exit_reason) == ("processing", "stopped from the web")
    again = api.post(f"/api/v1/tests/{test.pk}/stop")
    assert again.status_code == 409 and "not online" in again.json()["error"]
    assert not buffer.connection().sismember(buffer.STOPPED_TESTS_KEY, str(test.pk))


def test_only_who_may_write_the_test_may_stop_it(tank_user: tuple[Any, str]) -> None:
    user, _raw = tank_user
    public = lifecycle.create_test(user, {})
    private = lifecycle.create_test(user, {})
    Test.objects.filter(pk=private.pk).update(visibility=Visibility.OWNER)
    other = User.objects.create_user("someone", password="x-not-used-3")
    admin = User.objects.create_user("admin", password="x-not-used-4", is_staff=True)
    refused = api_client_for(other).post(f"/api/v1/tests/{public.pk}/stop")
    # The refusal names why, as every other one does: the page shows it where the Stop button failed.
    assert refused.status_code == 403, refused.json()
    assert f"only its owner or a maintainer of project 'default' may change test {public.pk}" in refused.json()["error"]
    assert api_client_for(other).post(f"/api/v1/tests/{private.pk}/stop").status_code == 404
    assert api_client_for(other).post("/api/v1/tests/999999/stop").status_code == 404
    assert Client().post(f"/api/v1/tests/{public.pk}/stop").status_code in (401, 403)
    assert not Test.objects.filter(stop_request__isnull=False).exists()
    assert api_client_for(admin).post(f"/api/v1/tests/{private.pk}/stop").status_code == 202
