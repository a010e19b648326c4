"""Upgrading an install from the schema before projects: every test, token, baseline, KPI set and subscription is
kept, lands in the project "default", and each test is readable by exactly the people who could read it before."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser, User

from backend.loadtests import permissions
from backend.loadtests.models import ApiToken, Test
from backend.loadtests.tokens import hash_token, resolve_token
from backend.notify.models import Subscription
from backend.projects.access import role_of
from backend.projects.models import Membership, Project, Role, Visibility
from backend.projects.tests.migrating import migrate
from backend.regressions import baselines
from backend.regressions.models import ComponentKpis

BEFORE = [
    ("loadtests", "0003_hash_upload_tokens"),
    ("regressions", "0001_initial"),
    ("notify", "0001_initial"),
]
UNDO_PROJECTS = [*BEFORE, ("projects", None)]


def _old_can_read(user: Any, test: Any) -> bool:
    """The rule before projects (permissions.py at the previous schema)."""
    if user is not None and (user.is_staff or test.owner_id == user.pk):
        return True
    return not test.is_private


@pytest.mark.django_db(transaction=True)
def test_an_install_from_before_projects_keeps_everything_readable_by_the_same_people() -> None:
    old = migrate(UNDO_PROJECTS).loader.project_state(BEFORE).apps
    OldUser = old.get_model("auth", "User")
    OldTest = old.get_model("loadtests", "Test")
    alice = OldUser.objects.create(username="alice")
    bob = OldUser.objects.create(username="bob")
    carol = OldUser.objects.create(username="carol", is_staff=True)
    dave = OldUser.objects.create(username="dave")  # never uploaded: read public tests, could have uploaded
    old_tests = [
        OldTest.objects.create(owner_id=alice.pk, name="alice public", component="checkout"),
        OldTest.objects.create(owner_id=alice.pk, name="alice private", component="checkout", is_private=True),
        OldTest.objects.create(owner_id=bob.pk, name="bob public", component="search"),
        OldTest.objects.create(owner_id=bob.pk, name="bob private", component="search", is_private=True),
    ]
    raw_tokens = {alice.pk: "tdm_alice-token", bob.pk: "tdm_bob-token"}
    OldToken = old.get_model("loadtests", "ApiToken")
    for user_id, raw in raw_tokens.items():
        OldToken.objects.create(user_id=user_id, name="ci", key_prefix=raw[:10], key_hash=hash_token(raw))
    old.get_model("regressions", "BaselineMark").objects.create(component="checkout", test=old_tests[0], set_by=alice)
    old.get_model("regressions", "ComponentKpis").objects.create(
        component="checkout", kpis=[{"kpi": "q99", "threshold": {"kind": "absolute", "value": 250}}]
    )
    target = old.get_model("notify", "Target").objects.create(owner_id=alice.pk, kind="webhook", name="team hook")
    old.get_model("notify", "Subscription").objects.create(target=target, component="checkout", events=["x"])
    readers_before = {
        t.pk: {u.username for u in (alice, bob, carol, dave) if _old_can_read(u, t)}
        | ({""} if not t.is_private else set())
        for t in old_tests
    }

    migrate()

    default = Project.objects.get(slug="default")
    tests = {t.pk: t for t in Test.objects.all()}
    assert set(tests) == {t.pk for t in old_tests}
    assert {t.project_id for t in tests.values()} == {default.pk}
    assert tests[old_tests[1].pk].visibility == Visibility.OWNER
    assert tests[old_tests[0].pk].visibility == Visibility.PUBLIC
    users = {u.username: u for u in User.objects.all()}
    for test_id, test in tests.items():
        readers = {name for name, user in users.items() if permissions.can_read(user, test)}
        if permissions.can_read(AnonymousUser(), test):
            readers.add("")
        assert readers == readers_before[test_id], test.name
        # the lists show what the details do
        for name, user in users.items():
            listed = permissions.readable_tests(user).filter(pk=test_id).exists()
            assert listed == (name in readers), (name, test.name)
        owner = users[test.owner.username]
        assert permissions.can_write(owner, test)
    # Owners of tests and tokens are the default project's admins; the others hold the default role.
    roles = {m.user.username: m.role for m in Membership.objects.filter(project=default)}
    assert roles == {"alice": Role.ADMIN, "bob": Role.ADMIN, "carol": Role.UPLOADER, "dave": Role.UPLOADER}
    assert role_of(users["carol"], default) == Role.ADMIN  # staff: a site admin
    # Every token still authenticates its user, in the default project, acting with the user's role.
    assert ApiToken.objects.count() == 2
    for user_id, raw in raw_tokens.items():
        token = resolve_token(raw)
        assert token is not None and token.user_id == user_id
        assert token.project_id == default.pk and token.role is None
        assert role_of(token.user, default) == Role.ADMIN
        assert permissions.can_create(token.user)
    # Baselines, KPIs and subscriptions are kept, now the default project's.
    assert baselines.current_baseline(default.pk, "checkout") == tests[old_tests[0].pk]
    assert baselines.current_mark(default.pk, "checkout").project_id == default.pk  # type: ignore[union-attr]
    kpis = ComponentKpis.objects.get(component="checkout")
    assert kpis.project_id == default.pk and kpis.kpis[0]["threshold"]["value"] == 250
    assert Subscription.objects.get(component="checkout").project_id == default.pk

    migrate(UNDO_PROJECTS)  # and back: the private flags again
    back = {t.pk: t.is_private for t in OldTest.objects.all()}
    assert back == {t.pk: t.is_private for t in old_tests}
    migrate()
