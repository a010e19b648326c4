"""The server-rendered pages: login (rate-limited), logout, and `/tokens` working as plain forms."""

from __future__ import annotations

import re

from django.test import Client
from pytest_django.fixtures import Settings

from backend.loadtests.models import ApiToken
from backend.loadtests.tokens import resolve_token
from backend.testing import TokenUser


def _csrf(client: Client, path: str) -> str:
    page = client.get(path)
    match = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.content.decode())
    assert match, page.content[:500]
    return match.group(1)


def test_tokens_page_needs_login(db: None) -> None:
    response = Client().get("/tokens")
    assert response.status_code == 302
    assert response["Location"] == "/login?next=/tokens"


def test_login_with_csrf_then_tokens_page(alice: TokenUser) -> None:
    client = Client(enforce_csrf_checks=True)
    csrf = _csrf(client, "/login")
    response = client.post(
        "/login",
        {"username": "alice", "password": "correct horse battery", "next": "/tokens", "csrfmiddlewaretoken": csrf},
    )
    assert response.status_code == 302 and response["Location"] == "/tokens"
    page = client.get("/tokens")
    assert page.status_code == 200
    html = page.content.decode()
    assert "alice token" in html and alice.token.key_prefix in html
    assert alice.raw_token not in html


def test_wrong_password_says_so_and_does_not_log_in(alice: TokenUser) -> None:
    client = Client()
    response = client.post("/login", {"username": "alice", "password": "nope"})
    assert response.status_code == 200
    assert "Wrong username or password" in response.content.decode()
    assert client.get("/api/v1/me").json()["authenticated"] is False


def test_login_is_rate_limited_even_for_the_right_password(alice: TokenUser, settings: object) -> None:
    client = Client()
    for _ in range(10):
        client.post("/login", {"username": "alice", "password": "guess"})
    response = client.post("/login", {"username": "alice", "password": "correct horse battery"})
    assert response.status_code == 429
    assert "Too many login attempts" in response.content.decode()
    assert client.get("/api/v1/me").json()["authenticated"] is False


def test_one_address_trying_many_usernames_is_limited_too(alice: TokenUser) -> None:
    client = Client()
    for i in range(50):  # 10/min per username, 5 x 10 per address
        client.post("/login", {"username": f"user{i}", "password": "guess"})
    response = client.post("/login", {"username": "alice", "password": "correct horse battery"})
    assert response.status_code == 429
    # Another address is not affected.
    other = Client(REMOTE_ADDR="10.0.0.2")
    assert other.post("/login", {"username": "alice", "password": "correct horse battery"}).status_code == 302


def test_behind_a_proxy_the_forwarded_address_counts(alice: TokenUser, settings: Settings) -> None:
    settings.TANKODROM_CLIENT_ADDRESS_HEADER = "HTTP_X_FORWARDED_FOR"
    guesser = Client(HTTP_X_FORWARDED_FOR="198.51.100.7")
    for i in range(50):
        guesser.post("/login", {"username": f"user{i}", "password": "guess"})
    assert guesser.post("/login", {"username": "alice", "password": "x"}).status_code == 429
    # A forged first entry does not help: the proxy's own (last) entry is the one counted.
    forged = Client(HTTP_X_FORWARDED_FOR="203.0.113.1, 198.51.100.7")
    assert forged.post("/login", {"username": "alice", "password": "x"}).status_code == 429
    # Someone else behind the same proxy still logs in.
    colleague = Client(HTTP_X_FORWARDED_FOR="198.51.100.8")
    assert colleague.post("/login", {"username": "alice", "password": "correct horse battery"}).status_code == 302


def test_create_rename_revoke_through_the_page(alice: TokenUser) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice.user)
    csrf = _csrf(client, "/tokens")
    created = client.post("/tokens", {"action": "create", "name": "tank-07", "csrfmiddlewaretoken": csrf})
    assert created.status_code == 201
    assert "no-store" in created["Cache-Control"]
    match = re.search(r'data-testid="new-token" value="([^"]+)"', created.content.decode())
    assert match
    raw = match.group(1)
    token = resolve_token(raw)
    assert token is not None and token.user == alice.user and token.name == "tank-07"
    # Shown once: the next view of the page has the row but not the token.
    again = client.get("/tokens").content.decode()
    assert "tank-07" in again and raw not in again

    renamed = client.post(
        "/tokens", {"action": "rename", "token_id": token.pk, "name": "tank-08", "csrfmiddlewaretoken": csrf}
    )
    assert renamed.status_code == 302
    token.refresh_from_db()
    assert token.name == "tank-08"

    revoked = client.post("/tokens", {"action": "revoke", "token_id": token.pk, "csrfmiddlewaretoken": csrf})
    assert revoked.status_code == 302
    assert resolve_token(raw) is None
    assert "revoked" in client.get("/tokens").content.decode()


def test_page_post_without_csrf_is_refused(alice: TokenUser) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice.user)
    response = client.post("/tokens", {"action": "revoke", "token_id": alice.token.pk})
    assert response.status_code == 403
    assert resolve_token(alice.raw_token) is not None


def test_page_cannot_touch_another_users_token(alice: TokenUser, bob: TokenUser) -> None:
    client = Client()
    client.force_login(bob.user)
    response = client.post("/tokens", {"action": "revoke", "token_id": alice.token.pk})
    assert response.status_code == 404
    assert resolve_token(alice.raw_token) is not None
    assert alice.token.key_prefix not in client.get("/tokens").content.decode()


def test_logout_is_a_post(alice: TokenUser) -> None:
    client = Client()
    client.force_login(alice.user)
    assert client.get("/logout").status_code == 405
    response = client.post("/logout")
    assert response.status_code in {200, 302}
    assert client.get("/api/v1/me").json()["authenticated"] is False


def test_bad_page_input_is_a_4xx(alice: TokenUser) -> None:
    client = Client()
    client.force_login(alice.user)
    assert client.post("/tokens", {"action": "create", "name": "x" * 129}).status_code == 400
    assert client.post("/tokens", {"action": "explode"}).status_code == 400
    assert client.post("/tokens", {"action": "revoke", "token_id": "abc"}).status_code == 404
    assert ApiToken.objects.filter(user=alice.user).count() == 1


def test_server_pages_carry_the_apps_navigation(alice: TokenUser) -> None:
    """The login and tokens pages lead back to the tests and the docs, like every page of the app."""
    client = Client()
    for path in ("/login",):
        html = client.get(path).content.decode()
        nav = html[html.index('<nav aria-label="Main">') : html.index("</nav>")]
        assert 'href="/">Tests</a>' in nav and 'href="/api/docs/"' in nav and 'href="/tokens"' in nav
    client.force_login(alice.user)
    html = client.get("/tokens").content.decode()
    nav = html[html.index('<nav aria-label="Main">') : html.index("</nav>")]
    assert 'href="/">Tests</a>' in nav and 'aria-current="page"' in nav
