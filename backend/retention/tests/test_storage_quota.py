"""Storage you can see (rows and bytes per table and per test, the largest tests, the projection) and the quota that
refuses new uploads and tank streams with 507 naming it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rest_framework.test import APIClient

from backend.clickhouse.queries import storage as ch
from backend.clickhouse.tables import samples
from backend.loadtests import quota
from backend.loadtests.models import Test
from backend.loadtests.tokens import create_token
from backend.projects.models import Project, Role
from backend.reports.tests.factory import count_rows
from backend.testing import grant, make_token_user


def test_storage_answers_tables_tests_and_projection(aged: Callable[..., Test], owner_api: APIClient) -> None:
    small = aged("small", 2, seed=1, n=5_000)
    big = aged("big", 10, seed=2, n=40_000)
    old = aged("old", 200, seed=3, n=20_000)
    staff = make_token_user("admin", staff=True).client()
    assert owner_api.get("/api/v1/storage").status_code == 403
    answer = staff.get("/api/v1/storage")
    assert answer.status_code == 200, answer.content
    body = answer.json()
    usage = ch.table_usage()
    assert body["total_bytes"] == sum(u.bytes_on_disk for u in usage.values()) > 0
    raw = next(t for t in body["tables"] if t["table"] == "raw")
    assert raw["rows"] == 65_000 and raw["bytes_on_disk"] == usage[samples.NAME].bytes_on_disk
    assert [t["test"] for t in body["largest"]] == [big.pk, old.pk, small.pk]
    assert body["largest"][0]["rows"]["raw"] == 40_000
    # The per-test estimates add up to the tables' bytes (rounding aside).
    assert abs(sum(t["bytes_on_disk"] for t in body["largest"]) - body["total_bytes"]) <= 3 * 3
    # The rate: the two tests of the last 30 days, per day; the projection carries it forward.
    recent = sum(t["bytes_on_disk"] for t in body["largest"] if t["test"] in (small.pk, big.pk))
    assert abs(body["rate"]["bytes_per_day"] - recent / 30) <= 1
    year = next(p for p in body["projected"] if p["days"] == 365)
    assert (
        year["bytes_on_disk"] == round(body["total_bytes"] + body["rate"]["bytes_per_day"] * 365)
        or abs(year["bytes_on_disk"] - (body["total_bytes"] + recent / 30 * 365)) <= 1
    )
    assert body["quota"]["limit_bytes"] is None
    one = owner_api.get(f"/api/v1/tests/{big.pk}/storage").json()
    assert one["rows"] == {
        "raw": 40_000,
        "aggregates": count_rows("second_aggregates", big.pk),
        "monitoring": count_rows("monitoring", big.pk),
    }
    assert one["bytes_on_disk"] == body["largest"][0]["bytes_on_disk"]


def test_quota_refuses_new_uploads_and_streams(aged: Callable[..., Test], owner: Any, settings: Any) -> None:
    test = aged("a", 1, seed=4, n=5_000)
    user = make_token_user("uploader")
    test.owner = user.user
    test.save(update_fields=["owner"])
    quota.forget_usage()
    settings.TANKODROM_QUOTA_BYTES = 1000  # less than what is stored
    api = user.client()
    refused = api.put(f"/api/v1/tests/{test.pk}/phout", data=b"x" * 10, content_type="text/plain")
    assert refused.status_code == 507, refused.content
    body = refused.json()
    assert "project default's storage quota" in body["error"] and "TANKODROM_QUOTA_BYTES" in body["error"]
    assert body["quota"]["limit_bytes"] == 1000 and body["quota"]["used_bytes"] > 1000
    created = APIClient().post(f"/api/job/create.json?api_token={user.raw_token}", data={}, format="json")
    assert created.status_code == 507 and "storage quota" in created.json()["error"]
    before = Test.objects.count()
    settings.TANKODROM_QUOTA_BYTES = 10**12
    assert (
        APIClient().post(f"/api/job/create.json?api_token={user.raw_token}", data={}, format="json").status_code == 200
    )
    assert Test.objects.count() == before + 1


def test_a_project_over_its_quota_is_refused_while_another_uploads(
    aged: Callable[..., Test], owner: Any, settings: Any
) -> None:
    settings.TANKODROM_QUOTA_BYTES = 0  # no site default: only the full project's own quota refuses
    full = Project.objects.create(slug="full", name="Full", quota_bytes=1000)
    roomy = Project.objects.create(slug="roomy", name="Roomy")
    aged("a", 1, seed=5, n=5_000, project=full)
    aged("b", 1, seed=6, n=5_000, project=roomy)
    quota.forget_usage()
    user = make_token_user("uploader")
    for project in (full, roomy):
        grant(user.user, Role.UPLOADER, project)
    tokens = {p.slug: create_token(user.user, p.slug, project=p)[1] for p in (full, roomy)}
    refused = APIClient().post(f"/api/job/create.json?api_token={tokens['full']}", data={}, format="json")
    assert refused.status_code == 507, refused.content
    body = refused.json()
    assert "project full's storage quota" in body["error"] and "quota_bytes of project full" in body["error"]
    assert body["quota"]["project"] == "full" and body["quota"]["limit_bytes"] == 1000
    assert body["quota"]["used_bytes"] > 1000
    before = Test.objects.filter(project=roomy).count()
    created = APIClient().post(f"/api/job/create.json?api_token={tokens['roomy']}", data={}, format="json")
    assert created.status_code == 200, created.content
    assert Test.objects.filter(project=roomy).count() == before + 1
    # the site default applies to a project without its own quota, counting that project's bytes only
    settings.TANKODROM_QUOTA_BYTES = 10**12
    Project.objects.filter(slug="full").update(quota_bytes=None)
    quota.forget_usage()
    again = APIClient().post(f"/api/job/create.json?api_token={tokens['full']}", data={}, format="json")
    assert again.status_code == 200, again.content
    assert quota.used_bytes(quota.quota_for(full)) < quota.used_bytes(quota.quota_for(None))
