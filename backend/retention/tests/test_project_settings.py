"""A project's retention and quota overrides through the API: its admins (and site admins) read and set them,
audited; others are refused; bad values get a 400 naming the field and change nothing."""

from __future__ import annotations

from typing import Any

import pytest

from backend.projects.models import AuditEvent, Project, Role
from backend.retention.policy import project_policy
from backend.testing import grant, make_token_user


@pytest.mark.django_db
def test_project_admins_set_retention_and_quota(settings: Any, redis_db: Any) -> None:
    settings.TANKODROM_RETENTION_RAW_DAYS = 30
    settings.TANKODROM_RETENTION_AGGREGATES_DAYS = 365
    team = Project.objects.create(slug="team", name="Team")
    admin, uploader, stranger = (make_token_user(n) for n in ("admin", "uploader", "stranger"))
    grant(admin.user, Role.ADMIN, team)
    grant(uploader.user, Role.UPLOADER, team)
    url = "/api/v1/projects/team/retention"

    read = admin.client().get(url)
    assert read.status_code == 200, read.content
    assert read.json()["retention_raw_days"] is None and read.json()["effective"]["raw_days"] == 30
    assert uploader.client().get(url).status_code == 403
    assert uploader.client().patch(url, {"quota_bytes": 1}, format="json").status_code == 403
    assert stranger.client().patch(url, {"quota_bytes": 1}, format="json").status_code == 404

    changed = admin.client().patch(url, {"retention_raw_days": 7, "quota_bytes": 10**9}, format="json")
    assert changed.status_code == 200, changed.content
    assert changed.json()["effective"] == {"raw_days": 7, "aggregates_days": 365, "quota_bytes": 10**9}
    team.refresh_from_db()
    assert (team.retention_raw_days, team.retention_aggregates_days, team.quota_bytes) == (7, None, 10**9)
    assert project_policy(team).raw_days == 7
    event = AuditEvent.objects.get(action="project.retention")
    assert event.actor == admin.user and event.project == team
    assert event.details == {
        "old": {"retention_raw_days": None, "quota_bytes": None},
        "new": {"retention_raw_days": 7, "quota_bytes": 10**9},
    }

    for body, field in (
        ({"retention_raw_days": -1}, "retention_raw_days"),
        ({"retention_aggregates_days": 10**9}, "retention_aggregates_days"),
        ({"quota_bytes": -5}, "quota_bytes"),
        ({"quota_bytes": 2**70}, "quota_bytes"),
        ({"quota_bytes": "lots"}, "quota_bytes"),
        ({"retention_raw_days": True}, "retention_raw_days"),
        ({"owner": 1}, "owner"),
    ):
        refused = admin.client().patch(url, body, format="json")
        assert refused.status_code == 400, (body, refused.content)
        assert refused.json()["error"].startswith(f"{field}:")
    team.refresh_from_db()
    assert (team.retention_raw_days, team.quota_bytes) == (7, 10**9)
    assert AuditEvent.objects.filter(action="project.retention").count() == 1

    staff = make_token_user("site", staff=True)
    back = staff.client().patch(url, {"retention_raw_days": None}, format="json")
    assert back.status_code == 200 and back.json()["effective"]["raw_days"] == 30
