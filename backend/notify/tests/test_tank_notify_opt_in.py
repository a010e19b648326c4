"""Issue 29: a tank's `notify: [alice]` reaches alice only if she is a member of the test's project and allowed it
there herself (PATCH /api/v1/projects/<slug>/membership/ {"tank_notify": true}). Everyone else it names is skipped
silently: a skipped delivery in their own log naming why, nothing the pusher can see, nothing of the test in it."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from backend.loadtests.models import Test, TestStatus
from backend.notify import tasks
from backend.notify.models import Delivery, DeliveryStatus
from backend.notify.tests.receivers import Receiver
from backend.projects.models import AuditEvent, Membership, Project, Role, default_project
from backend.testing import api_client_for, grant, make_token_user

pytestmark = pytest.mark.django_db


def allow(api: APIClient, slug: str = "default", allowed: bool = True) -> Any:
    return api.patch(f"/api/v1/projects/{slug}/membership/", {"tank_notify": allowed}, format="json")


def target(api: APIClient, url: str) -> None:
    answer = api.post("/api/v1/notify/targets/", {"kind": "slack", "name": "mine", "url": url}, format="json")
    assert answer.status_code == 201, answer.content


def test_notify_reaches_only_members_who_allowed_it_and_the_others_are_skipped_silently(
    owner: User, owner_api: APIClient
) -> None:
    alice, bob, carol = (User.objects.create_user(name, password="x") for name in ("alice", "bob", "carol"))
    apis = {user.username: api_client_for(user) for user in (alice, bob, carol)}
    other = Project.objects.create(slug="other", name="Other")
    grant(carol, Role.UPLOADER, other)
    Membership.objects.filter(user=carol, project=default_project()).delete()  # carol: no member of "default"
    assert allow(apis["alice"]).status_code == 200
    assert allow(apis["carol"], "other").status_code == 200  # allowed, but for another project
    with Receiver() as rx:
        for name, api in apis.items():
            target(api, f"{rx.url}/{name}")
        test = Test.objects.create(
            owner=owner,
            name="nightly",
            component="api",
            status=TestStatus.READY,
            notify=["alice", "bob", "carol", "zed"],  # zed: nobody
        )
        created = tasks.notify_test.apply(args=(test.pk,)).get()
        assert len(created) == 1
        assert [r.path for r in rx.got] == ["/alice"]
    log = {d.target.owner.username: d for d in Delivery.objects.select_related("target__owner")}
    assert log["alice"].status == DeliveryStatus.SENT
    assert (log["bob"].status, log["bob"].attempts, log["bob"].message) == (DeliveryStatus.SKIPPED, 0, {})
    assert "have not allowed a tank's notify: for project 'default'" in log["bob"].last_error
    assert log["carol"].status == DeliveryStatus.SKIPPED
    assert "no member of project 'default'" in log["carol"].last_error
    # Bob reads why in his own log; the pusher sees none of it, so he learns nothing of who exists or allowed it.
    bobs = apis["bob"].get("/api/v1/components/api/deliveries/").json()
    assert [(d["status"], d["title"]) for d in bobs] == [("skipped", "")]
    assert owner_api.get("/api/v1/components/api/deliveries/").json() == []
    # A second run (Celery may run the task twice) adds nothing.
    assert tasks.notify_test.apply(args=(test.pk,)).get() == []
    assert Delivery.objects.count() == 3


def test_a_member_who_withdraws_is_no_longer_told(owner: User, owner_api: APIClient) -> None:
    alice = User.objects.create_user("alice", password="x")
    api = api_client_for(alice)
    assert allow(api).json()["tank_notify"] is True
    assert allow(api, allowed=False).json()["tank_notify"] is False
    with Receiver() as rx:
        target(api, f"{rx.url}/alice")
        test = Test.objects.create(owner=owner, status=TestStatus.READY, notify=["alice"])
        assert tasks.notify_test.apply(args=(test.pk,)).get() == []
        assert rx.got == []
    assert Delivery.objects.get().status == DeliveryStatus.SKIPPED


def test_the_membership_api_is_each_members_own_and_refuses_what_it_does_not_know(db: None) -> None:
    member = make_token_user("mia")
    api = member.client()
    answer = api.get("/api/v1/projects/default/membership/")
    assert answer.status_code == 200
    assert answer.json() == {"project": "default", "username": "mia", "role": "uploader", "tank_notify": False}
    for body, field in (({"tank_notify": "yes"}, "tank_notify"), ({"tank_notify": 1}, "tank_notify")):
        refused = api.patch("/api/v1/projects/default/membership/", body, format="json")
        assert refused.status_code == 400 and field in refused.json()["error"], refused.content
    # An unknown field is named, and nothing of the body is applied; the role is not the member's to change.
    refused = api.patch("/api/v1/projects/default/membership/", {"tank_notify": True, "role": "admin"}, format="json")
    assert refused.status_code == 400
    assert refused.json()["error"].startswith("role: not a field of your membership"), refused.content
    assert not Membership.objects.get(user=member.user).tank_notify
    assert api.patch("/api/v1/projects/default/membership/", {}, format="json").json()["tank_notify"] is False
    assert allow(api).json() == {"project": "default", "username": "mia", "role": "uploader", "tank_notify": True}
    assert Membership.objects.get(user=member.user).tank_notify
    assert AuditEvent.objects.filter(action="member.tank_notify", target="mia").count() == 1
    allow(api)  # unchanged: not audited again
    assert AuditEvent.objects.filter(action="member.tank_notify").count() == 1
    # A project one is no member of answers like a missing one; a site admin who is no member has nothing to set.
    Project.objects.create(slug="secret", name="Secret")
    missing = api.patch("/api/v1/projects/nope/membership/", {"tank_notify": True}, format="json")
    hidden = api.patch("/api/v1/projects/secret/membership/", {"tank_notify": True}, format="json")
    assert (missing.status_code, hidden.status_code) == (404, 404)
    assert hidden.json()["error"] == missing.json()["error"].replace("nope", "secret")
    staff = make_token_user("sam", staff=True).client()
    assert allow(staff, "secret").status_code == 404
    assert APIClient().patch("/api/v1/projects/default/membership/", {"tank_notify": True}).status_code == 401
