"""Every page and endpoint that shows a figure shows the same one (issue 31): the error share, max RPS, q99, the
2xx and net-error shares, on the list, the report's summary (the header's chips), its tables, the KPIs of the
component page, the CI check, the diagnosis' trend figure, the chat preview and the comparison, for a test of each
format: phout (a real BFG run), Pandora's phout with discarded requests, JMeter JTL, k6, Gatling and Locust.

Where the file holds single requests, the figures are also held to a plain recount of its rows
(analytics/tests/reference.py): failed requests one by one, the order statistic by sorting, max RPS by windows.
"""

from __future__ import annotations

import gzip
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from django.contrib.auth.models import AnonymousUser, User
from django.test import RequestFactory
from rest_framework.test import APIClient

from analytics.definitions import format_count, format_ms, format_percent
from analytics.formats.detect import detect, parser_class
from analytics.tests import reference
from backend.loadtests.models import Test, TestStatus
from backend.sharing.unfurl import head_tags

pytestmark = pytest.mark.django_db(transaction=False)

ROOT = Path(__file__).resolve().parents[3]
FORMATS = ROOT / "analytics" / "formats" / "tests" / "fixtures"


@dataclass(frozen=True)
class Case:
    name: str
    path: Path
    samples: bool  # single requests in the file (else per-second rows: Locust)


CASES = (
    Case("phout", ROOT / "analytics" / "tests" / "fixtures" / "real_runs" / "const_a.phout.gz", True),
    Case("pandora", ROOT / "analytics" / "tests" / "golden" / "phout" / "discarded.phout", True),
    Case("jtl", FORMATS / "jmeter_default.jtl", True),
    Case("k6", FORMATS / "k6.json", True),
    Case("gatling", FORMATS / "gatling_3_9.log", True),
    Case("locust", FORMATS / "locust" / "run_stats_history.csv", False),
)
KPIS = {"kpis": [{"kpi": k, "threshold": None} for k in ("q99", "max_rps", "error_share")]}


def _rows(case: Case) -> dict[str, np.ndarray]:
    """The file's requests as the upload's parser reads them: response second, response time, codes."""
    body = case.path.read_bytes()
    text = gzip.decompress(body) if case.path.suffix == ".gz" else body
    parser = parser_class(detect(text[:65536]))()
    batches = list(parser.read_from(io.BytesIO(text)))
    return {
        name: np.concatenate([getattr(b, name) for b in batches])
        for name in ("receive_sec", "interval_real_us", "net_code", "proto_code")
    }


@pytest.fixture
def uploaded(owner: User, owner_api: APIClient, put_phout: Any) -> dict[str, Test]:
    tests = {}
    for case in CASES:
        test = Test.objects.create(owner=owner, name=case.name, component=f"figures-{case.name}")
        tests[case.name] = put_phout(test.pk, case.path.read_bytes())
        assert owner_api.put(f"/api/v1/components/figures-{case.name}/kpis", KPIS, format="json").status_code == 200
    return tests


def _kpi(answer: dict[str, Any], key: str, test_id: int) -> Any:
    series = next(s for s in answer["kpis"] if s["kpi"] == key)
    return next(p["value"] for p in series["points"] if p["test_id"] == test_id)


def test_every_page_shows_the_same_figures(uploaded: dict[str, Test], owner_api: APIClient) -> None:
    names = list(uploaded)
    compared: dict[int, tuple[dict[str, Any], int]] = {}
    for a, b in zip(names, names[1:] + names[:1], strict=True):
        answer = owner_api.get("/api/v1/compare", {"tests": f"{uploaded[a].pk},{uploaded[b].pk}"}).json()
        compared.setdefault(uploaded[a].pk, (answer, 0))
        compared.setdefault(uploaded[b].pk, (answer, 1))
    listed = {t["id"]: t for t in owner_api.get("/api/v1/tests/", {"page_size": 50}).json()["results"]}

    for case in CASES:
        test = Test.objects.get(pk=uploaded[case.name].pk)
        assert test.status == TestStatus.READY, case.name
        tid = test.pk
        summary = owner_api.get(f"/api/v1/tests/{tid}/summary").json()
        tables = owner_api.get(f"/api/v1/tests/{tid}/tables", {"q": "50,99"}).json()
        dashboard = owner_api.get(f"/api/v1/components/{test.component}/dashboard").json()
        check = owner_api.get(f"/api/v1/components/{test.component}/check/{tid}").json()
        checked = {row["kpi"]: row for row in check["kpis"]}
        analysis = owner_api.get(f"/api/v1/tests/{tid}/analysis").json()
        bot = RequestFactory().get(f"/{tid}")
        bot.user = AnonymousUser()  # a link-preview bot: no session
        tags = {key: value for _, key, value in head_tags(bot, "test", [tid])}
        preview = tags["og:description"]
        comparison, column = compared[tid]
        outcomes, overall = summary["outcomes"], tables["cases"][0]

        # The error share: the list, the header, the tables, the KPIs, the check, the diagnosis, the chat preview.
        share = outcomes["failed_share"]
        assert share == outcomes["failed"] / summary["count"], case.name
        assert listed[tid]["error_share"] == share, case.name
        assert overall["outcomes"]["failed_share"] == share, case.name
        assert _kpi(dashboard, "error_share", tid) == share and checked["error_share"]["value"] == share, case.name
        assert analysis["trend_figures"]["error_share"] == share, case.name
        assert checked["error_share"]["text"] == format_percent(share), case.name
        assert f"{format_percent(share)} errors" in preview, (case.name, preview)
        if listed[tid]["result"]["kind"] == "errors":
            assert listed[tid]["result"]["text"] == f"{format_percent(share)} errors", case.name

        # Max RPS: the most held for 5 s, everywhere.
        max_rps = summary["rps"]["max"]
        assert listed[tid]["max_rps"] == max_rps and overall["rps_max"] == max_rps, case.name
        assert _kpi(dashboard, "max_rps", tid) == max_rps and checked["max_rps"]["value"] == max_rps, case.name
        assert f"{format_count(max_rps)} rps" in preview, (case.name, preview)

        # q99: the header, the list, the tables, the KPIs, the check, the chat preview, the comparison.
        q99 = summary["quantiles_ms"]["99"]
        assert listed[tid]["q99_ms"] == q99 and tables["quantiles"]["rows"][1]["values"][0] == q99, case.name
        assert _kpi(dashboard, "q99", tid) == q99 and checked["q99"]["value"] == q99, case.name
        assert preview.startswith(f"q99 {format_ms(q99)} ms"), (case.name, preview)
        assert comparison["quantiles_ms"]["99"][column] == q99, case.name

        # The 2xx and net-error shares: the header's chips, the codes tables' rows, the comparison's code shares.
        ok_rows = [r["share"] for r in tables["http_codes"] if r["class"] == "success"]
        assert outcomes["http_2xx_share"] == pytest.approx(sum(ok_rows), rel=1e-12), case.name
        net_rows = [r["share"] for r in tables["net_codes"] if r["class"] != "ok"]
        assert outcomes["net_errors_share"] == pytest.approx(sum(net_rows), rel=1e-12), case.name
        compared_2xx = [s[column] for code, s in comparison["code_share"]["http"].items() if code.startswith("2")]
        assert outcomes["http_2xx_share"] == pytest.approx(sum(compared_2xx), rel=1e-12), case.name
        assert {int(c): n[column] for c, n in comparison["http_codes"].items() if n[column]} == {
            int(c): n for c, n in summary["http_codes"].items()
        }, case.name

        if case.samples:
            # Held to the file itself, request by request.
            rows = _rows(case)
            assert summary["count"] == rows["net_code"].size, case.name
            assert outcomes["failed"] == reference.failed(rows["net_code"], rows["proto_code"]), case.name
            assert max_rps == reference.max_rps(rows["receive_sec"]), case.name
            timed = rows["interval_real_us"][rows["net_code"] != 777]
            assert q99 == reference.order_statistic(timed, 99.0) / 1000.0, case.name
