"""The list's search: each field it looks in, a tag by its whole name, the id; each test once, the count agreeing
(no digits in the texts but the id, so that the id search matches the id alone)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User

from backend.loadtests.models import Test
from backend.reports.models import TestTag


def _found(api: Any, text: str) -> tuple[list[int], int]:
    response = api.get("/api/v1/tests/", {"search": text})
    assert response.status_code == 200, response.json()
    body = response.json()
    return [t["id"] for t in body["results"]], body["count"]


def test_search_looks_in_every_field_and_lists_each_test_once(owner, anon_api, db) -> None:
    carol = User.objects.create_user("carol-the-author", password="x-not-used-10")
    by_field = {
        "name": Test.objects.create(owner=owner, name="Checkout Soak"),
        "description": Test.objects.create(owner=owner, description="after the cache fix"),
        "task": Test.objects.create(owner=owner, task="LOAD-XQZ"),
        "component": Test.objects.create(owner=owner, component="payments-gateway"),
        "person": Test.objects.create(owner=owner, person="tank-operator"),
        "version": Test.objects.create(owner=owner, version="v-beta-rc"),
        "owner": Test.objects.create(owner=carol),
    }
    tagged = Test.objects.create(owner=owner, name="plain")
    TestTag.objects.bulk_create([TestTag(test=tagged, name="Nightly"), TestTag(test=tagged, name="nightly-eu")])
    both = Test.objects.create(owner=owner, name="nightly build")
    TestTag.objects.create(test=both, name="nightly")
    Test.objects.create(owner=owner, name="unrelated")

    for text, test in (
        ("soak", by_field["name"]),
        ("CACHE FIX", by_field["description"]),
        ("load-xqz", by_field["task"]),
        ("gateway", by_field["component"]),
        ("operator", by_field["person"]),
        ("BETA-rc", by_field["version"]),
        ("the-author", by_field["owner"]),
    ):
        assert _found(anon_api, text) == ([test.pk], 1), text
    # A tag by its whole name in any case (a part of a tag's name is no match); a test matching by its name and its
    # tag, or by two tags, is listed once and counted once.
    assert _found(anon_api, "NIGHTLY") == ([both.pk, tagged.pk], 2)
    assert _found(anon_api, "night") == ([both.pk], 1)
    assert _found(anon_api, str(tagged.pk)) == ([tagged.pk], 1)
