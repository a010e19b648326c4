"""Tests CRUD: create with a token, list with filters, read, edit, star, delete (both stores)."""

from __future__ import annotations

import time
from typing import Any

from backend.clickhouse.tables import monitoring, samples, second_aggregates
from backend.loadtests.models import Test
from backend.projects.models import Visibility, default_project
from backend.reports.tests import factory


def test_create_needs_a_token_and_answers_201_with_the_id(owner_api, anon_api, db) -> None:
    refused = anon_api.post("/api/v1/tests/", {"name": "x"}, format="json")
    assert refused.status_code == 401 and "token" in refused.json()["error"]
    created = owner_api.post(
        "/api/v1/tests/",
        {
            "name": "ramp",
            "description": "d",
            "component": "api",
            "version": "1.2",
            "task": "LOAD-1",
            "person": "me",
            "target": "10.0.0.1:8080",
        },
        format="json",
    )
    assert created.status_code == 201, created.json()
    body = created.json()
    test = Test.objects.get(pk=body["id"])
    assert test.owner.username == "owner" and body["owner"] == "owner"
    assert (test.target_host, test.target_port, body["target"]) == ("10.0.0.1", "8080", "10.0.0.1:8080")
    assert body["status"] == "processing" and body["error"] == ""
    assert "upload_token" not in body and body["can_write"] is True


def test_list_filters_newest_first_and_paginates(owner, owner_api, anon_api, db) -> None:
    a = Test.objects.create(owner=owner, name="alpha run", component="api", person="ann", status="ready")
    b = Test.objects.create(owner=owner, name="beta", component="db", person="bob", status="failed", starred=True)
    c = Test.objects.create(owner=owner, name="gamma", component="api", person="ann", status="online")
    Test.objects.create(owner=owner, name="secret", visibility=Visibility.OWNER)

    def ids(params: dict[str, Any], api: Any = anon_api) -> list[int]:
        response = api.get("/api/v1/tests/", params)
        assert response.status_code == 200, response.json()
        return [t["id"] for t in response.json()["results"]]

    assert ids({}) == [c.pk, b.pk, a.pk]  # the private test is not listed for others
    assert len(ids({}, owner_api)) == 4
    assert ids({"component": "api"}) == [c.pk, a.pk]
    assert ids({"person": "bob"}) == [b.pk]
    assert ids({"status": "failed"}) == [b.pk]
    assert ids({"starred": "true"}) == [b.pk]
    assert ids({"search": "alph"}) == [a.pk]
    assert ids({"search": str(b.pk)}) == [b.pk]
    assert ids({"since": "2000-01-01", "until": str(int(time.time()) + 60)}) == [c.pk, b.pk, a.pk]
    assert ids({"since": str(int(time.time()) + 3600)}) == []
    today = time.strftime("%Y-%m-%d", time.gmtime())
    assert ids({"since": today, "until": today}) == [c.pk, b.pk, a.pk]  # a date names the whole day
    page = anon_api.get("/api/v1/tests/", {"page_size": 2}).json()
    assert page["count"] == 3 and page["next"] and page["previous"] is None and len(page["results"]) == 2
    bad = anon_api.get("/api/v1/tests/", {"status": "bogus"})
    assert bad.status_code == 400 and "status" in bad.json()["error"]


def test_edit_star_and_access(owner, owner_api, other_api, anon_api, db) -> None:
    test = Test.objects.create(owner=owner, name="before")
    url = f"/api/v1/tests/{test.pk}/"
    assert anon_api.get(url).json()["name"] == "before"
    assert anon_api.get(url).json()["can_write"] is False
    assert anon_api.patch(url, {"name": "x"}, format="json").status_code == 401
    assert other_api.patch(url, {"name": "x"}, format="json").status_code == 403
    edited = owner_api.patch(url, {"name": "after", "status": "ready"}, format="json")
    assert edited.status_code == 200 and edited.json()["name"] == "after"
    assert edited.json()["status"] == "online"  # status is the pipeline's, not editable
    assert other_api.post(f"{url}star").status_code == 403
    assert owner_api.post(f"{url}star").json() == {"id": test.pk, "starred": True}
    assert Test.objects.get(pk=test.pk).starred is True
    assert owner_api.delete(f"{url}star").json()["starred"] is False
    test.visibility = Visibility.OWNER
    test.save(update_fields=["visibility"])
    assert other_api.get(url).status_code == 404
    assert owner_api.get(url).status_code == 200


def test_delete_removes_the_test_from_both_stores(owner, owner_api, other_api, clickhouse, db) -> None:
    test = Test.objects.create(owner=owner, name="doomed")
    keep = Test.objects.create(owner=owner, name="kept")
    s = factory.random_samples(500, 10)
    for t in (test, keep):
        factory.insert_samples(t.pk, 1, s)
        factory.insert_aggregates(factory.aggregate_rows(t.pk, 0, s))
        factory.insert_monitoring(t.pk, "host", {"System_la1": [0.5, 0.7]})
    assert other_api.delete(f"/api/v1/tests/{test.pk}/").status_code == 403
    assert owner_api.delete(f"/api/v1/tests/{test.pk}/").status_code == 204
    assert not Test.objects.filter(pk=test.pk).exists()
    tables = (samples.NAME, second_aggregates.NAME, monitoring.NAME)
    deadline = time.monotonic() + 20
    while any(factory.count_rows(t, test.pk) for t in tables) and time.monotonic() < deadline:
        time.sleep(0.2)  # ALTER ... DELETE is a mutation: applied in the background
    assert [factory.count_rows(t, test.pk) for t in tables] == [0, 0, 0]
    assert all(factory.count_rows(t, keep.pk) for t in tables)


def test_a_private_instance_lists_nothing_to_strangers(owner, owner_api, anon_api, settings, db) -> None:
    settings.TANKODROM_PRIVATE_INSTANCE = True
    test = Test.objects.create(owner=owner, name="internal")
    refused = anon_api.get("/api/v1/tests/")
    assert refused.status_code == 401 and "private" in refused.json()["error"]
    assert anon_api.get(f"/api/v1/tests/{test.pk}/summary").status_code == 401
    assert [t["id"] for t in owner_api.get("/api/v1/tests/").json()["results"]] == [test.pk]


def test_every_report_call_is_in_the_openapi_schema_with_its_window_parameters() -> None:
    from drf_spectacular.generators import SchemaGenerator

    paths = SchemaGenerator().get_schema(request=None, public=True)["paths"]
    for call in ("summary", "tables", "monitoring", "charts/{name}"):
        operation = paths[f"/api/v1/tests/{{test_id}}/{call}"]["get"]
        names = {p["name"] for p in operation["parameters"]}
        assert {"from", "to", "case", "q"} <= names, call
        assert "200" in operation["responses"]
    chart = paths["/api/v1/tests/{test_id}/charts/{name}"]["get"]
    name = next(p for p in chart["parameters"] if p["name"] == "name")
    assert "quantiles_by_load" in name["schema"]["enum"]
    assert {"get", "post"} <= set(paths["/api/v1/tests/"])


def test_delete_an_uploaded_test_with_its_uploads(uploaded, owner_api) -> None:
    test, _ = uploaded
    assert owner_api.delete(f"/api/v1/tests/{test.pk}/").status_code == 204
    assert not Test.objects.filter(pk=test.pk).exists()
    assert owner_api.get(f"/api/v1/tests/{test.pk}/summary").status_code == 404


def test_odd_inputs_get_a_4xx_naming_the_problem(uploaded, anon_api) -> None:
    test, _ = uploaded
    for params, word in [
        ({"from": "inf"}, "from"),
        ({"from": "1e400"}, "from"),
        ({"to": "-inf"}, "to"),
        ({"q": "inf"}, "q"),
        ({"compress_ratio": "1e9"}, "compress_ratio"),
        ({"case": "a\x00b"}, "case"),
    ]:
        response = anon_api.get(f"/api/v1/tests/{test.pk}/summary", params)
        assert response.status_code == 400 and word in response.json()["error"], params
    for params, word in [
        ({"search": "a\x00b"}, "search"),
        ({"since": "2020-13-45"}, "since"),
        ({"until": "99999999999999999999"}, "until"),
        ({"component": "\x00"}, "component"),
    ]:
        response = anon_api.get("/api/v1/tests/", params)
        assert response.status_code == 400 and word in response.json()["error"], params
    assert anon_api.get("/api/v1/tests/", {"page": "zz"}).status_code == 404
    assert anon_api.get("/api/v1/tests/99999999999999999999999/").status_code == 404


def test_the_list_costs_the_same_queries_for_3_or_30_tests(owner, owner_api, django_assert_max_num_queries) -> None:
    def listed() -> int:
        return len(owner_api.get("/api/v1/tests/").json()["results"])

    project = default_project()
    Test.objects.bulk_create(
        [Test(owner=owner, project=project, name=f"t{i}", upload_token=f"tok{i}") for i in range(3)]
    )
    with django_assert_max_num_queries(7):  # token, roles, count, page (owner joined); nothing per test
        assert listed() == 3
    Test.objects.bulk_create(
        [Test(owner=owner, project=project, name=f"u{i}", upload_token=f"tok-u{i}") for i in range(27)]
    )
    with django_assert_max_num_queries(7):
        assert listed() == 30


def test_list_filters_by_project_within_what_the_caller_may_read(owner, owner_api, anon_api, db) -> None:
    from backend.projects.models import Project

    team = Project.objects.create(slug="team", name="Team")
    in_default = Test.objects.create(owner=owner, name="d", status="ready")
    in_team = Test.objects.create(owner=owner, name="t", status="ready", project=team)
    hidden = Test.objects.create(owner=owner, name="h", status="ready", project=team, visibility=Visibility.PROJECT)

    def ids(params: dict[str, Any], api: Any = anon_api) -> list[int]:
        response = api.get("/api/v1/tests/", params)
        assert response.status_code == 200, response.json()
        return [t["id"] for t in response.json()["results"]]

    assert ids({"project": "team"}) == [in_team.pk]  # a project-only test stays hidden from a stranger
    assert ids({"project": default_project().slug}) == [in_default.pk]
    assert ids({"project": "nowhere"}) == [] and ids({"project": "Not A Slug"}) == []
    assert set(ids({"project": "team"}, owner_api)) <= {in_team.pk, hidden.pk}
    assert set(ids({}, anon_api)) == {in_default.pk, in_team.pk}
