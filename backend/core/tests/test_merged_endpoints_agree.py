"""What schemathesis found on the endpoints of notes, tags, KPIs, baselines and notification targets, pinned one by
one: a body the schema calls invalid is refused (never coerced), a valid one refused for what it means gets the
status the schema documents for that."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from backend.loadtests.models import Test, TestStatus

pytestmark = pytest.mark.django_db


def test_a_note_and_tags_take_json_strings_only(owner: User, owner_api: APIClient) -> None:
    test = Test.objects.create(owner=owner, name="t", component="api", status=TestStatus.READY)
    coerced = owner_api.post(f"/api/v1/tests/{test.pk}/notes", {"ts": 0, "text": 0}, format="json")
    assert coerced.status_code == 400 and "text" in coerced.json()["error"]
    as_text = owner_api.post(f"/api/v1/tests/{test.pk}/notes", {"ts": "5", "text": "x"}, format="json")
    assert as_text.status_code == 400 and "ts" in as_text.json()["error"]
    tags = owner_api.patch(f"/api/v1/tests/{test.pk}/", {"tags": [0]}, format="json")
    assert tags.status_code == 400 and "tags" in tags.json()["error"]


def test_a_blank_time_is_refused_not_taken_for_none(owner: User, owner_api: APIClient) -> None:
    test = Test.objects.create(owner=owner, name="t", component="api", status=TestStatus.READY)
    answer = owner_api.get(f"/api/v1/tests/{test.pk}/summary", {"to": "\x85"})
    assert answer.status_code == 400 and "to" in answer.json()["error"]


def test_a_baseline_of_another_component_is_as_missing(owner: User, owner_api: APIClient) -> None:
    Test.objects.create(owner=owner, component="api", status=TestStatus.READY)
    elsewhere = Test.objects.create(owner=owner, component="web", status=TestStatus.READY)
    answer = owner_api.post("/api/v1/components/api/baseline", {"test": elsewhere.pk}, format="json")
    assert answer.status_code == 404


def test_a_component_name_of_spaces_is_refused_by_the_trend(owner_api: APIClient) -> None:
    assert owner_api.get("/api/v1/components/%20/trend").status_code == 400


@pytest.mark.parametrize(
    "body",
    [
        {"kind": "slack", "name": "n", "url": "http://example.com:99999/hook"},  # was a 500 (port out of range)
        {"kind": "slack", "name": "n", "url": "http://exa mple.com/hook"},
        {"kind": "telegram", "name": "n", "token": "123:" + "a" * 20, "chat_id": "1", "url": "http://a/"},
        {"kind": "telegram", "name": "n", "token": " 123:" + "a" * 20, "chat_id": "1"},
        {"kind": "slack", "name": 0, "url": "http://a/"},
    ],
)
def test_a_target_the_schema_refuses_is_refused(owner_api: APIClient, body: dict[str, Any]) -> None:
    assert owner_api.post("/api/v1/notify/targets/", body, format="json").status_code == 400
