"""The report page carries its first screen's answers (backend/web/first_screen.py), the same bytes the API gives
the same viewer, escaped for the <script> element; a test the viewer may not read carries nothing of it. An
anonymous reader of a finished public test gets a shared page with validators; a signed-in one a private page."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from pytest_django.fixtures import Settings

from backend.loadtests.models import Test
from backend.projects.models import Visibility
from backend.reports.tests.factory import finished_streamed_test
from backend.web import first_screen

SCRIPT = re.compile(r'<script type="application/json" id="first-screen">(.*?)</script>', re.S)


@pytest.fixture
def finished(db: None, clickhouse: None, redis_db: object) -> Test:
    return finished_streamed_test('done </script><b>"x"')


def _embedded(body: bytes) -> dict[str, Any]:
    match = SCRIPT.search(body.decode())
    assert match is not None, body[:500]
    parsed: dict[str, Any] = json.loads(match.group(1))
    return parsed


def test_the_page_carries_the_first_screen_as_the_api_answers_it(finished: Test, dist: Path) -> None:
    page = Client().get(f"/{finished.pk}")
    assert page.status_code == 200
    embedded = _embedded(page.content)
    assert sorted(embedded) == sorted(first_screen.urls_for(finished))
    for url, answer in embedded.items():
        direct = Client().get(url)
        assert direct.status_code == 200, url
        assert answer == direct.json(), url
    assert embedded["/api/v1/me"]["authenticated"] is False
    assert embedded[f"/api/v1/tests/{finished.pk}/"]["name"] == 'done </script><b>"x"'


def test_user_text_cannot_close_the_script_element(finished: Test, dist: Path) -> None:
    body = Client().get(f"/{finished.pk}").content.decode()
    script = SCRIPT.search(body)
    assert script is not None
    assert "</script>" not in script.group(1) and "<b>" not in script.group(1)
    assert "\\u003c/script\\u003e\\u003cb\\u003e" in script.group(1)


def test_anonymous_readers_share_a_page_with_validators(finished: Test, dist: Path) -> None:
    first = Client().get(f"/{finished.pk}")
    assert first["Cache-Control"].startswith("public, max-age=")
    assert "Cookie" in first["Vary"] and "Authorization" in first["Vary"]
    assert "csrftoken" not in first.cookies  # a shared page sets no cookie
    etag = first["ETag"]
    again = Client().get(f"/{finished.pk}", HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304 and again["ETag"] == etag
    assert Client().get(f"/{finished.pk}").content == first.content


def test_a_signed_in_reader_gets_a_private_page_of_their_own(finished: Test, dist: Path) -> None:
    client = Client()
    assert client.login(username="owner", password="pw-owner-123")
    page = client.get(f"/{finished.pk}")
    assert page["Cache-Control"] == "private, no-cache"
    assert "ETag" not in page
    assert "Cookie" in page["Vary"]
    assert page.cookies["csrftoken"].value
    embedded = _embedded(page.content)
    assert embedded["/api/v1/me"]["username"] == "owner"
    assert embedded[f"/api/v1/tests/{finished.pk}/"]["can_write"] is True


def test_a_private_test_carries_nothing_to_a_stranger(finished: Test, dist: Path) -> None:
    Test.objects.filter(pk=finished.pk).update(visibility=Visibility.OWNER)
    page = Client().get(f"/{finished.pk}")
    assert page.status_code == 404
    assert SCRIPT.search(page.content.decode()) is None
    assert b"done" not in page.content
    owner = Client()
    assert owner.login(username="owner", password="pw-owner-123")
    mine = owner.get(f"/{finished.pk}")
    assert mine.status_code == 200 and f"/api/v1/tests/{finished.pk}/summary" in _embedded(mine.content)
    assert mine["Cache-Control"] == "private, no-cache"


def test_a_test_still_moving_carries_only_itself(finished: Test, dist: Path) -> None:
    Test.objects.filter(pk=finished.pk).update(status="online")
    page = Client().get(f"/{finished.pk}")
    assert sorted(_embedded(page.content)) == ["/api/v1/me", f"/api/v1/tests/{finished.pk}/"]
    assert "public" not in page["Cache-Control"]
    assert "ETag" not in page


def test_answers_to_credentials_are_private_and_vary_with_them(finished: Test, db: None) -> None:
    owner = Client()
    assert owner.login(username="owner", password="pw-owner-123")
    for client, private in ((owner, True), (Client(), False)):
        for url in ("/api/v1/me", f"/api/v1/tests/{finished.pk}/", "/api/v1/tests/"):
            answer = client.get(url)
            assert answer.status_code == 200, url
            assert "public" not in answer.get("Cache-Control", ""), url
            assert ("private" in answer.get("Cache-Control", "")) is private, url
            assert "Cookie" in answer["Vary"] and "Authorization" in answer["Vary"], url
    # A finished public test's figures are the same for everyone: shared, whoever asks.
    assert owner.get(f"/api/v1/tests/{finished.pk}/summary")["Cache-Control"] == "public, max-age=60"


def test_built_assets_are_cached_a_year_the_rest_an_hour(tmp_path: Path, settings: Settings) -> None:
    from django.http import HttpResponse
    from django.test import RequestFactory
    from whitenoise.middleware import WhiteNoiseMiddleware  # type: ignore[import-untyped]

    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "index-L87RC0iP.js").write_text("app()")
    (tmp_path / "assets" / "logo.js").write_text("logo()")
    settings.STATIC_ROOT = tmp_path
    middleware = WhiteNoiseMiddleware(lambda _request: HttpResponse(status=404))

    def control(url: str) -> str:
        return str(middleware(RequestFactory().get(url))["Cache-Control"])

    assert control("/static/assets/index-L87RC0iP.js") == "max-age=315360000, public, immutable"
    assert control("/static/assets/logo.js") == "max-age=3600, public"
