"""Managing tests from the report: edit and tags, notes on the timeline, the list's author, tag filter and order."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User

from backend.diagnosis.models import TestAnalysis
from backend.loadtests.models import Test
from backend.projects.models import Visibility
from backend.reports import listing
from backend.reports.models import TestFigures


def _ids(api: Any, params: dict[str, Any]) -> list[int]:
    response = api.get("/api/v1/tests/", params)
    assert response.status_code == 200, response.json()
    return [t["id"] for t in response.json()["results"]]


def test_owner_edits_name_component_version_and_tags(owner, owner_api, other_api, db) -> None:
    test = Test.objects.create(owner=owner, name="old", status="ready")
    changed = owner_api.patch(
        f"/api/v1/tests/{test.pk}/",
        {"name": "new", "description": "why", "component": "api", "version": "2", "tags": ["release", "baseline"]},
        format="json",
    )
    assert changed.status_code == 200, changed.json()
    body = changed.json()
    assert (body["name"], body["component"], body["version"], body["tags"]) == (
        "new",
        "api",
        "2",
        ["baseline", "release"],
    )
    # A write replaces the list; others may not change it.
    assert owner_api.patch(f"/api/v1/tests/{test.pk}/", {"tags": ["release"]}, format="json").json()["tags"] == [
        "release"
    ]
    assert other_api.patch(f"/api/v1/tests/{test.pk}/", {"tags": []}, format="json").status_code == 403
    too_long = owner_api.patch(f"/api/v1/tests/{test.pk}/", {"tags": ["x" * 65]}, format="json")
    assert too_long.status_code == 400 and "tags" in too_long.json()["error"]


def test_tags_filter_the_list_and_search_finds_them(owner, owner_api, anon_api, db) -> None:
    a = Test.objects.create(owner=owner, name="a")
    b = Test.objects.create(owner=owner, name="b")
    owner_api.patch(f"/api/v1/tests/{a.pk}/", {"tags": ["release", "nightly"]}, format="json")
    owner_api.patch(f"/api/v1/tests/{b.pk}/", {"tags": ["nightly"]}, format="json")
    assert _ids(anon_api, {"tag": "nightly"}) == [b.pk, a.pk]
    assert _ids(anon_api, {"tag": ["nightly", "release"]}) == [a.pk]
    assert _ids(anon_api, {"search": "release"}) == [a.pk]
    listed = anon_api.get("/api/v1/tests/").json()["results"]
    assert [t["tags"] for t in listed] == [["nightly"], ["nightly", "release"]]


def test_author_is_the_tokens_owner_and_the_filter_finds_the_tanks_person_too(owner, anon_api, db) -> None:
    admin = User.objects.create_superuser("admin", password="x")
    by_token = Test.objects.create(owner=admin, name="uploaded with the admin's token")  # person ""
    by_tank = Test.objects.create(owner=owner, name="tank", person="Admin")  # the tank machine's OS user
    by_other = Test.objects.create(owner=owner, name="someone else", person="bob")
    rows = {t["id"]: t for t in anon_api.get("/api/v1/tests/").json()["results"]}
    assert rows[by_token.pk]["author"] == "admin" and rows[by_tank.pk]["author"] == "owner"
    assert rows[by_tank.pk]["person"] == "Admin"  # still sent, as the tank's user
    assert _ids(anon_api, {"person": "admin"}) == [by_tank.pk, by_token.pk]
    assert _ids(anon_api, {"person": "bob"}) == [by_other.pk]


def test_list_sorts_by_figures_with_missing_ones_last(owner, anon_api, db) -> None:
    slow = Test.objects.create(owner=owner, name="slow", status="ready", first_ts=100, last_ts=400)
    fast = Test.objects.create(owner=owner, name="Fast", status="ready", first_ts=100, last_ts=200)
    online = Test.objects.create(owner=owner, name="online", status="online")
    listing.store_figures(
        slow, {"count": 100, "quantiles_ms": {"99": 900.0}, "rps": {"max": 50}, "http_codes": {"200": 90, "503": 10}}
    )
    listing.store_figures(
        fast, {"count": 100, "quantiles_ms": {"99": 20.0}, "rps": {"max": 80}, "http_codes": {"200": 100}}
    )
    TestAnalysis.objects.create(test=slow, imbalance_rps=42.0)
    assert _ids(anon_api, {"ordering": "q99"}) == [fast.pk, slow.pk, online.pk]
    assert _ids(anon_api, {"ordering": "-q99"}) == [slow.pk, fast.pk, online.pk]
    assert _ids(anon_api, {"ordering": "-max_rps"}) == [fast.pk, slow.pk, online.pk]
    assert _ids(anon_api, {"ordering": "-imbalance_rps"})[0] == slow.pk
    assert _ids(anon_api, {"ordering": "name"}) == [fast.pk, online.pk, slow.pk]  # case-insensitive
    assert _ids(anon_api, {"ordering": "-duration"}) == [slow.pk, fast.pk, online.pk]
    bad = anon_api.get("/api/v1/tests/", {"ordering": "password"})
    assert bad.status_code == 400 and "ordering" in bad.json()["error"]
    rows = {t["id"]: t for t in anon_api.get("/api/v1/tests/").json()["results"]}
    assert (rows[slow.pk]["q99_ms"], rows[slow.pk]["max_rps"], rows[slow.pk]["imbalance_rps"]) == (900.0, 50, 42.0)
    assert rows[slow.pk]["result"] == {"kind": "errors", "text": "10.00 % errors"}
    assert rows[slow.pk]["error_share"] == 0.1
    assert rows[fast.pk]["result"]["kind"] == "ok" and rows[online.pk]["result"]["kind"] == "running"
    assert TestFigures.objects.get(test=fast).failed == 0


def test_failed_test_shows_its_reason_as_the_result(owner, anon_api, db) -> None:
    test = Test.objects.create(owner=owner, name="x", status="failed", error="the upload was refused: not a phout")
    row = anon_api.get("/api/v1/tests/").json()["results"][0]
    assert row["id"] == test.pk and row["result"] == {"kind": "failed", "text": "the upload was refused: not a phout"}


def test_notes_on_the_timeline(owner, owner_api, other_api, anon_api, db) -> None:
    test = Test.objects.create(owner=owner, name="x", status="ready")
    private = Test.objects.create(owner=owner, name="secret", visibility=Visibility.OWNER)
    admin = User.objects.create_superuser("admin", password="x")
    from backend.testing import api_client_for

    admin_api = api_client_for(admin)
    url = f"/api/v1/tests/{test.pk}/notes"
    assert anon_api.post(url, {"ts": 1700000000, "text": "deploy"}, format="json").status_code == 401
    # Notes change the test: others may read them, not add or delete them (as every other write of a test).
    assert other_api.post(url, {"ts": 1700000000, "text": "deploy"}, format="json").status_code == 403
    mine = owner_api.post(url, {"ts": 1700000000, "text": "  deploy started "}, format="json")
    assert mine.status_code == 201, mine.json()
    theirs = admin_api.post(url, {"ts": 1699999990, "text": "<b>GC pause</b>"}, format="json").json()
    notes = anon_api.get(url).json()
    assert [(n["ts"], n["text"], n["author"]) for n in notes] == [
        (1699999990, "<b>GC pause</b>", "admin"),
        (1700000000, "deploy started", "owner"),
    ]
    assert not any(n["can_delete"] for n in notes)
    assert all(n["can_delete"] for n in owner_api.get(url).json())
    assert other_api.delete(f"{url}/{mine.json()['id']}").status_code == 403
    assert owner_api.delete(f"{url}/{theirs['id']}").status_code == 204
    assert admin_api.delete(f"{url}/{mine.json()['id']}").status_code == 204
    assert anon_api.get(url).json() == []
    assert owner_api.delete(f"{url}/{mine.json()['id']}").status_code == 404
    bad = owner_api.post(url, {"ts": "soon", "text": ""}, format="json")
    assert bad.status_code == 400 and "ts" in bad.json()["error"]
    # A private test's notes are as hidden as the test.
    assert other_api.get(f"/api/v1/tests/{private.pk}/notes").status_code == 404


def test_a_refused_upload_is_the_result_of_a_waiting_test(owner, anon_api, db) -> None:
    from backend.loadtests.models import Upload

    test = Test.objects.create(owner=owner, name="x", status="processing")
    Upload.objects.create(test=test, status="failed", error="this does not look like phout: line 1: ...")
    row = anon_api.get("/api/v1/tests/").json()["results"][0]
    assert row["result"] == {"kind": "failed", "text": "upload refused: this does not look like phout: line 1: ..."}
    assert anon_api.get(f"/api/v1/tests/{test.pk}/").json()["result"] == row["result"]
    Upload.objects.create(test=test, status="parsing")  # a new upload on its way: waiting again
    assert anon_api.get("/api/v1/tests/").json()["results"][0]["result"]["kind"] == "processing"


def test_list_figures_command_fills_in_older_tests(uploaded, anon_api) -> None:
    from django.core.management import call_command

    test, _ = uploaded
    Test.objects.filter(pk=test.pk).update(status="ready")
    assert anon_api.get("/api/v1/tests/").json()["results"][0]["q99_ms"] is None  # processed before the list had it
    call_command("list_figures")
    row = anon_api.get("/api/v1/tests/").json()["results"][0]
    summary = anon_api.get(f"/api/v1/tests/{test.pk}/summary").json()
    assert row["q99_ms"] == summary["quantiles_ms"]["99"] and row["max_rps"] == summary["rps"]["max"]
