"""analytics.tank_push on bodies the real yandextank 2.0.11 sent (inlined from the protocol capture) and edge cases."""

from __future__ import annotations

import json

import pytest

from analytics.histogram import BIN_EDGES_US
from analytics.schema.seconds import QUANTILE_COLUMNS
from analytics.tank_push import (
    NOTAG_CASE,
    PushFormatError,
    parse_monitoring,
    parse_push_data,
    parse_time,
)
from analytics.tests.seconds_support import named

# Captured push_data 010 of the BFG run (tank-capture/010_POST_api_job_4242_push_data_json.json), verbatim.
BFG_PUSH = json.loads(
    '[{"overall": 0, "case": "index", "net_codes": [{"code": 0, "count": 2}], "http_codes": [{"code": 200, '
    '"count": 2}], "time_intervals": [{"from": 0, "to": 34.0, "count": 1}, {"from": 0, "to": 55.0, "count": 1}], '
    '"trail": {"time": "1795316038", "reqps": 3.0, "resps": 2, "expect": 43.6635, "disper": 0, "self_load": 0, '
    '"input": 0, "output": 0, "connect_time": 0.0, "send_time": 0.0, "latency": 0.0, "receive_time": 0.0, '
    '"threads": 0, "q50": 43.6635, "q75": 48.84675, "q80": 49.8834, "q85": 50.92005, "q90": 51.9567, '
    '"q95": 52.99335, "q98": 53.615339999999996, "q99": 53.822669999999995, "q100": 54.03}}, {"overall": 1, '
    '"case": "", "net_codes": [{"code": 0, "count": 2}], "http_codes": [{"code": 200, "count": 2}], '
    '"time_intervals": [{"from": 0, "to": 34.0, "count": 1}, {"from": 0, "to": 55.0, "count": 1}], "trail": '
    '{"time": "1795316038", "reqps": 3.0, "resps": 2, "expect": 43.6635, "disper": 0, "self_load": 0, "input": 0, '
    '"output": 0, "connect_time": 0.0, "send_time": 0.0, "latency": 0.0, "receive_time": 0.0, "threads": 0, '
    '"q50": 43.6635, "q75": 48.84675, "q80": 49.8834, "q85": 50.92005, "q90": 51.9567, "q95": 52.99335, '
    '"q98": 53.615339999999996, "q99": 53.822669999999995, "q100": 54.03}}]'
)

# A phantom-style item (phantom_phout_replay/002): real connect/send/latency/receive and sizes.
PHANTOM_ITEM = json.loads(
    '{"overall": 0, "case": "/mtinfo/prognosis/stop|all", "net_codes": [{"code": 0, "count": 2}], '
    '"http_codes": [{"code": 200, "count": 2}], "time_intervals": [{"from": 0, "to": 6.4, "count": 1}, '
    '{"from": 0, "to": 9.3, "count": 1}], "trail": {"time": "1545332697", "reqps": 100, "resps": 2, '
    '"expect": 7.767, "disper": 0, "self_load": 0, "input": 12044, "output": 1052, "connect_time": 0.238, '
    '"send_time": 0.0105, "latency": 7.466, "receive_time": 0.0525, "threads": 7, "q50": 7.767, "q75": 8.4985, '
    '"q80": 8.6448, "q85": 8.7911, "q90": 8.9374, "q95": 9.0837, "q98": 9.171479999999999, "q99": 9.20074, '
    '"q100": 9.23}}'
)


def test_bfg_body_gives_one_case_and_the_overall_row() -> None:
    index, overall = map(named, parse_push_data(BFG_PUSH))
    assert (index["ts"], index["case"], overall["case"]) == (1795316038, "index", "")
    assert index["resps"] == 2 and index["reqps"] == 3.0 and index["threads"] == 0
    assert index["expect_ms"] == pytest.approx(43.6635)
    assert index["q100_ms"] == pytest.approx(54.03) and len(QUANTILE_COLUMNS) == 9
    assert index["q50_ms"] == pytest.approx(43.6635) and index["q99_ms"] == pytest.approx(53.82267)
    assert (index["http_codes"], index["http_counts"]) == ((200,), (2,))
    assert (index["net_codes"], index["net_counts"]) == ((0,), (2,))
    # "to": 34.0 ms and 55.0 ms are grid edges 34 000 µs and 55 000 µs.
    assert [int(BIN_EDGES_US[b]) for b in index["hist_bins"]] == [34_000, 55_000]
    assert index["hist_counts"] == (1, 1)
    assert type(index["resps"]) is int and type(index["threads"]) is int and type(index["input_bytes"]) is int


def test_phantom_item_keeps_phases_and_sizes() -> None:
    second = named(*parse_push_data([PHANTOM_ITEM]))
    assert second["input_bytes"] == 12044 and second["output_bytes"] == 1052 and second["threads"] == 7
    assert second["connect_time_ms"] == pytest.approx(0.238)
    assert second["latency_ms"] == pytest.approx(7.466)
    assert [int(BIN_EDGES_US[b]) for b in second["hist_bins"]] == [6_400, 9_300]


def test_legacy_time_format_and_int_time() -> None:
    assert parse_time("2016-06-29 12:00:01") == 1467201601
    assert parse_time("1795316038") == parse_time(1795316038) == 1795316038
    legacy = json.loads(json.dumps(BFG_PUSH))
    for item in legacy:
        item["trail"]["time"] = "2026-11-22 02:53:58"
    assert {named(s)["ts"] for s in parse_push_data(legacy)} == {1795316038}


@pytest.mark.parametrize("bad", ["yesterday", "", None, True, "1795316038000", [1]])
def test_bad_time_is_refused(bad: object) -> None:
    with pytest.raises(PushFormatError, match=r"trail\.time"):
        parse_time(bad)


def test_empty_tag_names_are_unified_and_overall_wins() -> None:
    items = json.loads(json.dumps(BFG_PUSH))
    items[0]["case"] = "__EMPTY__"
    items[1]["case"] = "ignored for the overall item"
    first, overall = map(named, parse_push_data(items))
    assert first["case"] == NOTAG_CASE and overall["case"] == ""


def test_duplicate_codes_and_bins_are_summed() -> None:
    item = json.loads(json.dumps(PHANTOM_ITEM))
    item["http_codes"] = [{"code": 200, "count": 1}, {"code": 404, "count": 3}, {"code": 200, "count": 1}]
    item["time_intervals"] = [{"from": 0, "to": 6.4, "count": 1}, {"from": 0, "to": 6.4, "count": 2}]
    second = named(*parse_push_data([item]))
    assert (second["http_codes"], second["http_counts"]) == ((200, 404), (2, 3))
    assert second["hist_counts"] == (3,)


def test_off_grid_edge_goes_to_the_next_grid_bin() -> None:
    item = json.loads(json.dumps(PHANTOM_ITEM))
    item["time_intervals"] = [{"from": 0, "to": 6.45, "count": 1}]
    second = named(*parse_push_data([item]))
    assert int(BIN_EDGES_US[second["hist_bins"][0]]) == 6_500


def test_writer_endpoint_wrapper_is_accepted() -> None:
    assert len(parse_push_data({"trail": BFG_PUSH})) == 2


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"success": 1}, "must be a JSON list"),
        ([BFG_PUSH[0], "x"], "item 1: an item must be a JSON object"),
        ([{"case": "a"}], "item 0: an item needs a 'trail' object"),
        ([{**BFG_PUSH[0], "http_codes": [{"code": "x", "count": 1}]}], "item 0: http_codes"),
        ([{**BFG_PUSH[0], "trail": {**BFG_PUSH[0]["trail"], "resps": -1}}], "must not be negative"),
        ([{**BFG_PUSH[0], "time_intervals": [{"to": 1.0, "count": -2}]}], "time_intervals"),
    ],
)
def test_malformed_bodies_name_the_item(body: object, message: str) -> None:
    with pytest.raises(PushFormatError, match=message):
        parse_push_data(body)


def test_monitoring_chunk_points_per_host_and_metric() -> None:
    body = [
        {
            "timestamp": 1795316039,
            "data": {
                "localhost": {
                    "comment": "stub telegraf",
                    "metrics": {"custom:cpu-cpu-total_usage_user": 36.627, "Memory_used": 2008135411, "bad": None},
                },
                "421aa90e079fa326b6494f812ad13e79": {"comment": "", "metrics": {"System_la1": "0.5"}},
            },
        },
        {"timestamp": 1795316040, "data": {"localhost": {"metrics": {"Memory_used": 2008135999}}}},
    ]
    chunk = parse_monitoring(body)
    assert chunk.skipped_values == 1
    got = {(p.ts, p.host, p.metric): p.value for p in chunk.points}
    assert got == {
        (1795316039, "localhost", "custom:cpu-cpu-total_usage_user"): 36.627,
        (1795316039, "localhost", "Memory_used"): 2008135411.0,
        (1795316039, "421aa90e079fa326b6494f812ad13e79", "System_la1"): 0.5,
        (1795316040, "localhost", "Memory_used"): 2008135999.0,
    }


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("ok", "must be a JSON list"),
        ([{"timestamp": "x", "data": {}}], "element 0: timestamp"),
        ([{"timestamp": 1795316039, "data": []}], "element 0: 'data'"),
        ([{"timestamp": 1795316039, "data": {"h": {"metrics": [1]}}}], "host 'h'"),
    ],
)
def test_malformed_monitoring_is_refused(body: object, message: str) -> None:
    with pytest.raises(PushFormatError, match=message):
        parse_monitoring(body)
