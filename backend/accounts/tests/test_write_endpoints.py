"""Every write endpoint refuses a missing, wrong, revoked and foreign credential with 401/403 (a tank push: 404,
as for a missing job) and changes nothing.

The endpoints are enumerated when the test runs, not listed by hand: every POST/PUT/PATCH/DELETE operation of the
OpenAPI schema, the phout upload, and the tank protocol's writes (create, edit, configs, pushes, close) that the
URL map resolves. A new write endpoint is therefore checked the day it appears. "Nothing changed" compares every
row of the project's PostgreSQL tables, the row count of every ClickHouse table and the Redis keys (the tank's
ingest buffer) before and after.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.apps import apps
from django.contrib.auth.models import User
from django.test import Client
from django.urls import Resolver404, resolve
from drf_spectacular.generators import SchemaGenerator

from backend.clickhouse import client as ch
from backend.loadtests.models import ApiToken, Test
from backend.loadtests.tokens import create_token, revoke_token
from backend.projects.models import Role
from backend.testing import TokenUser, clear_push_caches, grant, make_token_user

PROJECT_APPS = {
    *("loadtests", "tankapi", "uploads", "reports", "compare", "diagnosis", "accounts", "sharing", "web"),
    *("regressions", "notify"),
}
WRITE_METHODS = ("post", "put", "patch", "delete")
# Columns that a valid (foreign) token's mere use may touch without writing anything of substance.
VOLATILE = {"last_used_at"}


@dataclass
class Target:
    """What the credentials act on: alice's test and token; bob is the foreigner."""

    alice: TokenUser
    bob: TokenUser
    revoked_raw: str
    test: Test
    other_test: Test


@dataclass
class Endpoint:
    name: str
    method: str
    path: str  # with the target's ids filled in
    body: bytes = b""
    content_type: str = "application/json"
    kind: str = "api"  # "api": Authorization header; "tank": ?api_token=; "push": ?upload_token= (+ api_token)
    on_object: bool = True  # foreign credentials apply only where an object belongs to someone
    extra_query: dict[str, str] = field(default_factory=dict)


def _fill(path: str, target: Target) -> str:
    token_id = str(target.alice.token.pk)
    test_id = str(target.test.pk)
    if "/projects/" in path:  # alice administers the default project; bob is a member of it
        return path.replace("{slug}", "default").replace("{username}", "bob")
    return re.sub(r"\{[^}]+\}", token_id if "/tokens/" in path else test_id, path)


_BODIES: dict[tuple[str, str], bytes] = {
    ("post", "/api/v1/tests/"): json.dumps({"name": "intruder", "component": "x"}).encode(),
    ("post", "/api/v1/tokens/"): json.dumps({"name": "intruder"}).encode(),
}


# Paths whose ids do not name someone's object: what they change is the caller's own (his membership of the project).
CALLERS_OWN = frozenset({"/api/v1/projects/{slug}/membership/"})


def schema_write_endpoints(target: Target) -> list[Endpoint]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    found: list[Endpoint] = []
    for path, operations in sorted(schema.get("paths", {}).items()):
        for method in WRITE_METHODS:
            if method not in operations:
                continue
            body = _BODIES.get((method, path), json.dumps({"name": "changed by intruder"}).encode())
            content_type = "application/json"
            if path.endswith("/phout"):
                body, content_type = b"1700000000.000\t\t1000\t10\t10\t970\t10\t0\t100\t200\t0\t200\n", "text/plain"
            found.append(
                Endpoint(
                    name=f"{method.upper()} {path}",
                    method=method,
                    path=_fill(path, target),
                    body=b"" if method == "delete" else body,
                    content_type=content_type,
                    on_object="{" in path and path not in CALLERS_OWN,
                )
            )
    return found


def _resolves(path: str) -> bool:
    try:
        match = resolve(path.split("?")[0])
    except Resolver404:
        return False
    return not match.func.__module__.startswith("backend.web")  # the SPA's pages are not write endpoints


def other_write_endpoints(target: Target) -> list[Endpoint]:
    """Writes outside the OpenAPI schema: the phout upload (if a plain view) and the tank protocol."""
    job = target.test.pk
    push_item = [{"overall": 1, "trail": {}, "interval": 1}]
    candidates = [
        Endpoint("PUT phout", "put", f"/api/v1/tests/{job}/phout", b"1700000000.000\t\t1000\n", "text/plain"),
        Endpoint(
            "tank create.json",
            "post",
            "/api/job/create.json",
            json.dumps({"task": "", "person": "x", "tank": "t", "host": "h", "port": 80, "loadscheme": []}).encode(),
            kind="tank",
            on_object=False,
        ),
        Endpoint("tank edit.json", "post", f"/api/job/{job}/edit.json", b'{"name": "intruder"}', kind="tank"),
        *[
            Endpoint(
                f"tank {name}.txt",
                "post",
                f"/api/job/{job}/{name}.txt",
                f"{name if name != 'jobmonitoringconfig' else 'monitoringconfig'}=intruder".encode(),
                "application/x-www-form-urlencoded",
                kind="tank",
            )
            for name in ("configinitial", "configinfo", "jobmonitoringconfig")
        ],
        Endpoint(
            "tank push_data.json", "post", f"/api/job/{job}/push_data.json", json.dumps(push_item).encode(), kind="push"
        ),
        Endpoint(
            "tank monitoring push",
            "post",
            "/api/monitoring/receiver/push",
            b"[]",
            kind="push",
            extra_query={"job_id": str(job)},
        ),
        Endpoint("tank close.json", "get", f"/api/job/{job}/close.json", kind="tank", extra_query={"exitcode": "0"}),
    ]
    return [e for e in candidates if _resolves(e.path)]


def all_write_endpoints(target: Target) -> list[Endpoint]:
    endpoints = schema_write_endpoints(target)
    seen = {(e.method, e.path) for e in endpoints}
    return endpoints + [e for e in other_write_endpoints(target) if (e.method, e.path) not in seen]


def snapshot(redis_conn: Any) -> dict[str, Any]:
    state: dict[str, Any] = {}
    for model in apps.get_models():
        if model._meta.app_label in PROJECT_APPS:
            rows = list(model._default_manager.order_by("pk").values())
            state[model._meta.label] = [{k: v for k, v in row.items() if k not in VOLATILE} for row in rows]
    state["auth.User"] = list(User.objects.order_by("pk").values_list("pk", "username", "is_staff"))
    for (table,) in ch.execute(
        "SELECT name FROM system.tables WHERE database = %(db)s AND name != 'schema_migrations'",
        {"db": ch.database()},
        tag="tests.write_endpoints.tables",
    ):
        state[f"clickhouse.{table}"] = ch.execute(f"SELECT count() FROM {table}", tag="tests.write_endpoints.count")
    # The tank ingest buffer lives in Redis; Django's cache keys (":1:…", rate-limit counters) are not data.
    state["redis"] = sorted(k for k in redis_conn.keys("*") if not k.startswith(b":1:"))
    return state


def _forget_tank_caches() -> None:
    # The tank protocol caches tokens and tests per process for 30 s / 2 s; ids repeat across test databases.
    clear_push_caches()


# Writes that belong to the site's administrators, not to any test's or project's owner.
SITE_ADMIN_ENDPOINTS = frozenset({"POST /api/v1/retention/jobs"})

Case = tuple[str, Callable[[Endpoint], tuple[dict[str, str], dict[str, str]]]]


def credential_cases(target: Target) -> list[Case]:
    """Each case gives (query parameters, headers) for an endpoint; the right upload_token is sent to push
    endpoints except in the cases about the upload_token itself."""
    upload = target.test.upload_token

    def with_api(raw: str | None, upload_token: str | None = upload) -> Callable[[Endpoint], Any]:
        def make(e: Endpoint) -> tuple[dict[str, str], dict[str, str]]:
            query: dict[str, str] = dict(e.extra_query)
            headers: dict[str, str] = {}
            if e.kind == "api":
                if raw is not None:
                    headers["HTTP_AUTHORIZATION"] = f"Token {raw}"
                return query, headers
            if e.kind == "push" and upload_token is not None:
                query["upload_token"] = upload_token
            if raw is not None:
                query["api_token"] = raw
            return query, headers

        return make

    return [
        ("missing", with_api(None, upload_token=None)),
        ("wrong", with_api("tdm_wrong-token-0000000000000000000000", upload_token="0" * 32)),
        ("revoked", with_api(target.revoked_raw)),
        ("foreign", with_api(target.bob.raw_token)),
        ("foreign upload_token", with_api(None, upload_token=target.other_test.upload_token)),
    ]


def call(endpoint: Endpoint, query: dict[str, str], headers: dict[str, str]) -> Any:
    client = Client()
    qs = "&".join(f"{k}={v}" for k, v in query.items())
    url = f"{endpoint.path}?{qs}" if qs else endpoint.path
    method = getattr(client, endpoint.method)
    if endpoint.method in {"get", "delete"}:
        return method(url, **headers)
    return method(url, data=endpoint.body, content_type=endpoint.content_type, **headers)


@pytest.fixture
def target(db: None, clickhouse: None, redis_db: object) -> Target:
    alice = make_token_user("alice")
    grant(alice.user, Role.ADMIN)  # the owner of the component and the project: its settings and members
    bob = make_token_user("bob")
    revoked, revoked_raw = create_token(alice.user, name="old")
    revoke_token(revoked)
    test = Test.objects.create(owner=alice.user, name="alice's test", status="online")
    # Paths are filled with the test's id, component names too: alice's test is of that component, so she owns it.
    Test.objects.filter(pk=test.pk).update(component=str(test.pk))
    other = Test.objects.create(owner=bob.user, name="bob's test", status="online")
    return Target(alice=alice, bob=bob, revoked_raw=revoked_raw, test=test, other_test=other)


def test_every_write_endpoint_refuses_bad_credentials_and_changes_nothing(target: Target, redis_db: Any) -> None:
    endpoints = all_write_endpoints(target)
    names = {e.name for e in endpoints}
    # The enumeration itself must work: the endpoints of this app are always there.
    assert {"POST /api/v1/tokens/", "DELETE /api/v1/tokens/{id}/", "PATCH /api/v1/tokens/{id}/"} <= names, names
    failures: list[str] = []
    for endpoint in endpoints:
        for case, make in credential_cases(target):
            if case.startswith("foreign") and not endpoint.on_object:
                continue  # anyone may create their own; there is no one else's object to touch
            if case == "foreign upload_token" and endpoint.kind != "push":
                continue
            _forget_tank_caches()
            before = snapshot(redis_db)
            query, headers = make(endpoint)
            response = call(endpoint, query, headers)
            after = snapshot(redis_db)
            # A push without its job's upload_token answers as for a missing job (404, issue 29: no probing of
            # which job numbers exist); the other endpoints say 401/403.
            refusals = (401, 403, 404) if endpoint.kind == "push" else (401, 403)
            if response.status_code not in refusals:
                failures.append(f"{endpoint.name} [{case}]: {response.status_code} {response.content[:200]!r}")
            elif before != after:
                changed = sorted(k for k in before if before[k] != after.get(k))
                failures.append(f"{endpoint.name} [{case}]: refused but changed {changed}")
            elif response.get("Content-Type", "").startswith("application/json") and "error" not in response.json():
                failures.append(f"{endpoint.name} [{case}]: refusal without an 'error' message")
    assert failures == [], "\n".join(failures)
    # The credentials used above are good ones for their owner: the owner is not refused (so the refusals are
    # about the credential, not about a malformed request).
    for endpoint in endpoints:
        if endpoint.method == "delete" or endpoint.kind == "push":
            continue
        if endpoint.name == "POST /api/v1/projects/":  # site admins only: refused to alice, a project admin
            continue
        _forget_tank_caches()
        own_query = dict(endpoint.extra_query)
        own_headers: dict[str, str] = {}
        if endpoint.kind == "api":
            own_headers["HTTP_AUTHORIZATION"] = f"Token {target.alice.raw_token}"
        else:
            own_query["api_token"] = target.alice.raw_token
        site_admin = endpoint.name in SITE_ADMIN_ENDPOINTS
        if site_admin:  # no owner below a site admin: the owner's credential, once she is staff
            User.objects.filter(pk=target.alice.user.pk).update(is_staff=True)
        response = call(endpoint, own_query, own_headers)
        if site_admin:
            User.objects.filter(pk=target.alice.user.pk).update(is_staff=False)
        assert response.status_code not in (401, 403), f"owner refused at {endpoint.name}: {response.content[:200]!r}"


def test_tank_create_refuses_a_bad_api_token_without_5xx(target: Target) -> None:
    if not _resolves("/api/job/create.json"):
        pytest.skip("the tank protocol is not mounted")
    body = json.dumps({"task": "", "person": "x", "tank": "t", "host": "h", "port": 80, "loadscheme": []})
    tests_before = Test.objects.count()
    for query in ("", "?api_token=", "?api_token=nonsense", f"?api_token={target.revoked_raw}", "?api_token=%00%ff"):
        _forget_tank_caches()
        response = Client().post(f"/api/job/create.json{query}", data=body, content_type="application/json")
        assert response.status_code in (401, 403), (query, response.status_code, response.content[:200])
        assert "error" in response.json()
    assert Test.objects.count() == tests_before
    assert not ApiToken.objects.filter(key_hash="").exists()
