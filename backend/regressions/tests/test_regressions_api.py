"""Baselines, KPI settings, the dashboard and the check, on real stores with tests uploaded through the API."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from backend.loadtests.models import Test, TestStatus
from backend.projects.models import Role, Visibility
from backend.regressions.baselines import protected_test_ids
from backend.testing import grant

pytestmark = pytest.mark.django_db
Upload = Callable[..., Test]
Q99_20_PERCENT = {"kpis": [{"kpi": "q99", "threshold": {"kind": "relative", "value": 20}}]}


def test_one_baseline_at_a_time_with_its_history(owner: User, owner_api: APIClient) -> None:
    a = Test.objects.create(owner=owner, component="api", status=TestStatus.READY)
    b = Test.objects.create(owner=owner, component="api", status=TestStatus.READY)
    elsewhere = Test.objects.create(owner=owner, component="web", status=TestStatus.READY)
    assert owner_api.get("/api/v1/components/api/baseline").json()["baseline"] is None
    assert owner_api.post("/api/v1/components/api/baseline", {"test": a.pk}, format="json").status_code == 200
    answer = owner_api.post("/api/v1/components/api/baseline", {"test": b.pk}, format="json").json()
    assert answer["baseline"]["id"] == b.pk
    assert [h["test_id"] for h in answer["history"]] == [b.pk, a.pk]
    wrong = owner_api.post("/api/v1/components/api/baseline", {"test": elsewhere.pk}, format="json")
    assert wrong.status_code == 404 and "belongs to component 'web'" in wrong.json()["error"]
    assert protected_test_ids() == {b.pk}
    cleared = owner_api.delete("/api/v1/components/api/baseline").json()
    assert cleared["baseline"] is None and cleared["history"][0]["cleared"] is True
    assert protected_test_ids() == set()


def test_baseline_access(owner: User, owner_api: APIClient, other_api: APIClient, anon_api: APIClient) -> None:
    mine = Test.objects.create(owner=owner, component="api", status=TestStatus.READY)
    private = Test.objects.create(owner=owner, component="api", status=TestStatus.READY, visibility=Visibility.OWNER)
    body = {"test": mine.pk}
    assert anon_api.post("/api/v1/components/api/baseline", body, format="json").status_code == 401
    denied = other_api.post("/api/v1/components/api/baseline", body, format="json")
    assert denied.status_code == 403 and "error" in denied.json()
    # Owning a test named like the component gives no say in it (anyone may name a test anything)...
    other = User.objects.get(username="other")
    Test.objects.create(owner=other, component="api", status=TestStatus.READY)
    assert other_api.post("/api/v1/components/api/baseline", body, format="json").status_code == 403
    # ... a maintainer of its project chooses its baseline, but a private test of another looks missing.
    grant(other, Role.MAINTAINER)
    hidden = other_api.post("/api/v1/components/api/baseline", {"test": private.pk}, format="json")
    missing = other_api.post("/api/v1/components/api/baseline", {"test": 10**9}, format="json")
    assert hidden.status_code == missing.status_code == 404
    assert hidden.json()["error"] == f"test {private.pk} not found"
    # The owner makes the private test the baseline: others see no baseline, and no entry of it in the history
    # (issue 29: an entry without its test still told that a private baseline was set, by whom and when).
    assert owner_api.post("/api/v1/components/api/baseline", {"test": private.pk}, format="json").status_code == 200
    seen = other_api.get("/api/v1/components/api/baseline").json()
    assert seen["baseline"] is None and seen["history"] == []
    assert [h["test_id"] for h in owner_api.get("/api/v1/components/api/baseline").json()["history"]] == [private.pk]
    bad = owner_api.get("/api/v1/components/a%00b/baseline")
    # NUL in a path is refused before any view (backend/core/middleware.py), naming the path.
    assert bad.status_code == 400 and "NUL" in bad.json()["error"]


@pytest.mark.parametrize(
    ("kpis", "message"),
    [
        ("q99", "kpis: a list"),
        ([{"kpi": "p99"}], "kpis[0].kpi: unknown KPI 'p99'"),
        ([{"kpi": "q99"}, {"kpi": "q99.0"}], "kpis[1].kpi: q99 is listed twice"),
        ([{"kpi": "q99", "threshold": {"kind": "percent", "value": 1}}], "kpis[0].threshold.kind"),
        ([{"kpi": "max_rps", "threshold": {"kind": "absolute", "value": -1}}], "kpis[0].threshold.value"),
        ([{"kpi": "error_share", "threshold": {"kind": "absolute", "value": "NaN"}}], "kpis[0].threshold.value"),
    ],
)
def test_bad_kpis_are_refused_naming_the_item(owner: User, owner_api: APIClient, kpis: Any, message: str) -> None:
    Test.objects.create(owner=owner, component="api")
    answer = owner_api.put("/api/v1/components/api/kpis", {"kpis": kpis}, format="json")
    assert answer.status_code == (409 if "listed twice" in message else 400)  # a list contradicting itself: 409
    assert answer.json()["error"].startswith(message)


def test_kpis_are_saved_per_component(owner: User, owner_api: APIClient, other_api: APIClient) -> None:
    Test.objects.create(owner=owner, component="api")
    assert owner_api.get("/api/v1/components/api/kpis").json()["stored"] is False
    assert other_api.put("/api/v1/components/api/kpis", Q99_20_PERCENT, format="json").status_code == 403
    saved = owner_api.put("/api/v1/components/api/kpis", Q99_20_PERCENT, format="json")
    assert saved.status_code == 200
    assert saved.json()["kpis"] == [{"kpi": "q99", "threshold": {"kind": "relative", "value": 20.0}}]
    assert owner_api.get("/api/v1/components/web/kpis").json()["stored"] is False


def test_dashboard_and_check_against_the_baseline(upload_test: Upload, owner_api: APIClient) -> None:
    base = upload_test("api", seed=1)
    same = upload_test("api", seed=2, day=1)
    slow = upload_test("api", seed=3, slow=1.6, day=2)
    owner_api.post("/api/v1/components/api/baseline", {"test": base.pk}, format="json")
    kpis = {
        "kpis": [
            {"kpi": "q99", "threshold": {"kind": "relative", "value": 20}},
            {"kpi": "max_rps", "threshold": {"kind": "absolute", "value": 10}},
            {"kpi": "error_share", "threshold": None},
        ]
    }
    assert owner_api.put("/api/v1/components/api/kpis", kpis, format="json").status_code == 200

    board = owner_api.get("/api/v1/components/api/dashboard").json()
    assert board["baseline"]["id"] == base.pk
    assert [t["id"] for t in board["tests"]] == [base.pk, same.pk, slow.pk]
    q99 = board["kpis"][0]
    assert q99["kpi"] == "q99" and q99["threshold"] == {"kind": "relative", "value": 20.0}
    assert q99["limit"] == pytest.approx(q99["baseline_value"] * 1.2)
    assert [p["past_threshold"] for p in q99["points"]] == [False, False, True]
    assert q99["figure"]["data"][0]["customdata"] == [base.pk, same.pk, slow.pk]  # each point links to its test
    assert [t["name"] for t in q99["figure"]["data"]] == ["99% quantile", "past the threshold", "baseline", "threshold"]
    rps = board["kpis"][1]
    assert rps["limit"] == 10.0 and not any(p["past_threshold"] for p in rps["points"])

    passed = owner_api.get(f"/api/v1/components/api/check/{same.pk}").json()
    assert passed["pass"] is True and passed["reasons"] == [] and passed["baseline"]["id"] == base.pk
    failed = owner_api.get(f"/api/v1/components/api/check/{slow.pk}").json()
    assert failed["pass"] is False
    assert failed["reasons"][0].startswith("q99: ") and "is above its threshold" in failed["reasons"][0]
    assert f"(20% from baseline #{base.pk}" in failed["reasons"][0]
    assert failed["reasons"][1].startswith(f"q99: worse than baseline #{base.pk}")
    assert failed["report_url"].endswith(f"/{slow.pk}")


def test_check_answers_409_while_the_test_is_processed_and_hides_private_tests(
    owner: User, owner_api: APIClient, other_api: APIClient
) -> None:
    running = Test.objects.create(owner=owner, component="api", status=TestStatus.PROCESSING)
    answer = owner_api.get(f"/api/v1/components/api/check/{running.pk}")
    assert answer.status_code == 409 and "still processing" in answer.json()["error"]
    private = Test.objects.create(owner=owner, component="api", status=TestStatus.READY, visibility=Visibility.OWNER)
    hidden = other_api.get(f"/api/v1/components/api/check/{private.pk}")
    missing = other_api.get(f"/api/v1/components/api/check/{10**9}")
    assert hidden.status_code == missing.status_code == 404
    assert hidden.json()["error"] == f"test {private.pk} not found"
    wrong = owner_api.get(f"/api/v1/components/web/check/{running.pk}")
    assert wrong.status_code == 404  # the pair (component, test) names nothing


def test_kpis_are_warmed_after_the_post_processing_and_follow_a_new_upload(
    upload_test: Upload, monkeypatch: pytest.MonkeyPatch
) -> None:
    from backend.notify.tasks import notify_test
    from backend.regressions import kpis

    test = upload_test("api", seed=1)
    notify_test(test.pk)  # what the diagnosis queues last; nobody subscribed, so it only warms the cache
    configs, _ = kpis.configs_of(test.project_id, "api")

    def no_summary(*args: Any) -> Any:
        raise AssertionError("the summary was computed again")

    monkeypatch.setattr("backend.reports.service.summary", no_summary)
    warm = kpis.values_of(test, configs)
    assert warm["q99"] is not None and warm["max_rps"] is not None
    # A new active upload is a new data version: the cached values are not served for it.
    Test.objects.filter(pk=test.pk).update(last_ts=(test.last_ts or 0) + 1)
    test.refresh_from_db()
    with pytest.raises(AssertionError, match="computed again"):
        kpis.values_of(test, configs)


def test_a_check_whose_diagnosis_crashes_judges_the_rest_and_says_so(
    upload_test: Upload, owner_api: APIClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A diagnosis that crashes on the test's data: the check still answers (never a 5xx to a CI job), judges the
    KPIs that do not need it, and says which it could not."""
    from backend.diagnosis import service
    from backend.diagnosis.models import TestAnalysis

    base = upload_test("api", seed=1)
    same = upload_test("api", seed=2, day=1)
    owner_api.post("/api/v1/components/api/baseline", {"test": base.pk}, format="json")
    assert owner_api.put("/api/v1/components/api/kpis", Q99_20_PERCENT, format="json").status_code == 200
    TestAnalysis.objects.filter(test=same).delete()

    def crash(test: Test) -> TestAnalysis:
        raise ValueError("boom")

    monkeypatch.setattr(service, "run", crash)
    response = owner_api.get(f"/api/v1/components/api/check/{same.pk}")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["pass"] is True and body["reasons"] == []  # q99 is read from the samples, not the diagnosis
    assert (
        f"the diagnosis of test {same.pk} failed (ValueError: boom): its KPIs (imbalance, error share) are not judged"
        in body["notes"]
    )
