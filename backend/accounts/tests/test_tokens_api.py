"""The token API (`/api/v1/me`, `/api/v1/tokens/`): shown once, stored hashed, revocable, one user's own."""

from __future__ import annotations

import hashlib

from rest_framework.test import APIClient

from backend.loadtests.models import ApiToken
from backend.loadtests.tokens import resolve_token
from backend.testing import TokenUser


def test_me_anonymous(db: None) -> None:
    response = APIClient().get("/api/v1/me")
    assert response.status_code == 200
    assert response.json() == {"authenticated": False, "username": "", "is_staff": False}


def test_me_by_token_and_by_session(alice: TokenUser, staff: TokenUser) -> None:
    assert alice.client().get("/api/v1/me").json() == {"authenticated": True, "username": "alice", "is_staff": False}
    session = APIClient()
    session.force_login(staff.user)
    assert session.get("/api/v1/me").json() == {"authenticated": True, "username": "operator", "is_staff": True}


def test_create_shows_the_token_once_and_stores_only_its_hash(alice: TokenUser) -> None:
    client = alice.client()
    response = client.post("/api/v1/tokens/", {"name": "tank-01"}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    raw = body["token"]
    assert body["name"] == "tank-01" and raw.startswith(body["key_prefix"]) and body["revoked"] is False
    assert "no-store" in response["Cache-Control"]
    row = ApiToken.objects.get(pk=body["id"])
    assert row.key_hash == hashlib.sha256(raw.encode()).hexdigest()
    assert raw not in {row.key_hash, row.key_prefix, row.name}
    # The list never shows a token in clear again.
    listing = client.get("/api/v1/tokens/")
    assert listing.status_code == 200
    assert raw not in listing.content.decode()
    assert [t["name"] for t in listing.json()] == ["tank-01", "alice token"]
    # And the new token works.
    fresh = APIClient()
    fresh.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    assert fresh.get("/api/v1/me").json()["username"] == "alice"


def test_query_parameter_token_works_as_the_tank_sends_it(alice: TokenUser) -> None:
    response = APIClient().get(f"/api/v1/me?api_token={alice.raw_token}")
    assert response.json()["username"] == "alice"


def test_revoke_stops_the_token_at_once(alice: TokenUser) -> None:
    client = alice.client()
    created = client.post("/api/v1/tokens/", {"name": "ci"}, format="json").json()
    assert client.delete(f"/api/v1/tokens/{created['id']}/").status_code == 204
    assert resolve_token(created["token"]) is None
    revoked = APIClient()
    revoked.credentials(HTTP_AUTHORIZATION=f"Token {created['token']}")
    response = revoked.get("/api/v1/me")
    assert response.status_code == 401
    assert "revoked" in response.json()["error"]
    listed = {t["id"]: t for t in client.get("/api/v1/tokens/").json()}
    assert listed[created["id"]]["revoked"] is True


def test_rename(alice: TokenUser) -> None:
    response = alice.client().patch(f"/api/v1/tokens/{alice.token.pk}/", {"name": "renamed"}, format="json")
    assert response.status_code == 200
    assert response.json()["name"] == "renamed"
    alice.token.refresh_from_db()
    assert alice.token.name == "renamed"


def test_name_too_long_is_a_400_naming_the_field(alice: TokenUser) -> None:
    response = alice.client().post("/api/v1/tokens/", {"name": "x" * 129}, format="json")
    assert response.status_code == 400
    assert "name" in response.json()["error"]
    assert ApiToken.objects.filter(user=alice.user).count() == 1


def test_another_users_token_is_403_and_unchanged(alice: TokenUser, bob: TokenUser, staff: TokenUser) -> None:
    for intruder in (bob, staff):
        assert intruder.client().delete(f"/api/v1/tokens/{alice.token.pk}/").status_code == 403
        response = intruder.client().patch(f"/api/v1/tokens/{alice.token.pk}/", {"name": "x"}, format="json")
        assert response.status_code == 403
        assert "another user" in response.json()["error"]
    alice.token.refresh_from_db()
    assert alice.token.revoked_at is None and alice.token.name == "alice token"
    # Nobody lists someone else's tokens.
    assert [t["id"] for t in bob.client().get("/api/v1/tokens/").json()] == [bob.token.pk]


def test_unknown_token_id_is_404(alice: TokenUser) -> None:
    response = alice.client().delete("/api/v1/tokens/999999/")
    assert response.status_code == 404
    assert response.json()["error"] == "no API token 999999"


def test_anonymous_and_bad_tokens_are_refused(alice: TokenUser) -> None:
    anonymous = APIClient()
    assert anonymous.get("/api/v1/tokens/").status_code == 401
    assert anonymous.post("/api/v1/tokens/", {"name": "x"}, format="json").status_code == 401
    wrong = APIClient()
    wrong.credentials(HTTP_AUTHORIZATION="Token tdm_not-a-real-token")
    assert wrong.post("/api/v1/tokens/", {"name": "x"}, format="json").status_code == 401
    assert ApiToken.objects.count() == 1


def test_session_writes_need_csrf(alice: TokenUser) -> None:
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(alice.user)
    response = client.post("/api/v1/tokens/", {"name": "no csrf"}, format="json")
    assert response.status_code == 403
    assert "CSRF" in response.json()["error"]
    assert ApiToken.objects.filter(user=alice.user).count() == 1
