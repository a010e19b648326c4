"""The projects API: site admins create projects, project admins manage members and read the audit log, and a
project the caller holds no role in answers like a missing one."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from backend.loadtests.models import Test
from backend.projects.models import Project, Role
from backend.testing import api_client_for, grant

pytestmark = pytest.mark.django_db


def test_admins_manage_members_and_read_the_audit_log() -> None:
    root = api_client_for(User.objects.create_user("root", is_staff=True))
    made = root.post("/api/v1/projects/", {"slug": "payments", "name": "Payments"}, format="json")
    assert made.status_code == 201 and made.json()["role"] == "admin"
    bad = root.post("/api/v1/projects/", {"slug": "Bad Slug", "name": "x"}, format="json")
    assert bad.status_code == 400 and "slug" in bad.json()["error"]
    payments = Project.objects.get(slug="payments")
    alice, bob = User.objects.create_user("alice"), User.objects.create_user("bob")
    grant(alice, Role.ADMIN, payments)
    alice_api, bob_api = api_client_for(alice), api_client_for(bob)
    assert bob_api.post("/api/v1/projects/", {"slug": "mine", "name": "x"}, format="json").status_code == 403

    # Not a member: the project is missing to him, on every route.
    for answer in (
        bob_api.get("/api/v1/projects/payments/members/"),
        bob_api.post("/api/v1/projects/payments/members/", {"username": "bob", "role": "admin"}, format="json"),
        bob_api.get("/api/v1/projects/payments/audit/"),
    ):
        assert answer.status_code == 404 and answer.json()["error"] == "project 'payments' not found"
    assert [p["slug"] for p in bob_api.get("/api/v1/projects/").json()] == ["default"]

    added = alice_api.post("/api/v1/projects/payments/members/", {"username": "bob", "role": "viewer"}, format="json")
    assert added.status_code == 201
    assert bob_api.get("/api/v1/projects/").json()[1] == {
        "slug": "payments",
        "name": "Payments",
        "role": "viewer",
        "default_visibility": "public",
    }
    # A viewer reads the members, and is refused the rest with the role it needs.
    assert {m["username"] for m in bob_api.get("/api/v1/projects/payments/members/").json()} == {"alice", "bob"}
    refused = bob_api.patch("/api/v1/projects/payments/members/bob/", {"role": "admin"}, format="json")
    assert refused.status_code == 403 and "admin role in project 'payments'; you are viewer" in refused.json()["error"]
    assert bob_api.get("/api/v1/projects/payments/audit/").status_code == 403
    unknown = alice_api.post(
        "/api/v1/projects/payments/members/", {"username": "nobody", "role": "viewer"}, format="json"
    )
    assert unknown.status_code == 404 and "username" in unknown.json()["error"]
    wrong_role = alice_api.patch("/api/v1/projects/payments/members/bob/", {"role": "owner"}, format="json")
    assert wrong_role.status_code == 400 and "role" in wrong_role.json()["error"]

    assert (
        alice_api.patch("/api/v1/projects/payments/members/bob/", {"role": "maintainer"}, format="json").status_code
        == 200
    )
    test = Test.objects.create(owner=alice, project=payments, name="t", visibility="project")
    assert bob_api.get(f"/api/v1/tests/{test.pk}/").status_code == 200
    assert alice_api.delete("/api/v1/projects/payments/members/bob/").status_code == 204
    # Removed: he loses access at once.
    assert bob_api.get(f"/api/v1/tests/{test.pk}/").status_code == 404

    log = alice_api.get("/api/v1/projects/payments/audit/").json()
    actions = [(e["actor"], e["action"], e["target"]) for e in log]
    assert ("alice", "member.add", "bob") in actions and ("alice", "member.role", "bob") in actions
    assert ("alice", "member.remove", "bob") in actions
    only = alice_api.get("/api/v1/projects/payments/audit/?action=member.role&actor=alice").json()
    assert [(e["action"], e["details"]) for e in only] == [("member.role", {"role": "maintainer", "before": "viewer"})]
