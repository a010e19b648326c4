"""Export a test to one file, import it into an empty instance (another ClickHouse database, PostgreSQL emptied):
the summary, tables and monitoring answer the same; bad archives get 400 naming the problem."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from backend.clickhouse import client, migrate
from backend.loadtests.models import Test
from backend.reports.models import TestNote, TestTag
from backend.testing import drop_database

SAME_ANSWERS = ("summary", "tables", "monitoring", "summary?from=1795316010&to=1795316040&cases=index")


@pytest.fixture
def second_clickhouse(settings: Any) -> Iterator[Callable[[], None]]:
    """Switches the app to a second, freshly migrated ClickHouse database when called; dropped afterwards."""
    original = dict(settings.CLICKHOUSE)

    def switch() -> None:
        settings.CLICKHOUSE = {**original, "database": f"{original['database']}_b"}
        client.reset_connections()
        drop_database()
        migrate.apply_all()

    yield switch
    if settings.CLICKHOUSE["database"] != original["database"]:
        drop_database()
    settings.CLICKHOUSE = original
    client.reset_connections()


def archive_of(api: APIClient, test_id: int) -> bytes:
    response = api.get(f"/api/v1/tests/{test_id}/archive")
    assert response.status_code == 200, response.content
    return b"".join(response.streaming_content)  # type: ignore[attr-defined]


def answers(api: APIClient, test_id: int) -> dict[str, Any]:
    out = {}
    for path in SAME_ANSWERS:
        response = api.get(f"/api/v1/tests/{test_id}/{path}")
        assert response.status_code == 200, (path, response.content)
        body = response.json()
        body.pop("test", None)
        out[path] = body
    return out


def test_export_then_import_into_an_empty_instance_answers_the_same(
    aged: Callable[..., Test], owner: User, owner_api: APIClient, second_clickhouse: Callable[[], None]
) -> None:
    test = aged("moved", 10, seed=21, n=20_000, description="a test to move", version="1.2")
    TestTag.objects.create(test=test, name="release")
    TestNote.objects.create(test=test, ts=1_795_316_030, text="deploy started", author=owner)
    before = answers(owner_api, int(test.pk))
    assert before["summary"]["exact"] is True
    exported = owner_api.get(f"/api/v1/tests/{test.pk}/archive")
    assert exported.status_code == 200 and exported["Content-Type"] == "application/zip"
    blob = b"".join(exported.streaming_content)  # type: ignore[attr-defined]
    with zipfile.ZipFile(io.BytesIO(blob)) as zf:
        manifest = json.loads(zf.read("manifest.json"))
        assert manifest["test"]["name"] == "moved" and manifest["tags"] == ["release"]
        assert "samples/interval_real_us.npy" in zf.namelist()

    second_clickhouse()
    Test.objects.all().delete()
    imported = owner_api.post("/api/v1/archives", data=blob, content_type="application/zip")
    assert imported.status_code == 201, imported.content
    new_id = imported.json()["id"]
    assert new_id != test.pk
    after = answers(owner_api, new_id)
    assert after == before
    new = Test.objects.get(pk=new_id)
    assert (new.name, new.description, new.version, new.component) == ("moved", "a test to move", "1.2", "api")
    assert new.created_at == test.created_at and new.owner == owner
    assert list(new.tags.values_list("name", flat=True)) == ["release"]
    assert list(new.notes.values_list("ts", "text")) == [(1_795_316_030, "deploy started")]


def test_an_archive_of_an_expired_test_carries_its_aggregates(
    aged: Callable[..., Test], owner_api: APIClient, settings: Any
) -> None:
    from backend.retention import tasks

    settings.TANKODROM_RETENTION_RAW_DAYS = 30
    test = aged("old", 100, seed=22, n=5_000)
    job = tasks.create_job("manual")
    assert job is not None and tasks.run_job(int(job.pk)) == "done"
    before = answers(owner_api, int(test.pk))
    blob = archive_of(owner_api, int(test.pk))
    with zipfile.ZipFile(io.BytesIO(blob)) as zf:
        assert not [n for n in zf.namelist() if n.startswith("samples/")]
    new_id = owner_api.post("/api/v1/archives", data=blob, content_type="application/zip").json()["id"]
    assert answers(owner_api, new_id) == before
    assert before["summary"]["exact"] is False


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"not a zip", "file: not a zip archive"),
        (b"", "file: the body is empty"),
        ("no-manifest", "file: the archive has no manifest.json"),
        ("other-format", "not a Tankodrom archive"),
        ("bad-row", "aggregates.jsonl line 1 is not a row"),
    ],
)
def test_bad_archives_are_refused_naming_the_problem(
    aged: Callable[..., Test], owner_api: APIClient, body: Any, message: str
) -> None:
    if isinstance(body, str):
        test = aged("t", 1, seed=23, n=1000)
        good = archive_of(owner_api, int(test.pk))
        out = io.BytesIO()
        with zipfile.ZipFile(io.BytesIO(good)) as src, zipfile.ZipFile(out, "w") as dst:
            for info in src.infolist():
                data = src.read(info)
                if info.filename == "manifest.json":
                    if body == "no-manifest":
                        continue
                    if body == "other-format":
                        data = json.dumps({"format": "x"}).encode()
                if info.filename == "aggregates.jsonl" and body == "bad-row":
                    data = b"[1, 2]\n"
                dst.writestr(info.filename, data)
        body = out.getvalue()
    count = Test.objects.count()
    answer = owner_api.post("/api/v1/archives", data=body, content_type="application/zip")
    assert answer.status_code == 400, answer.content
    assert message in answer.json()["error"]
    assert Test.objects.count() == count
    assert APIClient().post("/api/v1/archives", data=b"x", content_type="application/zip").status_code == 401


def test_monitoring_log_is_stored_once_and_a_bad_line_is_named(
    aged: Callable[..., Test], owner_api: APIClient, other_api: APIClient
) -> None:
    test = aged("t", 1, seed=24, n=1000)
    chunk = [
        {"timestamp": 1_795_316_100 + i, "data": {"db1": {"comment": "", "metrics": {"cpu": i, "mem": 1}}}}
        for i in range(3)
    ]
    body = "\n".join(json.dumps([c]) for c in chunk).encode() + b"\n"
    url = f"/api/v1/tests/{test.pk}/monitoring-log"
    for _ in range(2):  # twice: each point stored once
        answer = owner_api.put(url, data=body, content_type="application/x-ndjson")
        assert answer.status_code == 200 and answer.json() == {"test": test.pk, "points": 6}
    rows = client.execute(
        "SELECT count() FROM monitoring FINAL WHERE test_id = %(t)s AND host = 'db1'", {"t": test.pk}, tag="tests.mon"
    )
    assert rows[0][0] == 6
    bad = owner_api.put(url, data=body + b'{"not": "a list"}\n', content_type="application/x-ndjson")
    assert bad.status_code == 400 and bad.json()["error"].startswith("file: line 4:")
    assert other_api.put(url, data=body, content_type="application/x-ndjson").status_code in (403, 404)


def test_an_archive_lands_in_the_project_of_the_token_that_imports_it(
    aged: Callable[..., Test], owner: User, owner_api: APIClient
) -> None:
    from backend.loadtests.tokens import create_token
    from backend.projects.models import Project, Role
    from backend.testing import grant

    blob = archive_of(owner_api, int(aged("moved", 10, seed=23, n=2_000).pk))
    payments = Project.objects.create(slug="payments", name="Payments")
    grant(owner, Role.UPLOADER, payments)
    _token, raw = create_token(owner, "ci", project=payments, role=Role.UPLOADER)
    ci = APIClient()
    ci.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    imported = ci.post("/api/v1/archives", data=blob, content_type="application/zip")
    assert imported.status_code == 201, imported.content
    assert Test.objects.get(pk=imported.json()["id"]).project == payments
    # A viewer's token of that project creates nothing there.
    _token, viewer_raw = create_token(owner, "read", project=payments, role=Role.VIEWER)
    ci.credentials(HTTP_AUTHORIZATION=f"Token {viewer_raw}")
    refused = ci.post("/api/v1/archives", data=blob, content_type="application/zip")
    assert refused.status_code == 403 and "uploader" in refused.json()["error"]
