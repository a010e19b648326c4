"""A private test answers exactly as a missing one (same status, same body) to whoever may not read it, on every
URL that names a test: the URL patterns are walked from the resolver, so a new endpoint is checked as it lands.

For each pattern that takes a test id (in its path, or in the query for the few tank and compare calls that take it
there) and each method, an anonymous caller and another user's token call it once with a private test's id and
once with an id that names no test; the two answers must be the same once the ids are blanked out.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import get_resolver, resolve

from backend.core.tests.url_examples import example_path, walk
from backend.loadtests.models import Test
from backend.loadtests.tokens import create_token
from backend.projects.models import Visibility

# Path parameters that name a test (`ids`: several, slash-separated, as the compare pages take them).
TEST_PARAMETERS = {"test_id", "job", "ids"}
# Patterns that take the test in their query instead: URL name -> query parameter.
QUERY_TEST_PARAMETERS = {"tank-push-monitoring": "job_id", "tank-writer": "jobno", "compare": "tests"}
# The tank's pushes are authorised by the test's own upload token, checked on the push path (backend/tankapi/push.py)
# that is rewritten in the same session as this test; listed here so that the walk below still fails on any *new*
# pattern that leaks.
NOT_YET_CHECKED = {"tank-push-data", "tank-push-monitoring", "tank-writer"}
METHODS = ("get", "head", "post", "put", "patch", "delete")


def _test_patterns() -> list[tuple[str, str, str | None]]:
    """(name or regex, regex, query parameter) of every pattern that names a test."""
    found = []
    for regex, pattern in walk(get_resolver().url_patterns):
        groups = set(re.findall(r"\(\?P<(\w+)>", regex))
        query = QUERY_TEST_PARAMETERS.get(pattern.name or "")
        if groups & TEST_PARAMETERS or query:
            found.append((pattern.name or regex, regex, query))
    return found


PATTERNS = _test_patterns()


def test_the_walk_finds_the_test_urls() -> None:
    names = {name for name, _regex, _query in PATTERNS}
    # If the walk found nothing, the test below would prove nothing.
    for expected in (
        "test-summary",
        "tank-job-summary",
        "web-report",
        "sharing-preview-test",
        "compare",
        "upload-list",
    ):
        assert expected in names, names


@pytest.fixture
def world(db: None, clickhouse: None, redis_db: object) -> dict[str, Any]:
    owner = User.objects.create_user("owner")
    other = User.objects.create_user("other")
    _token, other_raw = create_token(other)
    private = Test.objects.create(
        owner=owner, name="secret launch", description="do not tell", visibility=Visibility.OWNER, component="secret"
    )
    public = Test.objects.create(owner=owner, name="public", status="ready")
    missing = private.pk + public.pk + 1000
    return {"private": private.pk, "public": public.pk, "missing": missing, "other_token": other_raw}


def _call(client: Client, method: str, path: str, query: dict[str, str]) -> tuple[int, str]:
    if method in ("get", "head", "delete"):
        response = getattr(client, method)(path, query)
    else:
        qs = "&".join(f"{k}={v}" for k, v in query.items())
        response = getattr(client, method)(f"{path}?{qs}" if qs else path, b"{}", content_type="application/json")
    body = b"".join(response.streaming_content) if response.streaming else response.content
    location = response.get("Location", "")
    return response.status_code, f"{location}\n{body.decode('utf-8', 'replace')}"


@pytest.mark.parametrize(("name", "regex", "query_parameter"), PATTERNS, ids=[p[0] for p in PATTERNS])
@pytest.mark.parametrize("who", ["anonymous", "other"])
def test_a_private_test_answers_as_a_missing_one(
    world: dict[str, Any], name: str, regex: str, query_parameter: str | None, who: str
) -> None:
    if name in NOT_YET_CHECKED:
        pytest.skip("the tank's push path is checked by backend/tankapi's tests")
    answers: dict[tuple[str, str], tuple[int, str]] = {}
    for kind in ("private", "missing"):
        test_id = world[kind]
        ids = f"{test_id}/{world['public']}"
        path = example_path(regex, {"test_id": str(test_id), "job": str(test_id), "ids": ids})
        assert path is not None, f"cannot build a URL for {regex}"
        assert resolve(path).route == resolve(path).route  # it resolves (a bad example would 404 and prove nothing)
        query: dict[str, str] = {}
        if query_parameter is not None:
            query[query_parameter] = ids.replace("/", ",") if query_parameter == "tests" else str(test_id)
        client = Client()
        if who == "other":
            client = Client(HTTP_AUTHORIZATION=f"Token {world['other_token']}")
            if name.startswith(("tank-", "^api/")):
                query["api_token"] = world["other_token"]  # as the tank sends it
        for method in METHODS:
            status, body = _call(client, method, path, query)
            # The id as a whole number only: "%231d232a" in the page's icon is no test 232.
            answers[(kind, method)] = (status, re.sub(rf"(?<![%\w]){test_id}(?!\w)", "<id>", body))
    for method in METHODS:
        private, missing = answers[("private", method)], answers[("missing", method)]
        assert private == missing, f"{method.upper()} {name}: private {private} != missing {missing}"
        assert "secret launch" not in private[1] and "do not tell" not in private[1]


def test_a_component_trend_does_not_list_a_private_test(world: dict[str, Any]) -> None:
    # The private test belongs to component "secret" and has a figure to show; a stranger's trend of it looks like
    # an unknown component's.
    from backend.diagnosis.models import AnalysisStatus, TestAnalysis

    TestAnalysis.objects.create(test_id=world["private"], status=AnalysisStatus.READY, q99_steady_ms=12.5)
    owner = Client()
    owner.force_login(Test.objects.get(pk=world["private"]).owner)
    assert owner.get("/api/v1/components/secret/trend").json()["tests"], "the owner's trend shows the test"
    seen = Client().get("/api/v1/components/secret/trend")
    unknown = Client().get("/api/v1/components/nothing/trend")
    assert seen.status_code == unknown.status_code
    assert seen.content.decode().replace("secret", "X") == unknown.content.decode().replace("nothing", "X")


# ── projects: a project a caller is not a member of answers as a missing one ──────────────────────────────────────

PROJECT_PARAMETERS = {"slug"}


def _project_patterns() -> list[tuple[str, str]]:
    """(name or regex, regex) of every pattern that names a project in its path."""
    found = []
    for regex, pattern in walk(get_resolver().url_patterns):
        if set(re.findall(r"\(\?P<(\w+)>", regex)) & PROJECT_PARAMETERS:
            found.append((pattern.name or regex, regex))
    return found


PROJECT_PATTERNS = _project_patterns()


def test_the_walk_finds_the_project_urls() -> None:
    names = {name for name, _regex in PROJECT_PATTERNS}
    assert {"project-members", "project-member", "project-audit", "project-retention"} <= names, names


@pytest.fixture
def projects_world(db: None) -> dict[str, Any]:
    from backend.projects.models import Project, Role
    from backend.testing import grant

    owner = User.objects.create_user("owner")
    User.objects.create_user("other")  # a member of the default project only
    _token, other_raw = create_token(User.objects.get(username="other"))
    secret = Project.objects.create(slug="secret-launch", name="Secret launch")
    grant(owner, Role.ADMIN, secret)
    return {"private": secret.slug, "missing": "no-such-project", "other_token": other_raw}


@pytest.mark.parametrize(("name", "regex"), PROJECT_PATTERNS, ids=[p[0] for p in PROJECT_PATTERNS])
@pytest.mark.parametrize("who", ["anonymous", "other"])
def test_a_project_answers_a_non_member_as_a_missing_one(
    projects_world: dict[str, Any], name: str, regex: str, who: str
) -> None:
    answers: dict[tuple[str, str], tuple[int, str]] = {}
    for kind in ("private", "missing"):
        slug = projects_world[kind]
        path = example_path(regex, {"slug": slug, "username": "owner"})
        assert path is not None, f"cannot build a URL for {regex}"
        assert resolve(path).url_name == name or name.startswith("^")
        client = Client()
        if who == "other":
            client = Client(HTTP_AUTHORIZATION=f"Token {projects_world['other_token']}")
        for method in METHODS:
            status, body = _call(client, method, path, {})
            answers[(kind, method)] = (status, body.replace(slug, "<slug>"))
    for method in METHODS:
        private, missing = answers[("private", method)], answers[("missing", method)]
        assert private == missing, f"{method.upper()} {name}: private {private} != missing {missing}"
        assert private[0] in (401, 404, 405), private
        assert "Secret launch" not in private[1] and "owner" not in private[1]
