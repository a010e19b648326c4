"""Issue 29's migration: every existing membership gets `tank_notify` off (a tank's `notify:` reaches nobody until
they allow it themselves), nothing else of it changes, and the migration runs backwards."""

from __future__ import annotations

import pytest
from django.db import connection

from backend.projects.models import Membership, Role
from backend.projects.tests.migrating import migrate

BEFORE = [("projects", "0001_i30_projects")]
AFTER = [("projects", "0002_i29_member_tank_notify")]


@pytest.mark.django_db(transaction=True)
def test_existing_memberships_do_not_allow_tank_notify_until_their_members_say_so() -> None:
    old = migrate(BEFORE).loader.project_state(BEFORE).apps
    user = old.get_model("auth", "User").objects.create(username="alice")
    project = old.get_model("projects", "Project").objects.create(slug="team", name="Team")
    membership = old.get_model("projects", "Membership").objects.create(
        project_id=project.pk, user_id=user.pk, role=int(Role.MAINTAINER)
    )
    assert "tank_notify" not in {f.name for f in old.get_model("projects", "Membership")._meta.get_fields()}

    migrate(AFTER)
    migrate()
    after = Membership.objects.get(pk=membership.pk)
    assert (after.tank_notify, after.role, after.user_id, after.project_id) == (
        False,
        Role.MAINTAINER,
        user.pk,
        project.pk,
    )
    after.tank_notify = True
    after.save()

    migrate(BEFORE)  # and back: the column goes, the membership stays
    with connection.cursor() as cursor:
        cursor.execute(f'SELECT role FROM "{Membership._meta.db_table}" WHERE id = %s', [membership.pk])
        assert cursor.fetchall() == [(int(Role.MAINTAINER),)]
    migrate()
    assert Membership.objects.get(pk=membership.pk).tank_notify is False
