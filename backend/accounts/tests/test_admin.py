"""The admin site for operators: the lists open, tokens can be revoked but never created or shown in clear."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.test import Client

from backend.loadtests.models import Test, Upload
from backend.loadtests.tokens import resolve_token
from backend.testing import TokenUser, make_token_user


def _operator() -> Client:
    admin = User.objects.create_superuser("root", password="pw-root-123456")
    client = Client()
    client.force_login(admin)
    return client


def test_operator_pages_open(alice: TokenUser) -> None:
    client = _operator()
    test = Test.objects.create(owner=alice.user, name="in admin")
    Upload.objects.create(test=test)
    for path in (
        "/admin/",
        "/admin/loadtests/test/",
        f"/admin/loadtests/test/{test.pk}/change/",
        "/admin/loadtests/upload/",
        "/admin/loadtests/apitoken/",
        f"/admin/loadtests/apitoken/{alice.token.pk}/change/",
        "/admin/auth/user/",
    ):
        response = client.get(path)
        assert response.status_code == 200, path
        assert alice.token.key_hash not in response.content.decode()
    assert client.get("/admin/loadtests/apitoken/add/").status_code == 403


def test_operator_revokes_tokens(alice: TokenUser) -> None:
    bob = make_token_user("bob")
    client = _operator()
    response = client.post(
        "/admin/loadtests/apitoken/",
        {"action": "revoke_selected", "_selected_action": [alice.token.pk]},
    )
    assert response.status_code == 302
    assert resolve_token(alice.raw_token) is None
    assert resolve_token(bob.raw_token) is not None


def test_admin_needs_staff(alice: TokenUser) -> None:
    client = Client()
    client.force_login(alice.user)
    response = client.get("/admin/loadtests/apitoken/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
