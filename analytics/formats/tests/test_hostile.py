"""Hostile result files (issue 29): every parser fed its fixture with fields replaced by what `int()` and `float()`
take but no generator writes (inf, nan, 1e400, Unicode digits, 30 digits...) and by random text. No exception but
the format's refusal escapes, and nothing non-finite or out of its column's range comes out."""

from __future__ import annotations

import io
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analytics.formats.base import NotThisFormat, RecordParser
from analytics.formats.gatling import GatlingParser
from analytics.formats.jtl_csv import JtlCsvParser
from analytics.formats.jtl_xml import JtlXmlParser
from analytics.formats.k6 import K6CsvParser, K6JsonParser
from analytics.formats.locust import LocustParser
from analytics.numbers import NotANumber, json_number, parse_float, parse_int
from analytics.phout import NotPhout, PhoutParser
from analytics.schema.samples import PhoutBatch

pytestmark = pytest.mark.probe

FIXTURES = Path(__file__).parent / "fixtures"
HOSTILE = [
    "inf", "-inf", "Infinity", "nan", "NaN", "1e400", "-1e400", "²", "٣", "１２", "1_000", "0x10", " 7", "7 ",
    "9" * 30, "-" + "9" * 25, "", "-1", "1e18", "+", ".", "1e", "0" * 50 + "1", "\u00a0", "１e3",
]  # fmt: skip


def parse_all(parser: RecordParser, data: bytes) -> tuple[list[PhoutBatch], list[Any]]:
    """Batches (or Locust's tables) of `data`; NotThisFormat (a refusal with its reason) is an answer too."""
    tables: list[Any] = []
    try:
        if isinstance(parser, LocustParser):
            tables = list(parser.read_tables(io.BytesIO(data)))
            return [], tables
        return list(parser.read_from(io.BytesIO(data))), tables
    except (NotThisFormat, NotPhout):
        return [], tables


def assert_sane(parser: RecordParser, batches: list[PhoutBatch], tables: list[Any]) -> None:
    for batch in batches:
        for name in batch.__dataclass_fields__:
            column = np.asarray(getattr(batch, name))
            if column.dtype.kind == "f":
                assert np.isfinite(column).all(), name
    for block in tables:
        table = block.table
        for name in ("expect_ms", "quantiles_ms"):
            assert np.isfinite(np.asarray(getattr(table, name), dtype=np.float64)).all(), name
        assert (np.asarray(table.resps) >= 0).all()
    span = parser.instances.span()
    if span is not None:
        seconds = np.arange(span[0], min(span[1], span[0] + 100) + 1)
        assert (parser.instances.at(seconds) >= 0).all()
    for bad in parser.stats.bad_examples:
        assert bad.line >= 1 and bad.reason


def csv_mutant(text: str, row: int, column: int, value: str, delimiter: str = ",") -> bytes:
    lines = text.splitlines()
    index = 1 + row % (len(lines) - 1)
    fields = lines[index].split(delimiter)
    fields[column % len(fields)] = value
    lines[index] = delimiter.join(fields)
    return ("\n".join(lines) + "\n").encode()


CSV_FORMATS = [
    (JtlCsvParser, "jmeter_default.jtl", ","),
    (JtlCsvParser, "jmeter_groups.jtl", ","),
    (K6CsvParser, "k6.csv", ","),
    (LocustParser, "locust/run_stats_history.csv", ","),
    (GatlingParser, "gatling_3_9.log", "\t"),
    (GatlingParser, "gatling_3_3.log", "\t"),
]
values = st.one_of(st.sampled_from(HOSTILE), st.text(max_size=40), st.integers().map(str), st.floats().map(repr))


@pytest.mark.parametrize(("parser_class", "fixture", "delimiter"), CSV_FORMATS)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(row=st.integers(0, 1000), column=st.integers(0, 100), value=values)
def test_a_field_of_any_value_is_a_bad_line_or_a_number(
    parser_class: type[RecordParser], fixture: str, delimiter: str, row: int, column: int, value: str
) -> None:
    data = csv_mutant((FIXTURES / fixture).read_text(), row, column, value, delimiter)
    parser = parser_class()
    batches, tables = parse_all(parser, data)
    assert_sane(parser, batches, tables)


@settings(max_examples=150, deadline=None)
@given(line=st.integers(0, 100), key=st.sampled_from(["value", "time"]), value=st.one_of(values, st.floats()))
def test_k6_json_points_of_any_value(line: int, key: str, value: Any) -> None:
    import orjson

    lines = (FIXTURES / "k6.json").read_text().splitlines()
    points = [i for i, text in enumerate(lines) if '"Point"' in text]
    index = points[line % len(points)]
    envelope = orjson.loads(lines[index])
    envelope["data"][key] = value
    lines[index] = orjson.dumps(envelope, option=orjson.OPT_SERIALIZE_NUMPY).decode()
    parser = K6JsonParser()
    batches, tables = parse_all(parser, ("\n".join(lines) + "\n").encode())
    assert_sane(parser, batches, tables)


@settings(max_examples=150, deadline=None)
@given(
    sample=st.integers(0, 100),
    attribute=st.sampled_from(["t", "lt", "ct", "ts", "by", "sby", "ng", "na"]),
    value=st.one_of(st.sampled_from(HOSTILE), st.text(alphabet=st.characters(blacklist_characters='"<&'), max_size=40)),
)
def test_jtl_xml_attributes_of_any_value(sample: int, attribute: str, value: str) -> None:
    import re
    from xml.sax.saxutils import quoteattr

    text = (FIXTURES / "jmeter.xml").read_text()
    found = list(re.finditer(rf'\b{attribute}="[^"]*"', text))
    if not found:
        return
    match = found[sample % len(found)]
    try:
        quoted = quoteattr(value)
    except ValueError:
        return
    data = (text[: match.start()] + f"{attribute}={quoted}" + text[match.end() :]).encode("utf-8", "replace")
    parser = JtlXmlParser()
    batches, tables = parse_all(parser, data)
    assert_sane(parser, batches, tables)


@settings(max_examples=150, deadline=None)
@given(column=st.integers(0, 11), value=values)
def test_phout_fields_of_any_value(column: int, value: str) -> None:
    line = ["1700000000.123", "case", "1000", "10", "10", "900", "80", "0", "100", "200", "0", "200"]
    line[column] = value
    good = "\t".join(["1700000001.123", "case", "1000", "10", "10", "900", "80", "0", "100", "200", "0", "200"])
    data = ("\t".join(line) + "\n" + (good + "\n") * 3).encode("utf-8", "replace")
    parser = PhoutParser()
    try:
        batches = list(parser.read_from(io.BytesIO(data)))
    except NotPhout:
        return
    for batch in batches:
        assert all(np.asarray(getattr(batch, n)).dtype.kind in "iu" for n in batch.__dataclass_fields__)


@pytest.mark.parametrize(
    ("parser_class", "fixture", "row", "column", "value", "reason"),
    [
        # The cases of the issue, each once a 500 or an "internal error" of the whole file.
        (K6CsvParser, "k6.csv", 2, 2, "inf", "metric_value 'inf' is not a number"),
        (LocustParser, "locust/run_stats_history.csv", 3, -1, "inf", "Total Average Content Size 'inf'"),
        (LocustParser, "locust/run_stats_history.csv", 3, -4, "nan", "Total Average Response Time 'nan'"),
        (LocustParser, "locust/run_stats_history.csv", 3, -4, "1e400", "Total Average Response Time '1e400'"),
        (JtlCsvParser, "jmeter_default.jtl", 0, 9, "²", "bytes '²' is not an integer"),
        (JtlCsvParser, "jmeter_default.jtl", 0, 1, "٣", "elapsed '٣' is not an integer"),
        (GatlingParser, "gatling_3_9.log", 2, 3, "9" * 30, "start (ms) " + "9" * 30),
    ],
)
def test_the_issues_hostile_values_are_bad_lines_naming_the_field(
    parser_class: type[RecordParser], fixture: str, row: int, column: int, value: str, reason: str
) -> None:
    delimiter = "\t" if fixture.endswith(".log") else ","
    text = (FIXTURES / fixture).read_text()
    if parser_class is LocustParser:
        # The row's last columns are the totals; count from the end, which keeps a quoted name out of the way.
        column = len(text.splitlines()[0].split(",")) + column
    data = csv_mutant(text, row, column, value, delimiter)
    parser = parser_class()
    batches, tables = parse_all(parser, data)
    assert_sane(parser, batches, tables)
    reasons = [bad.reason for bad in parser.stats.bad_examples]
    assert any(reason in r for r in reasons), reasons


def test_thread_counts_that_are_no_counts_say_nothing() -> None:
    """JTL allThreads `²` (isdigit, but int() refuses it) and 25 digits were a 500; XML na="²" too."""
    text = (FIXTURES / "jmeter_default.jtl").read_text()
    for value in ("²", "9" * 25):
        data = csv_mutant(text, 0, 12, value)
        parser = JtlCsvParser()
        batches, tables = parse_all(parser, data)
        assert_sane(parser, batches, tables)
        assert parser.stats.lines_bad == 0  # the sample is fine; its thread count says nothing
    for value in ("²", "9" * 25):
        xml = (FIXTURES / "jmeter.xml").read_text().replace('na="2"', f'na="{value}"', 1)
        xml_parser = JtlXmlParser()
        assert_sane(xml_parser, *parse_all(xml_parser, xml.encode()))
        assert xml_parser.stats.lines_bad == 1  # the fixture's own bad sample only


def test_k6_json_value_nan_as_a_string_is_a_bad_line() -> None:
    lines = (FIXTURES / "k6.json").read_text().splitlines()
    index = next(i for i, line in enumerate(lines) if '"metric":"http_req_duration"' in line and '"Point"' in line)
    lines[index] = lines[index].replace('"value":', '"value":"NaN","was":', 1)
    parser = K6JsonParser()
    assert_sane(parser, *parse_all(parser, ("\n".join(lines) + "\n").encode()))
    assert any("value 'NaN' is not a number" in bad.reason for bad in parser.stats.bad_examples)


def test_gatling_user_end_with_a_30_digit_time_says_nothing() -> None:
    text = (FIXTURES / "gatling_3_9.log").read_text() + "USER\tScenario Name\tEND\t" + "9" * 30 + "\n"
    parser = GatlingParser()
    batches, tables = parse_all(parser, text.encode())
    assert_sane(parser, batches, tables)
    assert batches


@pytest.mark.parametrize("text", HOSTILE)
def test_the_number_rule(text: str) -> None:
    """Nothing of the hostile list is a number but what plain ASCII decimals spell within range."""
    for parse in (lambda: parse_int(text, "f", -(2**62), 2**62), lambda: parse_float(text, "f", -1e300, 1e300)):
        try:
            value = parse()
        except NotANumber as exc:
            assert str(exc).startswith("f ")
            continue
        assert math.isfinite(value) and text.strip() == text and text.isascii()


def test_json_numbers() -> None:
    assert json_number(3, "v", 0, 10) == 3.0
    for bad in ("NaN", True, None, float("nan"), float("inf"), 10**400, [1]):
        with pytest.raises(NotANumber):
            json_number(bad, "v", 0, 10)
