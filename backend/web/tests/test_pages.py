"""The page views serve the built SPA with the unfurl tags, the right status and the private-instance redirect."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from pytest_django.fixtures import Settings

from backend.loadtests.models import Test
from backend.web.tests.conftest import INDEX


@pytest.fixture
def test_obj(db: None, clickhouse: None) -> Test:
    # The unfurl tags summarise the test from ClickHouse, so report pages need its schema.
    owner = get_user_model().objects.create_user("alice", password="pw-alice-123")
    return Test.objects.create(owner=owner, name='api "v2" <load>')


def test_list_page_is_the_spa(client: Client, dist: Path, db: None) -> None:
    response = client.get("/")
    assert response.status_code == 200
    body = response.content.decode()
    assert '<div id="root"></div>' in body
    assert "/static/assets/index-abc.js" in body
    assert response["Cache-Control"] == "no-cache"
    assert "Cookie" in response["Vary"] and "Authorization" in response["Vary"]
    # An anonymous visitor writes nothing: no cookie, so that the page stays shareable.
    assert "csrftoken" not in response.cookies
    # The SPA's session writes need the CSRF cookie; a signed-in user's page is where it gets it.
    get_user_model().objects.create_user("bob", password="pw-bob-123")
    assert client.login(username="bob", password="pw-bob-123")
    signed_in = client.get("/")
    assert signed_in.cookies["csrftoken"].value
    assert signed_in["Cache-Control"] == "private, no-cache"


def test_report_page_carries_escaped_unfurl_tags(client: Client, dist: Path, test_obj: Test) -> None:
    for url in (f"/{test_obj.pk}", f"/{test_obj.pk}/"):
        response = client.get(url)
        assert response.status_code == 200
        body = response.content.decode()
        head = body.split("</head>")[0]
        # The name is user input: it must arrive escaped inside the attribute, never as markup.
        assert f'<meta property="og:title" content="#{test_obj.pk} api &quot;v2&quot; &lt;load&gt;">' in head
        assert "<load>" not in body
        assert body.count("<title>") == 1
        assert f"<title>#{test_obj.pk} api &quot;v2&quot; &lt;load&gt; · Tankodrom</title>" in head


def test_chart_pages_preload_the_chart_chunk(client: Client, dist: Path, test_obj: Test) -> None:
    preload = '<link rel="modulepreload" href="/static/assets/plotly-x1.js">'
    assert preload in client.get(f"/{test_obj.pk}").content.decode().split("</head>")[0]
    assert preload in client.get(f"/compare/{test_obj.pk}/{test_obj.pk}").content.decode()
    assert preload in client.get("/component/api").content.decode()
    # The list draws no chart: it does not pay for the chart library.
    assert preload not in client.get("/").content.decode()


def test_missing_test_gets_the_app_with_404(client: Client, dist: Path, db: None) -> None:
    response = client.get("/987654")
    assert response.status_code == 404
    assert '<div id="root"></div>' in response.content.decode()


def test_compare_page_needs_two_ids(client: Client, dist: Path, test_obj: Test) -> None:
    response = client.get(f"/compare/{test_obj.pk}/{test_obj.pk + 1}/{test_obj.pk + 2}")
    assert response.status_code == 200
    expected = f"Compare #{test_obj.pk} vs #{test_obj.pk + 1} vs #{test_obj.pk + 2}"
    assert f'content="{expected}"' in response.content.decode()
    assert client.get(f"/compare/{test_obj.pk}").status_code == 404
    assert client.get("/compare/1/x").status_code == 404


def test_component_page(client: Client, dist: Path, db: None) -> None:
    response = client.get("/component/billing-api")
    assert response.status_code == 200
    assert '<div id="root"></div>' in response.content.decode()


def test_pages_refuse_writes(client: Client, dist: Path, db: None) -> None:
    assert client.post("/").status_code == 405


def test_unbuilt_frontend_says_how_to_build(client: Client, tmp_path: Path, settings: Settings, db: None) -> None:
    settings.FRONTEND_DIST = tmp_path / "absent"
    response = client.get("/")
    assert response.status_code == 503
    assert "npm run build" in response.content.decode()


def test_rebuilt_index_is_picked_up(client: Client, dist: Path, db: None) -> None:
    assert "index-abc.js" in client.get("/").content.decode()
    index = dist / "index.html"
    index.write_text(INDEX.replace("index-abc.js", "index-def.js"), encoding="utf-8")
    st = index.stat()
    os.utime(index, (st.st_atime, st.st_mtime + 5))
    assert "index-def.js" in client.get("/").content.decode()


def test_private_instance_sends_anonymous_visitors_to_login(
    client: Client, dist: Path, test_obj: Test, settings: Settings
) -> None:
    settings.TANKODROM_PRIVATE_INSTANCE = True
    response = client.get(f"/{test_obj.pk}")
    assert response.status_code == 302
    assert response["Location"].startswith("/login?next=")
    client.force_login(test_obj.owner)
    assert client.get(f"/{test_obj.pk}").status_code == 200


@pytest.mark.django_db
def test_pages_answer_head_like_get_for_link_checkers(client: Client) -> None:
    # Chat and link checkers often probe with HEAD before fetching: it must not be refused.
    response = client.head("/")
    assert response.status_code in {200, 503}  # 503 only when the frontend is not built
    assert client.post("/").status_code == 405


def test_unknown_page_path_is_the_spa_with_a_404(client: Client, dist: Path, db: None) -> None:
    for url in ("/no/such/page", "/tests-old", "/component"):
        response = client.get(url)
        assert response.status_code == 404, url
        assert '<div id="root"></div>' in response.content.decode(), url
    # The API, static files and other methods keep their own plain 404s: no HTML page for a client.
    api = client.get("/api/v1/no-such-call")
    assert api.status_code == 404 and b'<div id="root">' not in api.content
    assert client.get("/static/no-such.js").status_code == 404
    posted = client.post("/no/such/page")
    assert posted.status_code == 404 and b'<div id="root">' not in posted.content


def test_api_docs_are_served_by_the_app_not_a_cdn(client: Client, db: None) -> None:
    for url in ("/api/docs/", "/api/redoc/"):
        body = client.get(url).content.decode()
        assert "/static/drf_spectacular_sidecar/" in body, url
        assert "cdn.jsdelivr" not in body and "unpkg" not in body, url
        # With the app's navigation, like every other page.
        assert '<nav aria-label="Main">' in body and 'href="/">Tests</a>' in body, url


def test_project_pages_are_the_spa_with_a_404_for_a_project_the_reader_is_no_member_of(
    client: Client, dist: Path, owner: Any
) -> None:
    # A member gets 200; anyone else gets the same app with a 404, whether the project exists or not (the URL walk in
    # backend/loadtests/tests/test_private_is_missing.py compares the two answers).
    for path in ("/projects/default/members", "/projects/default/audit/", "/projects/nowhere/audit"):
        assert client.get(path).status_code == 404, path
    client.force_login(owner)
    for path, status in (
        ("/projects/default/members", 200),
        ("/projects/default/audit/", 200),
        ("/projects/x/audit", 404),
    ):
        response = client.get(path)
        assert response.status_code == status, path
        assert '<div id="root"></div>' in response.content.decode()
    assert client.get("/projects/default/other").status_code == 404
