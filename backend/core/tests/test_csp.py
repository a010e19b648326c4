"""Every answer carries a Content-Security-Policy that allows no inline script and no other origin, and the pages
that must work under it (the SPA, the API docs, the admin) use nothing it forbids."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client

from backend.core.middleware import DOCS_POLICY, POLICY, SWAGGER_CDN

INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.IGNORECASE)
EVENT_HANDLER = re.compile(r"<[^>]+\son[a-z]+\s*=", re.IGNORECASE)


def _directives(policy: str) -> dict[str, list[str]]:
    return {part.split()[0]: part.split()[1:] for part in policy.split(";") if part.strip()}


def test_the_policy_forbids_inline_script_and_other_origins() -> None:
    directives = _directives(POLICY)
    assert directives["script-src"] == ["'self'"]
    assert directives["default-src"] == ["'self'"]
    assert directives["object-src"] == ["'none'"]
    assert directives["frame-ancestors"] == ["'none'"]
    assert not any("unsafe-eval" in v for values in directives.values() for v in values)
    assert _directives(DOCS_POLICY)["script-src"] == ["'self'", SWAGGER_CDN]


@pytest.mark.parametrize("path", ["/", "/api/v1/me", "/login", "/admin/login/", "/healthz?deep=0", "/nope/x"])
def test_every_answer_has_the_policy(db: None, redis_db: object, path: str) -> None:
    response = Client().get(path)
    assert response["Content-Security-Policy"] == POLICY, path


@pytest.mark.parametrize("path", ["/", "/login", "/admin/login/"])
def test_pages_use_no_inline_script(db: None, redis_db: object, path: str) -> None:
    body = Client().get(path).content.decode()
    assert not INLINE_SCRIPT.search(body), INLINE_SCRIPT.search(body)
    assert not EVENT_HANDLER.search(body), EVENT_HANDLER.search(body)


def test_admin_pages_use_no_inline_script(db: None, redis_db: object) -> None:
    staff = User.objects.create_user("boss", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(staff)
    for path in ("/admin/", "/admin/loadtests/test/", "/admin/loadtests/test/add/"):
        body = client.get(path).content.decode()
        assert not INLINE_SCRIPT.search(body), (path, INLINE_SCRIPT.search(body))


def test_api_docs_load_their_script_from_a_url(db: None, redis_db: object) -> None:
    page = Client().get("/api/docs/")
    assert page.status_code == 200
    assert page["Content-Security-Policy"] == DOCS_POLICY
    body = page.content.decode()
    assert not INLINE_SCRIPT.search(body)
    script = re.search(r'<script src="(/api/docs/[^"]*)"', body)
    assert script, body
    js = Client().get(script.group(1).replace("&amp;", "&"))
    assert js.status_code == 200 and "javascript" in js["Content-Type"]
    assert "SwaggerUIBundle" in js.content.decode()


def test_the_tokens_page_showing_a_new_token_uses_no_inline_script(db: None, redis_db: object) -> None:
    client = Client()
    client.force_login(User.objects.create_user("holder"))
    body = client.post("/tokens", {"action": "create", "name": "ci"}).content.decode()
    assert 'data-testid="new-token"' in body  # the page that shows the token once
    assert not INLINE_SCRIPT.search(body), INLINE_SCRIPT.search(body)
    assert not EVENT_HANDLER.search(body), EVENT_HANDLER.search(body)
