"""Our aggregation of a real BFG phout equals the tank's own aggregation of it, second by second and case by case.

Input and expectation were captured from yandex-tank 2.0.11 (see golden/phout/README.md): the tank's aggregator
read `bfgout.log` during the run and wrote `test_data.log`. Every (second, case) must match: counts, codes and
histogram exactly, means and quantiles to float rounding.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from analytics.histogram import BIN_EDGES_US
from analytics.schema.samples import PhoutBatch
from analytics.schema.seconds import QUANTILE_COLUMNS, QUANTILE_LEVELS
from analytics.second_window import SecondWindow
from analytics.tests.phout_support import GOLDEN, parse_bytes, read_golden
from analytics.tests.seconds_support import aggregate, named


def _tank_rows() -> dict[tuple[int, str], dict[str, object]]:
    rows = {}
    for line in (GOLDEN / "bfg_capture.tank_aggregates.jsonl").read_text().splitlines():
        item = json.loads(line)
        rows[(item["ts"], item["case"])] = item
    return rows


def test_every_second_and_case_matches_the_tank() -> None:
    parser, batches = parse_bytes(read_golden("bfg_capture.phout"), piece=1000, block_bytes=2000)
    assert parser.stats.lines_bad == 0 and parser.stats.lines_total == 203
    ours = {(r["ts"], r["case"]): r for r in map(named, aggregate(PhoutBatch.concat(batches), parser.cases))}
    tank = _tank_rows()
    assert len(tank) == 66
    for key, t in tank.items():
        r = ours[key]
        totals = t["total_us"]
        assert isinstance(totals, dict)
        assert r["resps"] == t["len"], key
        assert r["expect_ms"] == pytest.approx(totals["interval_real"] / 1000 / r["resps"], rel=1e-12)
        assert r["connect_time_ms"] == pytest.approx(totals["connect_time"] / 1000 / r["resps"])
        assert r["input_bytes"] == totals["size_in"] and r["output_bytes"] == totals["size_out"]
        quantiles = [r[column] for column in QUANTILE_COLUMNS]
        assert quantiles == pytest.approx([v / 1000 for v in t["q_us"]], rel=1e-9), key  # type: ignore[attr-defined]
        assert [int(BIN_EDGES_US[b]) for b in r["hist_bins"]] == [int(x) for x in t["hist_bins_us"]], key  # type: ignore[attr-defined]
        assert list(r["hist_counts"]) == t["hist_counts"], key
        assert dict(zip(map(str, r["net_codes"]), r["net_counts"], strict=True)) == t["net_code"], key
        assert dict(zip(map(str, r["http_codes"]), r["http_counts"], strict=True)) == t["proto_code"], key
    # Same seconds, same cases: empty tags only in overall, as the tank does.
    assert set(ours) == set(tank)


def test_seconds_released_in_order_aggregate_as_the_whole_file_does() -> None:
    parser, batches = parse_bytes(read_golden("bfg_capture.phout"), piece=300, block_bytes=300)
    assert len(batches) > 10
    window = SecondWindow(lag_s=1)
    rows = []
    released_seconds: list[int] = []
    for released in [*(window.add(b) for b in batches), window.finish()]:
        assert released.late is None
        if released.in_order is not None:
            seconds = released.in_order.receive_sec.tolist()
            assert seconds == sorted(seconds) and (not released_seconds or seconds[0] > released_seconds[-1])
            released_seconds += seconds
            rows += aggregate(released.in_order, parser.cases)
    assert window.late_seconds == set()
    assert len(released_seconds) == sum(b.rows for b in batches)
    assert rows == aggregate(PhoutBatch.concat(batches), parser.cases)


def test_late_rows_are_handed_back_not_silently_merged() -> None:
    _, batches = parse_bytes(read_golden("bfg_capture.phout"), piece=10**6, block_bytes=10**6)
    whole = PhoutBatch.concat(batches)
    order = np.argsort(whole.receive_sec, kind="stable")
    late_second = int(whole.receive_sec[order[0]])
    window = SecondWindow(lag_s=0)
    first = window.add(whole.take(order[1:]))
    again = window.add(whole.take(order[:1]))  # arrives after its second was released
    assert first.in_order is not None and again.in_order is None
    assert again.late is not None and again.late.receive_sec.tolist() == [late_second]
    assert window.late_seconds == {late_second}
    assert len(QUANTILE_LEVELS) == 9


_ROW_FIELDS = ("receive_sec", "send_ts_us", "case_codes", "interval_real_us", "size_in_bytes", "proto_code")


def _rows_of(batch: PhoutBatch) -> list[tuple[int, ...]]:
    return sorted(zip(*(getattr(batch, f).tolist() for f in _ROW_FIELDS), strict=True))


def test_released_rows_are_sorted_by_second_then_case_and_keep_every_row() -> None:
    _, batches = parse_bytes(read_golden("bfg_capture.phout"), piece=300, block_bytes=300)
    window = SecondWindow(lag_s=1)
    released = [r.in_order for r in [*(window.add(b) for b in batches), window.finish()] if r.in_order is not None]
    for piece in released:
        keys = list(zip(piece.receive_sec.tolist(), piece.case_codes.tolist(), strict=True))
        assert keys == sorted(keys)
    assert _rows_of(PhoutBatch.concat(released)) == _rows_of(PhoutBatch.concat(batches))
