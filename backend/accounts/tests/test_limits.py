"""Request limits: oversized bodies are refused with a JSON 413 before a view runs; writes are rate-limited."""

from __future__ import annotations

from typing import Any

from django.test import Client

from backend.core.body_limit import body_limit_for
from backend.loadtests.models import ApiToken
from backend.testing import TokenUser


def test_oversized_body_is_413_naming_the_limit(alice: TokenUser, settings: Any) -> None:
    settings.TANKODROM_MAX_BODY_BYTES = 1000
    response = alice.client().post(
        "/api/v1/tokens/", data='{"name": "' + "x" * 2000 + '"}', content_type="application/json"
    )
    assert response.status_code == 413
    assert response.json() == {
        "error": "request body of 2012 bytes exceeds the limit of 1000 bytes (TANKODROM_MAX_BODY_BYTES)"
    }
    assert ApiToken.objects.count() == 1


def test_the_phout_upload_has_its_own_limit(settings: Any) -> None:
    settings.TANKODROM_MAX_BODY_BYTES = 1000
    settings.TANKODROM_MAX_UPLOAD_BYTES = 5000
    assert body_limit_for("/api/v1/tests/17/phout") == (5000, "TANKODROM_MAX_UPLOAD_BYTES")
    assert body_limit_for("/api/v1/tests/17/") == (1000, "TANKODROM_MAX_BODY_BYTES")
    assert body_limit_for("/api/v1/tests/17/phout/../x") == (1000, "TANKODROM_MAX_BODY_BYTES")


def test_upload_over_its_limit_is_413_before_any_view(db: None, settings: Any) -> None:
    settings.TANKODROM_MAX_UPLOAD_BYTES = 10
    response = Client().put("/api/v1/tests/1/phout", data=b"x" * 11, content_type="application/octet-stream")
    assert response.status_code == 413
    assert "TANKODROM_MAX_UPLOAD_BYTES" in response.json()["error"]


def test_a_resumable_upload_is_refused_by_its_total_size(db: None, settings: Any) -> None:
    settings.TANKODROM_MAX_UPLOAD_BYTES = 100
    response = Client().put(
        "/api/v1/tests/1/phout",
        data=b"x" * 10,
        content_type="application/octet-stream",
        HTTP_CONTENT_RANGE="bytes 0-9/101",
    )
    assert response.status_code == 413
    assert response.json()["error"] == "file of 101 bytes exceeds the limit of 100 bytes (TANKODROM_MAX_UPLOAD_BYTES)"


def test_bad_content_length_is_400(db: None) -> None:
    response = Client().post("/api/v1/tokens/", data=b"{}", content_type="application/json", CONTENT_LENGTH="ten")
    assert response.status_code == 400
    assert "Content-Length" in response.json()["error"]


def test_api_writes_are_rate_limited_per_user(alice: TokenUser, bob: TokenUser, settings: Any) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"write": "3/min", "login": "9/min"},
    }
    client = alice.client()
    statuses = [client.post("/api/v1/tokens/", {"name": f"t{i}"}, format="json").status_code for i in range(5)]
    assert statuses == [201, 201, 201, 429, 429]
    response = client.post("/api/v1/tokens/", {"name": "more"}, format="json")
    assert "throttled" in response.json()["error"].lower()
    assert ApiToken.objects.filter(user=alice.user).count() == 4
    # Reads are never limited, and the count is per user.
    assert client.get("/api/v1/tokens/").status_code == 200
    assert bob.client().post("/api/v1/tokens/", {"name": "b"}, format="json").status_code == 201


def test_page_writes_are_rate_limited(alice: TokenUser, settings: Any) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"write": "2/min", "login": "9/min"},
    }
    client = Client()
    client.force_login(alice.user)
    statuses = [client.post("/tokens", {"action": "create", "name": f"p{i}"}).status_code for i in range(3)]
    assert statuses == [201, 201, 429]
    assert ApiToken.objects.filter(user=alice.user).count() == 3
