"""The notifications API: validation naming the field, each user's own targets and subscriptions only."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from backend.loadtests.models import Test, TestStatus
from backend.notify.models import Delivery, Event, Target
from backend.projects.models import Project, Role
from backend.testing import grant

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"kind": "slack", "name": "x"}, "url: required"),
        ({"kind": "slack", "name": "x", "url": "ftp://files"}, "url: an http(s) URL"),
        ({"kind": "telegram", "name": "x", "token": "nope", "chat_id": "1"}, "token: a Telegram bot token"),
        ({"kind": "telegram", "name": "x", "token": "123456:" + "a" * 30, "chat_id": "x y"}, "chat_id:"),
        ({"kind": "email", "name": "x", "url": "http://a"}, "kind:"),
        ({"kind": "slack", "url": "http://a"}, "name:"),
    ],
)
def test_bad_targets_are_refused_naming_the_field(owner_api: APIClient, body: dict[str, Any], message: str) -> None:
    answer = owner_api.post("/api/v1/notify/targets/", body, format="json")
    assert answer.status_code == 400
    assert answer.json()["error"].startswith(message)


def test_targets_subscriptions_and_deliveries_are_each_users_own(
    owner: User, owner_api: APIClient, other_api: APIClient, anon_api: APIClient
) -> None:
    assert anon_api.get("/api/v1/notify/targets/").status_code == 401
    assert anon_api.get("/api/v1/components/api/deliveries/").status_code == 401
    mine = owner_api.post(
        "/api/v1/notify/targets/", {"kind": "slack", "name": "m", "url": "http://127.0.0.1:9/b"}, format="json"
    ).json()
    assert other_api.get("/api/v1/notify/targets/").json() == []
    assert other_api.delete(f"/api/v1/notify/targets/{mine['id']}/").status_code == 403
    assert other_api.delete(f"/api/v1/notify/targets/{10**9}/").status_code == 403  # missing looks the same
    grant(User.objects.get(username="other"), Role.MAINTAINER)  # a say in the component, not in the target
    stolen = other_api.post(
        "/api/v1/components/api/subscriptions/", {"target": mine["id"], "events": ["test_failed"]}, format="json"
    )
    assert stolen.status_code == 403 and stolen.json()["error"] == f"target {mine['id']} is not one of yours"
    # Subscribing needs a say in the component: a maintainer of its project (or a site admin).
    Project.objects.create(slug="elsewhere", name="Elsewhere")
    outsider = owner_api.post(
        "/api/v1/components/web/subscriptions/?project=elsewhere",
        {"target": mine["id"], "events": ["test_failed"]},
        format="json",
    )
    assert outsider.status_code == 403
    bad_event = owner_api.post(
        "/api/v1/components/api/subscriptions/", {"target": mine["id"], "events": ["exploded"]}, format="json"
    )
    assert bad_event.status_code == 400 and bad_event.json()["error"].startswith("events:")
    sub = owner_api.post(
        "/api/v1/components/api/subscriptions/", {"target": mine["id"], "events": ["test_failed"]}, format="json"
    )
    assert sub.status_code == 201 and sub.json()["target"]["name"] == "m"
    assert len(owner_api.get("/api/v1/components/api/subscriptions/").json()) == 1
    assert other_api.get("/api/v1/components/api/subscriptions/").json() == []
    test = Test.objects.create(owner=owner, component="api", status=TestStatus.FAILED)
    Delivery.objects.create(
        target=Target.objects.get(pk=mine["id"]), test=test, component="api", event=Event.TEST_FAILED, message={}
    )
    assert len(owner_api.get("/api/v1/components/api/deliveries/").json()) == 1
    assert other_api.get("/api/v1/components/api/deliveries/").json() == []
    assert other_api.delete(f"/api/v1/components/api/subscriptions/{sub.json()['id']}/").status_code == 403
    assert owner_api.delete(f"/api/v1/components/api/subscriptions/{sub.json()['id']}/").status_code == 204
    assert owner_api.delete(f"/api/v1/notify/targets/{mine['id']}/").status_code == 204
