"""The result-file parsers on their fixtures (analytics/formats/tests/fixtures/README.md says where each comes from)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from analytics.formats import detect, parser_class, resolve
from analytics.formats.base import NotThisFormat, RecordParser
from analytics.formats.gatling import GatlingParser
from analytics.formats.instances import ActiveInstances
from analytics.formats.jtl_csv import JtlCsvParser, _BlockInvalid
from analytics.formats.jtl_xml import JtlXmlParser
from analytics.formats.k6 import K6CsvParser, K6JsonParser, rfc3339_us
from analytics.formats.locust import LocustParser
from analytics.phout import NO_CASE
from analytics.schema.samples import PhoutBatch

FIXTURES = Path(__file__).parent / "fixtures"
T0_US = 1_700_000_000_000_000


def parse(parser: RecordParser, data: bytes, piece: int | None = None) -> tuple[RecordParser, dict[str, Any]]:
    """Parse `data` (fed in pieces of `piece` bytes, or read as a stream) and gather the batches' columns."""
    if piece is None:
        batches = list(parser.read_from(io.BytesIO(data)))
    else:
        batches = []
        for start in range(0, len(data), piece):
            batches += parser.feed(data[start : start + piece])
        batches += parser.finish()
    joined = PhoutBatch.concat(batches) if batches else None
    assert joined is not None
    columns = {name: getattr(joined, name).tolist() for name in joined.__dataclass_fields__}
    columns["case"] = [parser.cases[c] for c in columns["case_codes"]]
    return parser, columns


def by_send_time(columns: dict[str, Any]) -> dict[str, Any]:
    order = np.argsort(columns["send_ts_us"], kind="stable")
    return {name: [values[i] for i in order] for name, values in columns.items()}


# ── detection ───────────────────────────────────────────────────────────────────────────────────────────────
@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("jmeter_default.jtl", "jmeter-csv"),
        ("jmeter_subset_tab.jtl", "jmeter-csv"),
        ("jmeter.xml", "jmeter-xml"),
        ("k6.json", "k6-json"),
        ("k6.csv", "k6-csv"),
        ("gatling_3_3.log", "gatling"),
        ("gatling_3_9.log", "gatling"),
        ("locust/run_stats_history.csv", "locust"),
    ],
)
def test_each_fixture_is_recognised_from_its_first_bytes(name: str, expected: str) -> None:
    assert detect((FIXTURES / name).read_bytes()[:65536]) == expected


def test_phout_and_gatling_binary_are_recognised_and_a_family_name_picks_the_member_the_content_shows() -> None:
    assert detect(b"1700000000.123\tcase1\t1000\t10\t10\t900\t80\t1000\t100\t200\t0\t200\n") == "phout"
    assert detect(b"\x00\x00\x00\x00\x053.13.1") == "gatling-binary"
    assert resolve("gatling", "gatling-binary") == "gatling-binary"
    assert resolve("gatling", "phout") == "gatling"
    assert resolve("jtl", "jmeter-xml") == "jmeter-xml"
    assert resolve("jtl", "phout") == "jmeter-csv"
    assert resolve("k6-csv", "phout") == "k6-csv"
    assert resolve("", "k6-json") == "k6-json"


# ── JMeter ──────────────────────────────────────────────────────────────────────────────────────────────────
def test_default_jtl_columns_map_to_phout_columns() -> None:
    parser, cols = parse(JtlCsvParser(), (FIXTURES / "jmeter_default.jtl").read_bytes())
    assert parser.stats.lines_total == 7 and parser.stats.lines_bad == 0
    assert cols["case"] == [
        "GET /api/items",
        "POST /api/cart, add",  # quoted, with a comma
        "GET /api/items",
        "GET /api/items",
        "POST /api/cart, add",
        "GET /api/items",
        "Checkout transaction",
    ]
    assert cols["send_ts_us"][0] == T0_US + 123_000
    assert cols["interval_real_us"][0] == 105_000
    assert cols["connect_time_us"][0] == 12_000  # Connect
    assert cols["latency_us"][0] == 86_000  # Latency − Connect
    assert cols["receive_time_us"][0] == 7_000  # elapsed − Latency
    assert (cols["size_in_bytes"][0], cols["size_out_bytes"][0]) == (5120, 230)
    # Non HTTP response codes become net codes; a failed assertion on a 200 is "unknown error".
    assert list(zip(cols["proto_code"], cols["net_code"], strict=True)) == [
        (200, 0), (201, 0), (0, 110), (0, 111), (500, 0), (200, 999), (200, 0)
    ]  # fmt: skip
    assert cols["receive_sec"][2] == 1_700_000_002  # 0.400 s + 2.003 s


class _SlowOnly(JtlCsvParser):
    """Every block record by record (the path that names bad records), to compare with pyarrow's."""

    def _parse_fast(self, block: bytes) -> PhoutBatch | None:
        raise _BlockInvalid("forced")


def test_jtl_blocks_cut_anywhere_give_the_same_rows_and_the_slow_path_agrees_with_pyarrow() -> None:
    data = (FIXTURES / "jmeter_default.jtl").read_bytes()
    _, whole = parse(JtlCsvParser(), data)
    # Tiny blocks: cuts fall inside the quoted failure message that spans two lines.
    _, pieces = parse(JtlCsvParser(block_bytes=64), data, piece=5)
    assert pieces == whole
    _, slowly = parse(_SlowOnly(), data)
    assert slowly == whole


def test_a_jtl_subset_in_another_order_with_tabs_names_its_bad_line() -> None:
    parser, cols = parse(JtlCsvParser(), (FIXTURES / "jmeter_subset_tab.jtl").read_bytes())
    assert (parser.stats.lines_total, parser.stats.lines_bad) == (5, 1)
    bad = parser.stats.bad_examples[0]
    assert bad.line == 5 and "success 'maybe'" in bad.reason
    assert cols["proto_code"] == [200, 201, 0, 500] and cols["net_code"] == [0, 0, 110, 0]
    assert cols["connect_time_us"] == [0, 0, 0, 0]  # no Connect column


def test_a_csv_without_a_jtl_header_is_refused_by_name() -> None:
    parser = JtlCsvParser()
    with pytest.raises(NotThisFormat, match="print_field_names"):
        list(parser.read_from(io.BytesIO(b"1700000000123,105,GET,200\n")))


def test_jtl_xml_counts_top_level_samples_only_and_accepts_a_file_cut_short() -> None:
    data = (FIXTURES / "jmeter.xml").read_bytes()  # no </testResults>: JMeter stopped mid-run
    parser, cols = parse(JtlXmlParser(), data)
    assert (parser.stats.lines_total, parser.stats.lines_bad) == (7, 1)
    assert parser.stats.bad_examples[0].line == 20 and "t='x87'" in parser.stats.bad_examples[0].reason
    assert parser.refusal() is None
    assert cols["case"].count("Checkout transaction") == 1  # its two sub-results are not requests
    assert len(cols["case"]) == 6
    _, csv_cols = parse(JtlCsvParser(), (FIXTURES / "jmeter_default.jtl").read_bytes())
    # The samples both files hold map alike.
    assert cols["net_code"][:3] == csv_cols["net_code"][:3] and cols["latency_us"][:3] == csv_cols["latency_us"][:3]
    _, pieces = parse(JtlXmlParser(), data, piece=7)
    assert pieces == cols


def test_malformed_xml_is_refused_with_its_line() -> None:
    parser = JtlXmlParser()
    with pytest.raises(NotThisFormat, match="line 2"):
        list(parser.read_from(io.BytesIO(b'<testResults version="1.2">\n<httpSample t="1" <oops/>\n')))


# ── k6 ──────────────────────────────────────────────────────────────────────────────────────────────────────
def test_k6_json_points_are_assembled_into_requests() -> None:
    parser, cols = parse(K6JsonParser(), (FIXTURES / "k6.json").read_bytes())
    assert (parser.stats.lines_total, parser.stats.lines_bad) == (5, 0)
    cols = by_send_time(cols)
    items = "http://127.0.0.1:8080/items"
    assert cols["case"] == [items, "cart add", items, items, "cart add"]
    # The first request ends at +105 ms (+0.000789 ms of ns, cut), lasted 95.5 ms.
    assert cols["send_ts_us"][0] == T0_US + 123_456 + 105_000 - 95_500
    assert cols["interval_real_us"][0] == 95_500
    assert cols["connect_time_us"][0] == 10_200 and cols["latency_us"][0] == 90_300
    assert cols["receive_time_us"][0] == 5_100 and cols["send_time_us"][0] == 100
    assert list(zip(cols["proto_code"], cols["net_code"], strict=True)) == [
        (200, 0), (201, 0), (0, 110), (0, 111), (500, 0)
    ]  # fmt: skip


@pytest.mark.parametrize(("cls", "name"), [(K6JsonParser, "k6.json"), (K6CsvParser, "k6.csv")])
def test_k6_requests_of_a_growing_file_come_out_as_soon_as_the_next_request_is_written(
    cls: type[RecordParser], name: str
) -> None:
    """A followed file (tankodrom follow) is parsed as it grows: a request's tracer samples are written together, so
    it is complete once a sample of another request follows, not seconds later."""
    parser = cls()
    lines = (FIXTURES / name).read_bytes().splitlines(keepends=True)
    released: list[PhoutBatch] = []
    requests_begun = 0
    for line in lines:
        released += parser.feed(line) + parser.parse_buffered()
        if line.startswith(b"http_reqs,") or (b'"Point"' in line and b'"http_reqs"' in line):
            requests_begun += 1  # a request's first sample: the one before it is complete now
            assert sum(b.rows for b in released) == requests_begun - 1
    assert sum(b.rows for b in released) == 4
    assert sum(b.rows for b in released + parser.finish()) == 5


def test_k6_csv_gives_the_requests_of_the_json_at_one_second_resolution() -> None:
    _, json_cols = parse(K6JsonParser(), (FIXTURES / "k6.json").read_bytes())
    parser, cols = parse(K6CsvParser(block_bytes=200), (FIXTURES / "k6.csv").read_bytes(), piece=33)
    assert (parser.stats.lines_total, parser.stats.lines_bad) == (5, 0)
    for name in ("interval_real_us", "connect_time_us", "latency_us", "proto_code", "net_code", "case"):
        assert sorted(cols[name]) == sorted(json_cols[name]), name


def test_k6_bad_lines_are_named() -> None:
    data = (
        (FIXTURES / "k6.json").read_bytes()
        + b'{"type":"Point","data":{"time":"yesterday","value":1,"tags":{}},"metric":"http_req_duration"}\nnot json\n'
    )
    parser, _ = parse(K6JsonParser(), data)
    assert parser.stats.lines_bad == 2
    assert [b.line for b in parser.stats.bad_examples] == [63, 64]


def test_rfc3339_with_nanoseconds_and_offsets() -> None:
    assert rfc3339_us("2023-11-15T00:13:20.123456789+02:00") == T0_US + 123_456
    assert rfc3339_us("2023-11-14T22:13:20Z") == T0_US
    assert rfc3339_us("2023-11-14T22:13:20.5Z") == T0_US + 500_000


# ── Gatling ─────────────────────────────────────────────────────────────────────────────────────────────────
@pytest.mark.parametrize("name", ["gatling_3_3.log", "gatling_3_9.log"])
def test_gatling_text_logs_of_both_layouts(name: str) -> None:
    parser, cols = parse(GatlingParser(), (FIXTURES / name).read_bytes())
    assert parser.stats.lines_total - parser.stats.lines_bad == 4
    assert cols["case"] == ["request_1", "Checkout / Payment / pay", "request_1", "request_1"]
    assert cols["send_ts_us"][0] == T0_US + 100_000 and cols["interval_real_us"][0] == 95_000
    assert list(zip(cols["proto_code"], cols["net_code"], strict=True)) == [(200, 0), (500, 0), (0, 111), (0, 110)]


def test_gatling_bad_request_line_is_named() -> None:
    parser, _ = parse(GatlingParser(), (FIXTURES / "gatling_3_9.log").read_bytes())
    assert [(b.line, b.reason[:5]) for b in parser.stats.bad_examples] == [(11, "start")]


def test_the_text_parser_sends_a_binary_log_to_its_own_format() -> None:
    parser = GatlingParser()
    with pytest.raises(NotThisFormat, match=r"binary simulation.log of Gatling 3\.13.*gatling-binary"):
        list(parser.read_from(io.BytesIO(b"\x00\x00\x00\x00\x063.13.1" + bytes(range(256)) * 100)))


def test_a_file_mostly_not_of_the_format_is_refused() -> None:
    parser = GatlingParser()
    list(parser.read_from(io.BytesIO(b"REQUEST\tx\n" * 20 + (FIXTURES / "gatling_3_9.log").read_bytes())))
    refusal = parser.refusal()
    assert refusal is not None and "does not look like a Gatling simulation.log" in refusal and "line 1:" in refusal


# ── Locust ──────────────────────────────────────────────────────────────────────────────────────────────────
def test_locust_history_becomes_per_second_rows_with_users() -> None:
    parser = LocustParser()
    blocks = list(parser.read_tables(io.BytesIO((FIXTURES / "locust" / "run_stats_history.csv").read_bytes())))
    assert parser.refusal() is None and parser.stats.lines_bad == 0
    table = blocks[0].table
    overall = [i for i, case in enumerate(table.case) if case == NO_CASE]
    cases = sorted(set(table.case) - {NO_CASE})
    assert cases == ["GET /items", "GET missing page"]
    # Responses are the growth of Total Request Count; the last Aggregated row says how many there were in all.
    last = (FIXTURES / "locust" / "run_stats_history.csv").read_text().splitlines()[-1].split(",")
    assert int(table.resps[overall].sum()) == int(last[-7])
    # Every overall row's histogram holds all its responses; failures are net code 999.
    for row in overall:
        assert table.hist.count[table.hist.group == row].sum() == table.resps[row]
    missing = [i for i, case in enumerate(table.case) if case == "GET missing page"]
    assert all(table.nets.code[table.nets.group == i].tolist() == [999] for i in missing)
    assert set(blocks[0].users_by_second.values()) == {5}
    assert (np.diff(table.quantiles_ms, axis=1) >= 0).all()  # quantiles never fall with the level


def test_locust_summary_csv_is_refused_with_what_to_upload_instead() -> None:
    parser = LocustParser()
    with pytest.raises(NotThisFormat, match=r"_stats_history\.csv"):
        list(parser.read_tables(io.BytesIO(b"Type,Name,Request Count,Failure Count\nGET,/items,10,0\n")))


def test_every_format_has_a_parser() -> None:
    for name in ("phout", "jmeter-csv", "jmeter-xml", "k6-json", "k6-csv", "gatling", "gatling-binary", "locust"):
        assert parser_class(name) is not None


def test_locust_history_without_full_history_is_the_overall_row_only() -> None:
    """`--csv` without `--csv-full-history` writes the Aggregated row only (percentiles since the start)."""
    path = FIXTURES / "locust" / "aggregated_stats_history.csv"
    parser = LocustParser()
    table = next(iter(parser.read_tables(io.BytesIO(path.read_bytes())))).table
    assert set(table.case) == {NO_CASE}
    last = path.read_text().splitlines()[-1].split(",")
    assert int(table.resps.sum()) == int(last[-7])
    assert int(table.nets.count[table.nets.code == 999].sum()) == int(last[-6])


# ── active instances (threads, VUs, users) ─────────────────────────────────────────────────────────────────
SECONDS = np.arange(1_699_999_999, 1_700_000_004)  # one second before the fixtures' first, one after their last


def instances_of(parser: RecordParser, name: str, piece: int | None = None) -> list[int]:
    parse(parser, (FIXTURES / name).read_bytes(), piece)
    counts: list[int] = parser.instances.at(SECONDS).tolist()
    return counts


def test_jmeter_all_threads_are_the_instances_of_each_samples_end_second() -> None:
    # Every sample says allThreads=2; the one sent at +0.400 s lasts 2.003 s and ends in +2.
    assert instances_of(JtlCsvParser(), "jmeter_default.jtl") == [0, 2, 2, 2, 0]
    assert instances_of(_SlowOnly(), "jmeter_default.jtl") == [0, 2, 2, 2, 0]
    assert instances_of(JtlXmlParser(), "jmeter.xml", piece=7) == [0, 2, 2, 2, 0]
    assert instances_of(JtlCsvParser(), "jmeter_subset_tab.jtl") == [0, 0, 0, 0, 0]  # no thread counts saved


def test_jmeter_group_threads_add_up_over_thread_groups_named_by_the_thread() -> None:
    # Browse: 2 at +0, 3 at +1, 2 at +2; Checkout: 1 at +0, nothing at +1 (its level holds), 2 at +2.
    assert instances_of(JtlCsvParser(), "jmeter_groups.jtl") == [0, 3, 4, 4, 0]
    assert instances_of(_SlowOnly(), "jmeter_groups.jtl") == [0, 3, 4, 4, 0]
    xml = b'<testResults version="1.2">\n' + b"".join(
        b'<httpSample t="50" ts="%d" s="true" lb="x" rc="200" tn="%s" ng="%d"/>\n' % (ts, tn, ng)
        for ts, tn, ng in ((1_700_000_000_100, b"Browse 1-1", 2), (1_700_000_000_200, b"Checkout 2-1", 1))
    )
    parser = JtlXmlParser()
    parse(parser, xml)
    assert parser.instances.at(SECONDS).tolist() == [0, 3, 0, 0, 0]


@pytest.mark.parametrize(("cls", "name"), [(K6JsonParser, "k6.json"), (K6CsvParser, "k6.csv")])
def test_k6_vus_points_are_the_instances_of_their_second(cls: type[RecordParser], name: str) -> None:
    assert instances_of(cls(block_bytes=300), name, piece=41) == [0, 2, 3, 3, 0]


@pytest.mark.parametrize("name", ["gatling_3_3.log", "gatling_3_9.log"])
def test_gatling_active_users_count_every_second_a_user_lived_in(name: str) -> None:
    # User 1 lives from +0.050 to +1.500, user 2 starts at +1.000 and never ends.
    assert instances_of(GatlingParser(block_bytes=64), name, piece=13) == [0, 1, 2, 1, 1]


def test_active_instances_hold_a_level_between_reports_and_count_users() -> None:
    active = ActiveInstances()
    assert not active and active.span() is None
    active.levels([10, 10, 12], [3, 5, 4])  # the largest of a second; 11 holds 10's level
    active.level(20, 7, source=1)
    active.level(21, 1, source=1)
    assert active.at([9, 10, 11, 12, 13, 20, 21, 22]).tolist() == [0, 5, 5, 4, 0, 7, 1, 0]
    users = ActiveInstances()
    for second in (5, 5, 6):
        users.user_started(second)
    users.user_ended(6)
    users.user_ended(8)
    assert users.at([4, 5, 6, 7, 8, 9]).tolist() == [0, 2, 3, 2, 2, 1]
    assert users.span() == (5, 8)
