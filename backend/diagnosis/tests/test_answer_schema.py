"""The diagnosis answers on real data are exactly what the OpenAPI schema says (the frontend's types come from it):
a test's analysis ready (with findings, figures, a trend badge), pending and failed; a component's trend with a
history, with too short a one, and with none."""

from __future__ import annotations

from typing import Any

import numpy as np
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from backend.core.tests.schema_answers import assert_answer_in_schema
from backend.diagnosis import service
from backend.diagnosis.tasks import diagnose_test
from backend.diagnosis.tests.rows import insert_rows, overall_row
from backend.diagnosis.tests.test_api import T0, const_rows, new_test
from backend.diagnosis.tests.test_trend import history, values

ANALYSIS = "/api/v1/tests/{test_id}/analysis"
TREND = "/api/v1/components/{name}/trend"


def closed_model_rows(test_id: int) -> list[Any]:
    """A streamed instances ramp (no planned rate): throughput as the Universal Scalability Law has it, so the
    engine fits it and answers a figure."""
    levels = np.repeat(np.arange(1, 31), 8)
    throughput = 100.0 * levels / (1 + 0.05 * (levels - 1) + 0.001 * levels * (levels - 1))
    return [
        overall_row(test_id, 0, T0 + i, resps=round(rps), threads=int(level), q95_ms=1500.0 * level / rps)
        for i, (level, rps) in enumerate(zip(levels.tolist(), throughput.tolist(), strict=True))
    ]


def test_analysis_answers_match_the_schema(owner: User, clickhouse: None, owner_api: APIClient) -> None:
    closed = new_test(owner, component="api", loadscheme=[])
    insert_rows(closed_model_rows(closed.pk))
    diagnose_test(closed.pk)
    ready = owner_api.get(f"/api/v1/tests/{closed.pk}/analysis")
    body = ready.json()
    assert body["status"] == "ready" and body["findings"] and "usl" in body["figures"], body
    assert body["trend"] is not None
    assert_answer_in_schema(ready, ANALYSIS)

    unreadable_scheme = new_test(owner, loadscheme=["wave(1, 2, 3s)"])  # its finding has no facts
    insert_rows(const_rows(unreadable_scheme.pk))
    diagnose_test(unreadable_scheme.pk)
    no_component = owner_api.get(f"/api/v1/tests/{unreadable_scheme.pk}/analysis")
    assert no_component.json()["trend"] is None and "facts" not in no_component.json()["findings"][0]
    assert_answer_in_schema(no_component, ANALYSIS)

    pending = owner_api.get(f"/api/v1/tests/{new_test(owner, status='online').pk}/analysis")
    assert pending.json()["status"] == "pending"
    assert_answer_in_schema(pending, ANALYSIS)

    # A diagnosis that crashed, read while a new upload is processed (a closed test would have it queued again).
    crashed = new_test(owner, status="processing")
    service.mark_failed(crashed, "ValueError: no seconds")
    failed = owner_api.get(f"/api/v1/tests/{crashed.pk}/analysis")
    assert failed.json()["status"] == "failed", failed.json()
    assert_answer_in_schema(failed, ANALYSIS)


def test_trend_answers_match_the_schema(owner: User, owner_api: APIClient) -> None:
    history(owner, values(1, 10, 5))
    long = owner_api.get("/api/v1/components/api/trend?figure=q99")
    assert long.json()["change_points"] and long.json()["thresholds"]["baseline"] is not None
    assert_answer_in_schema(long, TREND)

    history(owner, [100.0, 101.0], component="young")
    short = owner_api.get("/api/v1/components/young/trend?figure=error_share")
    assert short.json()["thresholds"]["baseline"] is None
    assert_answer_in_schema(short, TREND)

    none = owner_api.get("/api/v1/components/nothing-yet/trend")
    assert none.json()["tests"] == [] and none.json()["thresholds"] == {}
    assert_answer_in_schema(none, TREND)
