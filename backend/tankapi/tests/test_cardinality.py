"""Issue 29's cardinality limits on the tank's live stream (README "Limits"), the uploads' rule
(analytics.cases.CaseNames): a test keeps its first TANKODROM_CASES_MAX distinct cases across flushes, every later
case's rows counted per second under "(other cases)"; a long name cut as an upload cuts it, names that the cut
makes one merged. The stored rows, the report and the tables stay bounded."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from django.test import Client

from analytics.cases import OTHER_CASES, cut_label
from backend.clickhouse import client as ch
from backend.clickhouse.tables import second_aggregates
from backend.tankapi import flush
from backend.tankapi.tests.test_protocol import _create, _push

pytestmark = pytest.mark.usefixtures("clickhouse", "redis_db")

T0 = 1_795_316_038


def item(ts: int, case: str, resps: int, expect_ms: float) -> dict[str, Any]:
    """One push_data item as the tank sends it (overall when `case` is '')."""
    quantiles = {f"q{level}": expect_ms for level in (50, 75, 80, 85, 90, 95, 98, 99, 100)}
    return {
        "overall": int(case == ""),
        "case": case,
        "net_codes": [{"code": 0, "count": resps}],
        "http_codes": [{"code": 200, "count": resps}],
        "time_intervals": [{"from": 0, "to": 34.0, "count": resps}],
        "trail": {
            "time": str(ts),
            "reqps": 10.0,
            "resps": resps,
            "expect": expect_ms,
            "input": 100 * resps,
            "output": 10 * resps,
            "connect_time": 0.0,
            "send_time": 0.0,
            "latency": 0.0,
            "receive_time": 0.0,
            "threads": 4,
            **quantiles,
        },
    }


def second(ts: int, cases: list[str]) -> bytes:
    """One second: each case i answered i + 1 times in 10·(i + 1) ms, and the overall row."""
    items = [item(ts, case, i + 1, 10.0 * (i + 1)) for i, case in enumerate(cases)]
    items.append(item(ts, "", sum(i + 1 for i in range(len(cases))), 20.0))
    return orjson.dumps(items)


def stored(job: int) -> dict[tuple[int, str], tuple[int, float, list[int]]]:
    rows = ch.execute(
        f"SELECT ts, case, resps, expect_ms, http_counts FROM {second_aggregates.NAME} FINAL"
        " WHERE test_id = %(t)s AND source_id = 0",
        {"t": job},
        tag="tests.tankapi.cardinality",
    )
    return {(int(r[0]), str(r[1])): (int(r[2]), float(r[3]), list(r[4])) for r in rows}


def test_cases_past_the_limit_are_counted_under_other_cases_across_flushes(
    tank_user: tuple[Any, str], settings: Any
) -> None:
    settings.TANKODROM_CASES_MAX = 5
    _user, token = tank_user
    http = Client()
    job, upload = _create(http, token)
    first = [f"/a/{i}" for i in range(3)]
    assert _push(http, job, upload, token, second(T0, first)).status_code == 200
    flush.flush_all()
    # The second flush still knows the three kept names: two more are kept, the rest are folded.
    many = [f"/b/{i}" for i in range(40)] + first
    for ts in (T0 + 1, T0 + 2):
        assert _push(http, job, upload, token, second(ts, many)).status_code == 200
    flush.flush_all()

    rows = stored(job)
    cases = {case for _ts, case in rows}
    assert cases == {"", *first, "/b/0", "/b/1", OTHER_CASES}
    for ts in (T0 + 1, T0 + 2):
        folded = [(i + 1, 10.0 * (i + 1)) for i, case in enumerate(many) if case.startswith("/b/") and i >= 2]
        resps, expect_ms, http_counts = rows[(ts, OTHER_CASES)]
        assert resps == sum(n for n, _ms in folded) and http_counts == [resps]
        assert expect_ms == pytest.approx(sum(n * ms for n, ms in folded) / resps)
        assert rows[(ts, "/a/1")][0] == many.index("/a/1") + 1  # a kept case as pushed
        # Nothing is lost: the cases add up to the overall row.
        assert sum(r[0] for (t, case), r in rows.items() if t == ts and case) == rows[(ts, "")][0]

    api = Client(HTTP_AUTHORIZATION=f"Token {token}")
    tables = api.get(f"/api/v1/tests/{job}/tables")
    assert tables.status_code == 200, tables.content[:300]
    names = {row["case"] for row in tables.json()["cases"]} - {"overall"}
    assert names <= cases and OTHER_CASES in names and "/b/39" not in names
    report = api.get(f"/api/v1/tests/{job}/report")
    assert report.status_code == 200, report.content[:300]
    assert b"/b/39" not in report.content and b"/b/2" not in report.content


def test_a_long_label_is_cut_as_an_upload_cuts_it(tank_user: tuple[Any, str], settings: Any) -> None:
    settings.TANKODROM_LABEL_MAX_CHARS = 20
    _user, token = tank_user
    http = Client()
    job, upload = _create(http, token)
    # Two names alike in their first 19 characters are one case once cut, as two such labels of a JTL file are.
    long_a, long_b = "/x" * 10 + "a" * 160_000, "/x" * 10 + "b" * 300
    assert _push(http, job, upload, token, second(T0, [long_a, long_b, "short"])).status_code == 200
    flush.flush_all()
    rows = stored(job)
    cut = cut_label(long_a, 20)
    assert cut == cut_label(long_b, 20) and len(cut) == 20 and cut.endswith("…")
    assert {case for _ts, case in rows} == {"", cut, "short"}
    resps, expect_ms, _codes = rows[(T0, cut)]
    assert resps == 1 + 2 and expect_ms == pytest.approx((1 * 10.0 + 2 * 20.0) / 3)
