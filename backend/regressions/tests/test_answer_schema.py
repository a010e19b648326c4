"""The component dashboard on real uploads is exactly what the OpenAPI schema says (the component page's types come
from it): with a baseline and thresholds of each kind, without a baseline, and for a component with no tests."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from rest_framework.test import APIClient

from backend.core.tests.schema_answers import assert_answer_in_schema
from backend.loadtests.models import Test

pytestmark = pytest.mark.django_db
DASHBOARD = "/api/v1/components/{name}/dashboard"
KPIS = {
    "kpis": [
        {"kpi": "q99", "threshold": {"kind": "relative", "value": 20}},
        {"kpi": "max_rps", "threshold": {"kind": "absolute", "value": 10}},
        {"kpi": "imbalance_rps", "threshold": None},
        {"kpi": "error_share", "threshold": {"kind": "absolute", "value": 0.5}},
    ]
}


def test_dashboard_answers_match_the_schema(upload_test: Callable[..., Test], owner_api: APIClient) -> None:
    base = upload_test("api", seed=1)
    upload_test("api", seed=2, day=1)
    upload_test("api", seed=3, slow=1.6, day=2)
    assert owner_api.put("/api/v1/components/api/kpis", KPIS, format="json").status_code == 200

    no_baseline = owner_api.get("/api/v1/components/api/dashboard")
    assert no_baseline.json()["baseline"] is None and no_baseline.json()["kpis"][0]["limit"] is None
    assert_answer_in_schema(no_baseline, DASHBOARD)

    owner_api.post("/api/v1/components/api/baseline", {"test": base.pk}, format="json")
    with_baseline = owner_api.get("/api/v1/components/api/dashboard")
    body = with_baseline.json()
    assert body["baseline"]["id"] == base.pk and any(p["past_threshold"] for p in body["kpis"][0]["points"])
    assert body["kpis"][2]["points"][0]["value"] is None  # a steady test has no imbalance
    assert_answer_in_schema(with_baseline, DASHBOARD)

    nothing = owner_api.get("/api/v1/components/nothing-yet/dashboard")
    assert nothing.json()["tests"] == [] and nothing.json()["kpis_stored"] is False
    assert_answer_in_schema(nothing, DASHBOARD)
