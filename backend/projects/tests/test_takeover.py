"""The takeover from issue 30, replayed: a second user uploads a test under another team's component name, then
tries to replace its baseline, raise its q99 threshold to 10^9, clear it, and subscribe his webhook to its events.
Every step is refused, and the team's settings are as they were."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User

from backend.loadtests.models import Test, TestStatus
from backend.loadtests.tokens import create_token
from backend.notify.models import Subscription
from backend.projects.models import AuditEvent, Project, Role, default_project
from backend.regressions import baselines
from backend.regressions.models import ComponentKpis
from backend.testing import api_client_for, grant

pytestmark = pytest.mark.django_db

TEAM = "?project=payments"
Q99_250 = [{"kpi": "q99", "threshold": {"kind": "absolute", "value": 250}}]
Q99_HUGE = [{"kpi": "q99", "threshold": {"kind": "absolute", "value": 1e9}}]


@pytest.fixture
def team() -> dict[str, Any]:
    payments = Project.objects.create(slug="payments", name="Payments")
    alice = User.objects.create_user("alice")
    grant(alice, Role.MAINTAINER, payments)
    alice_api = api_client_for(alice)
    test = Test.objects.create(owner=alice, project=payments, component="checkout", status=TestStatus.READY)
    assert (
        alice_api.post(f"/api/v1/components/checkout/baseline{TEAM}", {"test": test.pk}, format="json").status_code
        == 200
    )
    assert alice_api.put(f"/api/v1/components/checkout/kpis{TEAM}", {"kpis": Q99_250}, format="json").status_code == 200
    return {"project": payments, "test": test, "alice": alice}


def _untouched(team: dict[str, Any]) -> None:
    payments = team["project"]
    assert baselines.current_baseline(payments.pk, "checkout") == team["test"]
    assert ComponentKpis.objects.get(project=payments, component="checkout").kpis == Q99_250
    assert not Subscription.objects.filter(project=payments).exists()


def test_a_second_user_cannot_take_over_another_teams_component(team: dict[str, Any]) -> None:
    mallory = User.objects.create_user("mallory")  # a new account: an uploader of the default project
    api = api_client_for(mallory)
    created = api.post("/api/v1/tests/", {"name": "mine", "component": "checkout"}, format="json")
    assert created.status_code == 201, created.content
    # The upload lands in his project: a component of the same name there, not the team's.
    his = Test.objects.get(pk=created.json()["id"])
    assert his.project == default_project() and created.json()["project"] == "default"
    Test.objects.filter(pk=his.pk).update(status=TestStatus.READY)

    steps = {
        "replace the baseline with his test": api.post(
            f"/api/v1/components/checkout/baseline{TEAM}", {"test": his.pk}, format="json"
        ),
        "replace the baseline with theirs": api.post(
            f"/api/v1/components/checkout/baseline{TEAM}", {"test": team["test"].pk}
        ),
        "raise q99 to 1e9": api.put(f"/api/v1/components/checkout/kpis{TEAM}", {"kpis": Q99_HUGE}, format="json"),
        "clear the thresholds": api.put(f"/api/v1/components/checkout/kpis{TEAM}", {"kpis": []}, format="json"),
        "clear the baseline": api.delete(f"/api/v1/components/checkout/baseline{TEAM}"),
    }
    hook = api.post(
        "/api/v1/notify/targets/", {"kind": "webhook", "name": "exfil", "url": "http://127.0.0.1:9/h"}, format="json"
    )
    assert hook.status_code == 201  # his own target: fine
    steps["subscribe his webhook"] = api.post(
        f"/api/v1/components/checkout/subscriptions/{TEAM}",
        {"target": hook.json()["id"], "events": ["test_finished", "regression_found", "test_failed"]},
        format="json",
    )
    for step, answer in steps.items():
        assert answer.status_code == 403, (step, answer.status_code, answer.content)
        assert "maintainer role in project 'payments'" in answer.json()["error"], step
    _untouched(team)

    # Even a maintainer of his own project only changes the component of that name in his own project.
    grant(mallory, Role.MAINTAINER)
    assert api.post("/api/v1/components/checkout/baseline", {"test": his.pk}, format="json").status_code == 200
    assert api.put("/api/v1/components/checkout/kpis", {"kpis": Q99_HUGE}, format="json").status_code == 200
    # ... and a test of his project cannot be made the team's baseline, whoever asks.
    judged_in = api_client_for(team["alice"]).post(
        f"/api/v1/components/checkout/baseline{TEAM}", {"test": his.pk}, format="json"
    )
    assert judged_in.status_code == 404
    _untouched(team)
    # Nothing of his reached the team's audit log; the team's own changes are there.
    actions = list(AuditEvent.objects.filter(project=team["project"]).values_list("action", "actor__username"))
    assert sorted(actions) == [("baseline.set", "alice"), ("kpis.set", "alice")]


def test_a_ci_token_uploads_into_its_project_and_cannot_change_baselines(team: dict[str, Any]) -> None:
    _token, raw = create_token(team["alice"], "ci", project=team["project"], role=Role.UPLOADER)
    ci = api_client_for(team["alice"])
    ci.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    created = ci.post("/api/v1/tests/", {"name": "nightly", "component": "checkout"}, format="json")
    assert created.status_code == 201 and created.json()["project"] == "payments"
    # The component routes take the token's project when none is named.
    assert ci.get("/api/v1/components/checkout/kpis").json()["kpis"] == Q99_250
    refused = {
        "baseline": ci.post("/api/v1/components/checkout/baseline", {"test": created.json()["id"]}, format="json"),
        "kpis": ci.put("/api/v1/components/checkout/kpis", {"kpis": Q99_HUGE}, format="json"),
        "clear": ci.delete("/api/v1/components/checkout/baseline"),
    }
    for step, answer in refused.items():
        assert answer.status_code == 403, step
        assert answer.json()["error"].endswith("you are uploader"), answer.json()
    # Another project's component is none of the token's business, even for a site admin's token.
    Project.objects.create(slug="other", name="Other")
    assert ci.get("/api/v1/components/checkout/kpis?project=other").status_code == 200  # reading is public
    assert ci.put("/api/v1/components/checkout/kpis?project=other", {"kpis": []}, format="json").status_code == 403
    _untouched(team)
