"""Upload tokens are stored as their hash (issue 19): shown once by create.json, matched by hash on every push,
and the tokens stored in clear before are hashed by migration 0003 without breaking the tanks that hold them."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection

from backend.loadtests.models import Test, hash_upload_token
from backend.projects.tests.migrating import migrate
from backend.testing import api_client_for

BEFORE, AFTER = ("loadtests", "0002_upload_content_digest"), ("loadtests", "0003_hash_upload_tokens")


def stored_token(test_id: int) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT upload_token FROM loadtests_test WHERE id = %s", [test_id])
        return str(cursor.fetchone()[0])


@pytest.mark.django_db
def test_create_json_shows_the_token_once_and_the_database_holds_its_hash(redis_db: Any) -> None:
    user = User.objects.create_user("tank", password="x" * 12)
    api = api_client_for(user)
    answer = api.post("/api/job/create.json", data=json.dumps({"task": "LOAD-1"}), content_type="application/json")
    assert answer.status_code == 200, answer.content
    job, raw = answer.json()[0]["job"], answer.json()[0]["upload_token"]
    assert len(raw) == 32
    stored = stored_token(job)
    assert stored == hashlib.sha256(raw.encode()).hexdigest() and raw not in stored
    assert Test.objects.get(pk=job).upload_token == stored  # read back: the hash only


@pytest.mark.django_db
def test_a_push_matches_the_token_by_its_hash_and_the_hash_itself_is_no_token(redis_db: Any, clickhouse: None) -> None:
    user = User.objects.create_user("tank", password="x" * 12)
    api = api_client_for(user)
    answer = api.post("/api/job/create.json", data=json.dumps({}), content_type="application/json").json()[0]
    job, raw = answer["job"], answer["upload_token"]
    path = f"/api/job/{job}/push_data.json?upload_token="
    good = api.post(path + raw, data="[]", content_type="application/json")
    assert good.status_code == 200, good.content
    with_hash = api.post(path + stored_token(job), data="[]", content_type="application/json")
    assert with_hash.status_code == 404 and with_hash.json()["error"] == f"job {job} does not exist"


@pytest.mark.django_db(transaction=True)
def test_migration_0003_hashes_the_tokens_stored_in_clear() -> None:
    old = migrate([BEFORE]).loader.project_state([BEFORE]).apps
    owner = old.get_model("auth", "User").objects.create(username="old", password="!")
    clear = "0123456789abcdef0123456789abcdef"
    legacy = old.get_model("loadtests", "Test").objects.create(owner_id=owner.pk, name="legacy", upload_token=clear)
    assert stored_token(legacy.pk) == clear
    migrate([AFTER])
    assert stored_token(legacy.pk) == hash_upload_token(clear)
    migrate()
