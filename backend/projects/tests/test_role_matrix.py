"""Issue 30's role matrix: every write route, with every role and anonymously, against a table of the least each
route needs.

The routes are enumerated as backend/accounts/tests/test_write_endpoints.py enumerates them (every POST/PUT/PATCH/
DELETE of the OpenAPI schema, the phout upload and the tank protocol's writes that the URL map resolves), so a new
write route is walked the day it appears; a route missing from NEEDS fails the test until someone classifies it.

The callers, one user each, acting through an unscoped API token: a viewer, the test's owner (an uploader), another
uploader, a maintainer and an admin of the test's project ("default"), an admin of another project, a site admin,
and no one. The test is visible to its project only.

- A caller below a route's need is refused, with an 'error' message, and nothing changes (every PostgreSQL row of
  the apps, ClickHouse row counts, the tank buffer's Redis keys). Anonymous: 401, or on a route of the test the
  missing test's 404 (a tank push without the job's upload_token: 404); a stranger to the project on a route of the
  test: 404, it does not exist for him; else 401/403/404.
- A caller at or above it is not refused (401/403/404) on every route whose ids name what the fixture makes (the
  test, the project, the component, the token, the member). Each allowed call runs in a savepoint that is rolled
  back, so that a delete does not take the test from the calls after it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import transaction

from backend.accounts.tests.test_write_endpoints import (
    Endpoint,
    Target,
    _forget_tank_caches,
    all_write_endpoints,
    call,
    snapshot,
)
from backend.loadtests.models import ApiToken, Test
from backend.loadtests.tokens import create_token, revoke_token
from backend.projects.models import Membership, Project, Role, Visibility, default_project
from backend.tankapi import buffer
from backend.testing import TokenUser, grant, make_token_user


class Need(enum.Enum):
    SIGNED_IN = "any signed-in user (his own objects)"
    SELF = "the token's own user (a token is a personal secret: not even site admins)"
    MEMBER = "any member of the project (his own membership: a site admin who is no member has none)"
    UPLOADER = "uploader of the project (creates tests)"
    OWN_TEST = "uploader owning the test, or a maintainer of its project"
    PUSH = "the job's upload_token, with the api_token of the test's owner or of a site admin"
    MAINTAINER = "maintainer of the project (any test; component baseline, KPIs, subscriptions)"
    ADMIN = "admin of the project (members, settings)"
    SITE_ADMIN = "site admin"


# The least each write route needs. A new write route fails the test until it is added here.
NEEDS: dict[str, Need] = {
    "POST /api/v1/archives": Need.UPLOADER,
    "POST /api/v1/components/{name}/baseline": Need.MAINTAINER,
    "DELETE /api/v1/components/{name}/baseline": Need.MAINTAINER,
    "PUT /api/v1/components/{name}/kpis": Need.MAINTAINER,
    "POST /api/v1/components/{name}/subscriptions/": Need.MAINTAINER,
    "DELETE /api/v1/components/{name}/subscriptions/{sub_id}/": Need.MAINTAINER,
    "POST /api/v1/notify/targets/": Need.SIGNED_IN,
    "DELETE /api/v1/notify/targets/{target_id}/": Need.SIGNED_IN,
    "POST /api/v1/projects/": Need.SITE_ADMIN,
    "POST /api/v1/projects/{slug}/members/": Need.ADMIN,
    "PATCH /api/v1/projects/{slug}/members/{username}/": Need.ADMIN,
    "DELETE /api/v1/projects/{slug}/members/{username}/": Need.ADMIN,
    "PATCH /api/v1/projects/{slug}/membership/": Need.MEMBER,
    "PATCH /api/v1/projects/{slug}/retention": Need.ADMIN,
    "POST /api/v1/retention/jobs": Need.SITE_ADMIN,
    "POST /api/v1/tests/": Need.UPLOADER,
    "PATCH /api/v1/tests/{test_id}/": Need.OWN_TEST,
    "DELETE /api/v1/tests/{test_id}/": Need.OWN_TEST,
    "PUT /api/v1/tests/{test_id}/monitoring-log": Need.OWN_TEST,
    "POST /api/v1/tests/{test_id}/notes": Need.OWN_TEST,
    "DELETE /api/v1/tests/{test_id}/notes/{note_id}": Need.OWN_TEST,
    "PUT /api/v1/tests/{test_id}/phout": Need.OWN_TEST,
    "PUT /api/v1/tests/{test_id}/results": Need.OWN_TEST,
    "POST /api/v1/tests/{test_id}/star": Need.OWN_TEST,
    "DELETE /api/v1/tests/{test_id}/star": Need.OWN_TEST,
    "POST /api/v1/tests/{test_id}/stop": Need.OWN_TEST,
    "POST /api/v1/tokens/": Need.SIGNED_IN,
    "PATCH /api/v1/tokens/{id}/": Need.SELF,
    "DELETE /api/v1/tokens/{id}/": Need.SELF,
    "tank create.json": Need.UPLOADER,
    "tank edit.json": Need.OWN_TEST,
    "tank configinitial.txt": Need.OWN_TEST,
    "tank configinfo.txt": Need.OWN_TEST,
    "tank jobmonitoringconfig.txt": Need.OWN_TEST,
    "tank close.json": Need.OWN_TEST,
    "tank push_data.json": Need.PUSH,
    "tank monitoring push": Need.PUSH,
}

# Who passes each need. "owner" is the uploader who owns the test; "uploader" another uploader of its project;
# "outsider" an admin of another project; "site_admin" a staff user who is a member of nothing.
CALLERS = ("anonymous", "viewer", "owner", "uploader", "maintainer", "admin", "outsider", "site_admin")
ALLOWED: dict[Need, frozenset[str]] = {
    Need.SIGNED_IN: frozenset(CALLERS) - {"anonymous"},
    Need.SELF: frozenset({"owner"}),
    Need.MEMBER: frozenset({"viewer", "owner", "uploader", "maintainer", "admin"}),
    Need.UPLOADER: frozenset({"owner", "uploader", "maintainer", "admin", "site_admin"}),
    Need.OWN_TEST: frozenset({"owner", "maintainer", "admin", "site_admin"}),
    Need.PUSH: frozenset({"owner", "site_admin"}),
    Need.MAINTAINER: frozenset({"maintainer", "admin", "site_admin"}),
    Need.ADMIN: frozenset({"admin", "site_admin"}),
    Need.SITE_ADMIN: frozenset({"site_admin"}),
}
# Path ids that name objects the fixture does not make (a note, a subscription, a target): they answer 403 or 404
# to everyone (a missing object is not told from someone else's), so only their refusals are checked.
UNMADE_IDS = ("{note_id}", "{sub_id}", "{target_id}")


@dataclass
class Matrix:
    target: Target
    callers: dict[str, TokenUser | None]


@pytest.fixture
def matrix(db: None, clickhouse: None, redis_db: object) -> Matrix:
    owner = make_token_user("alice")
    viewer = make_token_user("bob")  # test_write_endpoints fills {username} with "bob": a member to change
    grant(owner.user, Role.UPLOADER)
    grant(viewer.user, Role.VIEWER)
    callers: dict[str, TokenUser | None] = {"anonymous": None, "owner": owner, "viewer": viewer}
    for name, role in (("uploader", Role.UPLOADER), ("maintainer", Role.MAINTAINER), ("admin", Role.ADMIN)):
        callers[name] = make_token_user(f"the-{name}")
        grant(callers[name].user, role)  # type: ignore[union-attr]
    other = Project.objects.create(slug="other", name="Other")
    outsider = make_token_user("oscar")
    grant(outsider.user, Role.ADMIN, other)
    # New accounts join "default" (TANKODROM_DEFAULT_PROJECT_ROLE): the outsider leaves it.
    Membership.objects.filter(user=outsider.user, project=default_project()).delete()
    callers["outsider"] = outsider
    site_admin = make_token_user("sam", staff=True)
    Membership.objects.filter(user=site_admin.user).delete()  # joined "default" as every new account does: leaves
    callers["site_admin"] = site_admin
    revoked, revoked_raw = create_token(owner.user, name="old")
    revoke_token(revoked)
    test = Test.objects.create(owner=owner.user, name="alice's test", status="online", visibility=Visibility.PROJECT)
    Test.objects.filter(pk=test.pk).update(component=str(test.pk))  # component routes are filled with the test id
    test.component = str(test.pk)  # not refresh_from_db: `upload_token` holds the raw token until then, not its hash
    other_test = Test.objects.create(owner=outsider.user, name="oscar's test", status="online", project=other)
    target = Target(alice=owner, bob=outsider, revoked_raw=revoked_raw, test=test, other_test=other_test)
    return Matrix(target=target, callers=callers)


def credentials(
    endpoint: Endpoint, caller: TokenUser | None, upload_token: str
) -> tuple[dict[str, str], dict[str, str]]:
    """(query, headers) for `caller`; tank pushes carry the job's upload_token whenever someone signed-in calls."""
    query: dict[str, str] = dict(endpoint.extra_query)
    headers: dict[str, str] = {}
    if caller is None:
        return query, headers
    if endpoint.kind == "api":
        headers["HTTP_AUTHORIZATION"] = f"Token {caller.raw_token}"
        return query, headers
    if endpoint.kind == "push":
        query["upload_token"] = upload_token
    query["api_token"] = caller.raw_token
    return query, headers


def _on_the_test(endpoint: Endpoint) -> bool:
    return (
        endpoint.kind != "push"
        and ("{test_id}" in endpoint.name or endpoint.name.startswith("tank "))
        and (endpoint.name != "tank create.json")
    )


def refusal_problem(endpoint: Endpoint, caller: str, response: Any) -> str | None:
    code = response.status_code
    if caller == "anonymous":
        # 401 before any lookup, or the missing test's 404 (the test is its project's; a push without upload_token)
        expected: tuple[int, ...] = (401, 404) if _on_the_test(endpoint) else (401,)
        if endpoint.kind == "push":
            expected = (404,)
    elif caller == "outsider" and _on_the_test(endpoint):
        expected = (404,)  # the test is its project's: to a stranger it does not exist
    else:
        expected = (401, 403, 404)
    if code not in expected:
        return f"expected {expected}, got {code} {response.content[:200]!r}"
    if response.get("Content-Type", "").startswith("application/json") and "error" not in response.json():
        return f"refusal without an 'error' message: {response.content[:200]!r}"
    return None


class _Undo(Exception):
    pass


def call_and_undo(endpoint: Endpoint, query: dict[str, str], headers: dict[str, str]) -> Any:
    """The call's answer; its PostgreSQL writes rolled back, and with them a token revocation it noted in Redis
    (backend/tankapi/revocation.py), so that the calls after it find the fixture's tokens live."""
    response = None
    try:
        with transaction.atomic():
            response = call(endpoint, query, headers)
            raise _Undo
    except _Undo:
        pass
    buffer.unmark_revoked(list(ApiToken.objects.filter(revoked_at__isnull=True).values_list("key_hash", flat=True)))
    return response


def test_every_write_route_with_every_role(matrix: Matrix, redis_db: Any) -> None:
    target = matrix.target
    endpoints = all_write_endpoints(target)
    unclassified = sorted(e.name for e in endpoints if e.name not in NEEDS)
    assert unclassified == [], f"write routes missing from NEEDS (classify them): {unclassified}"
    gone = sorted(set(NEEDS) - {e.name for e in endpoints})
    assert gone == [], f"NEEDS lists routes that no longer exist: {gone}"
    upload = target.test.upload_token
    failures: list[str] = []
    for caller_name, caller in matrix.callers.items():
        refused = [e for e in endpoints if caller_name not in ALLOWED[NEEDS[e.name]]]
        # Refusals change nothing: one snapshot around all of a caller's refusals; when they differ, the calls
        # again one by one to name the culprit.
        before = snapshot(redis_db)
        answers = []
        for endpoint in refused:
            _forget_tank_caches()
            answers.append(call(endpoint, *credentials(endpoint, caller, upload)))
        if snapshot(redis_db) != before:
            for endpoint in refused:
                _forget_tank_caches()
                one_before = snapshot(redis_db)
                call(endpoint, *credentials(endpoint, caller, upload))
                one_after = snapshot(redis_db)
                if one_before != one_after:
                    changed = sorted(k for k in one_before if one_before[k] != one_after.get(k))
                    failures.append(f"{endpoint.name} [{caller_name}]: refused but changed {changed}")
        for endpoint, response in zip(refused, answers, strict=True):
            problem = refusal_problem(endpoint, caller_name, response)
            if problem is not None:
                failures.append(f"{endpoint.name} [{caller_name}, needs {NEEDS[endpoint.name].name}]: {problem}")
        for endpoint in endpoints:
            if caller_name not in ALLOWED[NEEDS[endpoint.name]] or any(i in endpoint.name for i in UNMADE_IDS):
                continue
            _forget_tank_caches()
            response = call_and_undo(endpoint, *credentials(endpoint, caller, upload))
            if response.status_code in (401, 403, 404):
                failures.append(
                    f"{endpoint.name} [{caller_name}, allowed]: refused {response.status_code} "
                    f"{response.content[:200]!r}"
                )
    assert failures == [], "\n".join(failures)
    # Nothing above was a site admin by accident, and the allowed calls were undone.
    assert not User.objects.filter(username__in=["alice", "bob", "oscar"], is_staff=True).exists()
    assert Test.objects.filter(pk=target.test.pk).exists()
