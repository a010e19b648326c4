"""The compare answers on real data are exactly what the OpenAPI schema says (the compare page's types come from
it): tests with common and own cases and more errors, ramps compared by load, a window without data, and the 202
while the `analysis` queue computes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rest_framework.test import APIClient

from backend.celery_app import app as celery_app
from backend.compare.tests.conftest import T0
from backend.core.tests.schema_answers import assert_answer_in_schema
from backend.loadtests.models import Test

COMPARE = "/api/v1/compare"


def test_compare_answers_match_the_schema(store: Callable[..., Test], owner_api: APIClient) -> None:
    base = store(seed=31, tags=("index", "search", "login"))
    worse = store(seed=32, tags=("index", "search", "cart"), tail_scale=2.0, t0=T0 + 86_400, error_share=0.05)
    plain = owner_api.get(f"{COMPARE}?tests={base.pk},{worse.pk}")
    body = plain.json()
    assert body["per_case"] and body["cases"]["only_in"] and body["by_load"] is None
    assert "worse" in body["verdict"]["99"] and body["code_share_interval"]["http"]["500"][1] is not None
    assert_answer_in_schema(plain, COMPARE)

    empty = owner_api.get(f"{COMPARE}?tests={base.pk},{worse.pk}&from=1000&to=2000&case=index")
    assert empty.json()["quantiles_ms"]["99"] == [None, None] and empty.json()["windows"][0][0] is not None
    assert_answer_in_schema(empty, COMPARE)

    ramp = store(seed=33, loadscheme=["line(1, 60, 5m)"], ramp_to=60)
    steeper = store(seed=34, seconds=150, loadscheme=["line(1, 60, 150s)"], ramp_to=60)
    by_load = owner_api.get(f"{COMPARE}?tests={ramp.pk},{steeper.pk}&align=absolute")
    assert by_load.json()["by_load"]["rps"] and "quantiles_by_load" in by_load.json()["figures"]
    assert_answer_in_schema(by_load, COMPARE)


def test_the_pending_answer_matches_the_schema(store: Callable[..., Test], owner_api: APIClient, settings: Any) -> None:
    a, b = store(seed=35), store(seed=36)
    settings.TANKODROM_COMPARE_WAIT_S = 0.1
    celery_app.conf.task_always_eager = False
    try:
        pending = owner_api.get(f"{COMPARE}?tests={a.pk},{b.pk}")
    finally:
        celery_app.conf.task_always_eager = True
    assert pending.status_code == 202
    assert_answer_in_schema(pending, COMPARE)
