"""POST /api/v1/tokens/ with `project` and `role`: a token scoped to a project and capped at a role, never more than
its maker holds (nor than the token he acts through); the answer and the audit event show the scope."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from backend.loadtests.models import ApiToken, Test, TestStatus
from backend.loadtests.tokens import create_token
from backend.projects.models import AuditEvent, Project, Role
from backend.regressions import baselines
from backend.regressions.models import ComponentKpis
from backend.testing import api_client_for, grant

pytestmark = pytest.mark.django_db

TEAM = "?project=payments"
Q99_250 = [{"kpi": "q99", "threshold": {"kind": "absolute", "value": 250}}]


@pytest.fixture
def team() -> dict[str, Any]:
    payments = Project.objects.create(slug="payments", name="Payments")
    Project.objects.create(slug="secret", name="Secret")  # alice is no member of it
    alice = User.objects.create_user("alice")
    grant(alice, Role.MAINTAINER, payments)
    api = api_client_for(alice)
    test = Test.objects.create(owner=alice, project=payments, component="checkout", status=TestStatus.READY)
    assert api.post(f"/api/v1/components/checkout/baseline{TEAM}", {"test": test.pk}, format="json").status_code == 200
    assert api.put(f"/api/v1/components/checkout/kpis{TEAM}", {"kpis": Q99_250}, format="json").status_code == 200
    return {"project": payments, "test": test, "alice": alice, "api": api}


def _client(raw: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    return client


def test_a_scoped_token_shows_its_scope_and_is_audited(team: dict[str, Any]) -> None:
    answer = team["api"].post(
        "/api/v1/tokens/", {"name": "ci", "project": "payments", "role": "uploader"}, format="json"
    )
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert (body["project"], body["role"]) == ("payments", "uploader")
    token = ApiToken.objects.get(pk=body["id"])
    assert (token.project, token.role) == (team["project"], Role.UPLOADER)
    listed = {t["id"]: t for t in team["api"].get("/api/v1/tokens/").json()}
    assert (listed[token.pk]["project"], listed[token.pk]["role"]) == ("payments", "uploader")
    event = AuditEvent.objects.get(action="token.create", target=token.key_prefix)
    assert event.project == team["project"] and event.actor == team["alice"]
    assert event.details == {"name": "ci", "project": "payments", "role": "uploader"}
    # Unscoped, as before: no project, no role.
    plain = team["api"].post("/api/v1/tokens/", {"name": "mine"}, format="json").json()
    assert (plain["project"], plain["role"]) == (None, None)


def test_the_ci_token_uploads_and_cannot_change_a_baseline(team: dict[str, Any]) -> None:
    raw = (
        team["api"].post("/api/v1/tokens/", {"project": "payments", "role": "uploader"}, format="json").json()["token"]
    )
    ci = _client(raw)
    created = ci.post("/api/v1/tests/", {"name": "nightly", "component": "checkout"}, format="json")
    assert created.status_code == 201 and created.json()["project"] == "payments"
    for answer in (
        ci.post("/api/v1/components/checkout/baseline", {"test": created.json()["id"]}, format="json"),
        ci.delete("/api/v1/components/checkout/baseline"),
        ci.put("/api/v1/components/checkout/kpis", {"kpis": []}, format="json"),
    ):
        assert answer.status_code == 403, answer.content
        assert "maintainer" in answer.json()["error"] and answer.json()["error"].endswith("you are uploader")
    assert baselines.current_baseline(team["project"].pk, "checkout") == team["test"]
    assert ComponentKpis.objects.get(project=team["project"], component="checkout").kpis == Q99_250
    # Nor can it make itself a bigger token: what it makes is within its own scope.
    bigger = ci.post("/api/v1/tokens/", {"role": "maintainer"}, format="json")
    assert bigger.status_code == 403 and bigger.json()["error"].startswith("role:"), bigger.content
    inherited = ci.post("/api/v1/tokens/", {"name": "copy"}, format="json").json()
    assert (inherited["project"], inherited["role"]) == ("payments", "uploader")
    elsewhere = ci.post("/api/v1/tokens/", {"project": "default"}, format="json")
    assert elsewhere.status_code == 404 and elsewhere.json()["error"].startswith("project:"), elsewhere.content


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ({"project": "payments", "role": "admin"}, 403, "role"),  # alice is a maintainer there
        ({"project": "secret", "role": "viewer"}, 404, "project"),  # not a member: as if it did not exist
        ({"project": "nowhere"}, 404, "project"),
        ({"project": "payments", "role": "owner"}, 400, "role"),
        ({"project": 7}, 400, "project"),
        ({"role": ["admin"]}, 400, "role"),
    ],
)
def test_a_token_above_the_makers_role_is_refused_naming_the_field(
    team: dict[str, Any], body: dict[str, Any], status: int, field: str
) -> None:
    before = ApiToken.objects.count()
    answer = team["api"].post("/api/v1/tokens/", body, format="json")
    assert answer.status_code == status, answer.content
    assert answer.json()["error"].startswith(f"{field}:"), answer.json()
    assert ApiToken.objects.count() == before
    assert not AuditEvent.objects.filter(action="token.create", details__name="").exists()


def test_a_viewer_token_cannot_write_and_a_site_admin_scopes_anywhere(team: dict[str, Any]) -> None:
    viewer_raw = team["api"].post("/api/v1/tokens/", {"role": "viewer"}, format="json").json()["token"]
    refused = _client(viewer_raw).post("/api/v1/tests/", {"name": "x", "component": "checkout"}, format="json")
    assert refused.status_code == 403, refused.content
    admin = User.objects.create_user("root", is_staff=True)
    _token, raw = create_token(admin, "root")
    answer = _client(raw).post("/api/v1/tokens/", {"project": "secret", "role": "admin"}, format="json")
    assert answer.status_code == 201 and (answer.json()["project"], answer.json()["role"]) == ("secret", "admin")
