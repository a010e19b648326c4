"""`GET /api/v1/compare` on the real stores: verdicts, exact values, windows, cases, access, cache, task."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from analytics.tests.compare_support import check_codes, check_levels, check_summary
from backend.celery_app import app as celery_app
from backend.clickhouse import client
from backend.clickhouse.tables import samples
from backend.compare import service
from backend.compare.tasks import compute_comparison
from backend.compare.tests.conftest import T0, insert_samples
from backend.loadtests.models import Test, Upload, UploadStatus
from backend.projects.models import Visibility

URL = "/api/v1/compare"


def _get(api: APIClient, query: str) -> Any:
    return api.get(f"{URL}?{query}")


def test_slower_tail_is_worse_with_interval_and_exact_values(store: Callable[..., Test], owner_api: APIClient) -> None:
    base = store(seed=1)
    slower = store(seed=2, tail_scale=2.0, t0=T0 + 86_400, error_share=0.05)
    response = _get(owner_api, f"tests={base.pk},{slower.pk}")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["tests"] == [base.pk, slower.pk]
    assert body["exact"] == [True, True]
    assert body["verdict"]["99"] == [None, "worse"]
    assert body["verdict"]["50"] == [None, "same"]
    # The judged figure, the typical change of a stretch of seconds, inside its interval and beyond zero.
    low, high = body["change_interval_pct"]["99"][1]
    assert body["change_interval_pct"]["99"][0] is None and body["change_pct"]["99"][0] is None
    assert 0 < low <= body["change_pct"]["99"][1] <= high
    assert body["diff_ms"]["99"] == [0.0, pytest.approx(body["quantiles_ms"]["99"][1] - body["quantiles_ms"]["99"][0])]
    # The whole test's relative difference beside the absolute one, of the same sign as the verdict.
    base_p99 = body["quantiles_ms"]["99"][0]
    assert body["diff_pct"]["99"] == [0.0, pytest.approx(body["diff_ms"]["99"][1] / base_p99 * 100)]
    assert body["diff_pct"]["99"][1] > 0
    assert body["verdict_notes"]["99"] == [None, None] and body["verdict_notes"]["100"][1]  # the maximum: why not
    assert body["summary"] == [f"#{slower.pk} is slower than #{base.pk} at " + body["summary"][0].split(" at ", 1)[1]]
    assert body["code_meaning"]["http"]["500"] == {"name": "Internal Server Error", "class": "server_error"}
    check_levels(body)
    check_codes(body)
    check_summary(body["summary"], body)
    # Values are order statistics of the stored samples (ClickHouse's quantilesExact position floor(n * p)).
    rows = client.execute(
        f"SELECT interval_real_us FROM {samples.NAME} WHERE test_id = %(t)s", {"t": base.pk}, tag="tests.compare.raw"
    )
    values = np.sort(np.array([r[0] for r in rows]))
    assert body["quantiles_ms"]["99"][0] == pytest.approx(values[int(values.size * 0.99)] / 1000.0)
    assert body["count"] == [6000, 6000]
    # HTTP codes: exact counts, and 5% errors against none is worse for both codes.
    assert sum(body["http_codes"]["200"]) + sum(body["http_codes"].get("500", [0, 0])) == 12_000
    assert body["http_codes"]["500"][0] == 0
    assert body["code_verdicts"]["http"]["500"] == [None, "worse"]
    assert body["code_verdicts"]["net"]["0"] == [None, "same"]
    assert body["code_share_interval"]["http"]["500"][1][0] > 0.03
    assert body["figures"]["quantiles"]["data"] and body["figures"]["distribution"]["data"]
    assert body["method"].startswith("Paired sign-flip test")
    assert body["url"] == f"/compare/{base.pk}/{slower.pk}"


def test_same_system_twice_is_same(store: Callable[..., Test], owner_api: APIClient) -> None:
    a, b = store(seed=3), store(seed=4, t0=T0 + 3600)
    body = _get(owner_api, f"tests={a.pk},{b.pk}&q=50,90,99").json()
    assert body["verdict"] == {"50": [None, "same"], "90": [None, "same"], "99": [None, "same"]}
    assert body["code_verdicts"]["http"]["200"] == [None, "same"]


def test_streamed_test_against_uploaded(store: Callable[..., Test], owner_api: APIClient) -> None:
    # 100 rps for 2 min: enough responses beyond p99 in every stretch of seconds to judge it there.
    uploaded = store(seed=5, rps=100, seconds=120)
    streamed = store(seed=6, streamed=True, tail_scale=2.0, t0=T0 + 7200, rps=100, seconds=120)
    body = _get(owner_api, f"tests={uploaded.pk},{streamed.pk}").json()
    assert body["exact"] == [True, False]
    assert body["count"] == [12000, 12000]
    assert body["verdict"]["99"] == [None, "worse"]
    assert body["cases"]["common"] == ["index", "search"]
    assert set(body["per_case"]) == {"index", "search"}
    assert body["per_case"]["index"]["verdict"]["99"] == [None, "worse"]
    check_levels(body)
    for part in body["per_case"].values():
        check_levels(part)


def test_window_relative_to_each_start_or_absolute(store: Callable[..., Test], owner_api: APIClient) -> None:
    a = store(seed=7, seconds=120)
    b = store(seed=8, seconds=120, t0=T0 + 1000)
    body = _get(owner_api, f"tests={a.pk},{b.pk}&from=60&to=90").json()
    assert body["windows"] == [[T0 + 60, T0 + 90], [T0 + 1060, T0 + 1090]]
    assert body["count"] == [600, 600]
    # The quantiles chart starts where the window does, in seconds since each test's start.
    assert body["figures"]["quantiles"]["data"][0]["x"][0] == 60
    absolute = _get(owner_api, f"tests={a.pk},{b.pk}&from={T0 + 60}&to={T0 + 1090}&align=absolute").json()
    assert absolute["count"] == [60 * 20, 90 * 20]
    assert absolute["verdict"]["50"][1] in {"same", "better", "worse"}


def test_window_without_data_has_no_values_or_verdicts(store: Callable[..., Test], owner_api: APIClient) -> None:
    a, b = store(seed=21, seconds=60), store(seed=22, seconds=60)
    body = _get(owner_api, f"tests={a.pk},{b.pk}&from=1000&to=2000").json()
    assert body["count"] == [0, 0]
    assert body["quantiles_ms"]["99"] == [None, None]
    assert body["verdict"]["99"] == [None, None]
    assert body["http_codes"] == {} and body["per_case"] == {}


def test_cases_common_and_only_in(store: Callable[..., Test], owner_api: APIClient) -> None:
    a = store(seed=9, tags=("index", "search", "login"))
    b = store(seed=10, tags=("index", "search", "cart"))
    body = _get(owner_api, f"tests={a.pk},{b.pk}").json()
    assert body["cases"]["common"] == ["index", "search"]
    assert body["cases"]["only_in"] == {str(a.pk): ["login"], str(b.pk): ["cart"]}
    assert set(body["per_case"]) == {"index", "search"}
    chosen = _get(owner_api, f"tests={a.pk},{b.pk}&case=index&case=login").json()
    assert chosen["cases"]["common"] == ["index"]
    assert chosen["cases"]["only_in"] == {str(a.pk): ["login"]}
    assert chosen["count"][0] == sum(chosen["http_codes"]["200"][:1]) < 6000


def test_ramp_tests_are_aligned_by_load(store: Callable[..., Test], owner_api: APIClient) -> None:
    a = store(seed=11, loadscheme=["line(1, 60, 5m)"], ramp_to=60)
    b = store(seed=12, seconds=150, loadscheme=[{"type": "line", "from": 1, "to": 60, "duration": "150s"}], ramp_to=60)
    body = _get(owner_api, f"tests={a.pk},{b.pk}").json()
    # Twice the slope, the same system: each RPS band holds the same latencies.
    bands = body["by_load"]["rps"]
    assert len(bands) >= 5 and bands[0][0] <= 5 and bands[-1][1] >= 55
    assert body["by_load"]["verdict"]["50"][0] == [None] * len(bands)
    assert body["by_load"]["verdict"]["50"][1] == ["same"] * len(bands)
    assert len(body["by_load"]["quantiles_ms"]["99"][1]) == len(bands)
    assert "quantiles_by_load" in body["figures"]
    tables = {name: table for name, table in body["by_load"].items() if name != "rps"}
    for k in range(len(bands)):
        check_levels(
            {
                "count": [1, 1],
                **{name: {level: [rows[i][k] for i in range(2)] for level, rows in table.items()}
                   for name, table in tables.items()},
            }
        )  # fmt: skip
    plain = _get(owner_api, f"tests={store(seed=13).pk},{store(seed=14).pk}").json()
    assert plain["by_load"] is None


def test_phout_only_ramps_are_aligned_by_load_too(store: Callable[..., Test], owner_api: APIClient) -> None:
    """No schedule given (a phout-only upload): the ramp is recognised by its response rate."""
    a = store(seed=15, ramp_to=60, loadscheme=[])
    b = store(seed=16, seconds=150, ramp_to=60, loadscheme=[])
    body = _get(owner_api, f"tests={a.pk},{b.pk}").json()
    assert body["by_load"] is not None and len(body["by_load"]["rps"]) >= 5


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("", "tests is required"),
        ("tests=1", "at least two"),
        ("tests=1,x", "'x' is not a test id"),
        ("tests=1,1", "listed twice"),
        ("tests=1,2&q=99,abc", "q: quantile level 'abc' is not a number"),
        ("tests=1,2&q=101", "q: quantile level '101' must be a percent between 0 and 100"),
        ("tests=1,2&from=-1", "from must be a whole number of seconds between 0 and 2^32-1"),
        ("tests=1,2&align=middle", "align must be one of"),
        ("tests=1,99999999999999999999", "is not a test id"),
        ("tests=1,2&to=4294967296", "to must be a whole number of seconds between 0 and 2^32-1"),
        ("tests=1,2&q=nan", "q: quantile level 'nan' must be a percent between 0 and 100"),
    ],
)
def test_bad_parameters_are_400_naming_the_problem(owner_api: APIClient, query: str, message: str) -> None:
    response = _get(owner_api, query)
    assert response.status_code == 400
    assert message in response.json()["error"]


def test_missing_and_private_tests_are_404(
    store: Callable[..., Test], owner_api: APIClient, other_api: APIClient
) -> None:
    a, b = store(seed=15), store(seed=16)
    missing = _get(owner_api, f"tests={a.pk},{b.pk + 1000}")
    assert missing.status_code == 404 and str(b.pk + 1000) in missing.json()["error"]
    b.visibility = Visibility.OWNER
    b.save(update_fields=["visibility"])
    assert _get(other_api, f"tests={a.pk},{b.pk}").status_code == 404
    assert _get(owner_api, f"tests={a.pk},{b.pk}").status_code == 200


def test_cached_answer_runs_no_query_and_new_data_recomputes(store: Callable[..., Test], owner_api: APIClient) -> None:
    a, b = store(seed=17), store(seed=18)
    first = _get(owner_api, f"tests={a.pk},{b.pk}").json()
    seen: list[str] = []
    client.add_observer(lambda sql, params: seen.append(sql))
    try:
        again = _get(owner_api, f"tests={a.pk},{b.pk}").json()
        assert again == first and seen == []
        # A new active upload for b (a re-upload with a slower tail) changes the key: computed afresh.
        upload = Upload.objects.create(test=b, status=UploadStatus.READY)
        rng = np.random.default_rng(99)
        secs = np.repeat(np.arange(300) + T0, 20).astype(np.int64)
        slow = (rng.lognormal(np.log(100_000.0), 0.3, secs.size) * 2).astype(np.int64)
        ones = np.full(secs.size, 200, dtype=np.int64)
        insert_samples(b.pk, upload.pk, secs, slow, np.array(["index"] * secs.size, dtype=object), ones, ones * 0)
        b.active_upload = upload
        b.save(update_fields=["active_upload"])
        fresh = _get(owner_api, f"tests={a.pk},{b.pk}").json()
        assert seen
        assert fresh["verdict"]["50"] == [None, "worse"]
    finally:
        client._observers.pop()


def test_pending_while_the_analysis_queue_works_then_served(
    store: Callable[..., Test], owner_api: APIClient, redis_db: Any, settings: Any
) -> None:
    """With a real broker (not eager): the view queues one task on `analysis`, answers 202, then the result."""
    a, b = store(seed=19), store(seed=20)
    settings.TANKODROM_COMPARE_WAIT_S = 0.2
    celery_app.conf.task_always_eager = False
    try:
        first = _get(owner_api, f"tests={a.pk},{b.pk}&q=50,99")
        second = _get(owner_api, f"tests={a.pk},{b.pk}&q=50,99")
    finally:
        celery_app.conf.task_always_eager = True
    assert first.status_code == second.status_code == 202
    assert first.json() == {"status": "pending", "retry_after_s": 1}
    queued = [json.loads(m) for m in redis_db.lrange("analysis", 0, -1)]
    assert [m["headers"]["task"] for m in queued] == ["backend.compare.tasks.compute_comparison"]  # queued once
    params = service.CompareParams((a.pk, b.pk), levels=(50.0, 99.0))
    # What the worker runs; running it twice changes nothing (idempotent).
    compute_comparison(params.to_dict())
    key = service.cache_key(params, [a, b])
    stored = cache.get(key)
    compute_comparison(params.to_dict())
    assert cache.get(key) == stored
    served = _get(owner_api, f"tests={a.pk},{b.pk}&q=50,99")
    assert served.status_code == 200 and served.json() == stored


def test_a_second_pushed_twice_counts_once(store: Callable[..., Test], owner_api: APIClient) -> None:
    from backend.clickhouse.tables import second_aggregates

    base = store(seed=23, seconds=60)
    streamed = store(seed=24, seconds=60, streamed=True)
    rows = client.execute(
        f"SELECT * FROM {second_aggregates.NAME} WHERE test_id = %(t)s AND ts < %(ts)s",
        {"t": streamed.pk, "ts": T0 + 10},
        tag="tests.compare.repush",
    )
    # The tank retries a push after a 5xx: the same seconds arrive again, later.
    client.insert_rows(
        second_aggregates.NAME, second_aggregates.COLUMNS, [(*r[:-1], 2) for r in rows], tag="tests.compare.repush"
    )
    body = _get(owner_api, f"tests={base.pk},{streamed.pk}").json()
    assert body["count"] == [1200, 1200]
    assert sum(body["http_codes"]["200"]) == 2400
