"""Cardinality limits at the parsers' one door for case names (BatchParser.case_code, README "Limits"): a long
name is cut and ends in "…", cases past the first N are counted under "(other cases)", both counted once per
distinct name; without limits (the library's default) nothing changes. Each path that decodes names: phout (C,
arrow and line-by-line), JTL CSV (fast and slow), JTL XML, k6, Gatling, Locust."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from analytics.formats.gatling import GatlingParser
from analytics.formats.jtl_csv import JtlCsvParser
from analytics.formats.jtl_xml import JtlXmlParser
from analytics.formats.locust import LocustParser
from analytics.phout import CUT_MARK, OTHER_CASES, PhoutParser, cut_label

JTL_HEADER = b"timeStamp,elapsed,label,responseCode,success,bytes,grpThreads,allThreads,Latency,Connect\n"


def jtl(labels: list[str]) -> bytes:
    lines = [
        b"%d,%d,%s,200,true,100,1,1,5,1" % (1_700_000_000_000 + i * 10, 10, label.encode())
        for i, label in enumerate(labels)
    ]
    return JTL_HEADER + b"\n".join(lines) + b"\n"


def phout(tags: list[str]) -> bytes:
    return b"".join(
        b"%d.%03d\t%s\t1000\t10\t10\t900\t80\t0\t100\t200\t0\t200\n" % (1_700_000_000 + i // 1000, i % 1000, t.encode())
        for i, t in enumerate(tags)
    )


def run(parser: Any, body: bytes, label_max: int | None, cases_max: int | None) -> tuple[Any, list[str]]:
    parser.label_max_chars = label_max
    parser.cases_max = cases_max
    names: list[str] = []
    batches = [*parser.feed(body), *parser.finish()]
    for batch in batches:
        names += [parser.cases[int(code)] for code in np.asarray(batch.case_codes)]
    return parser, names


def test_cut_label() -> None:
    assert cut_label("abc", 3) == "abc"
    assert cut_label("abcd", 3) == "ab" + CUT_MARK
    assert cut_label("x" * 10_000, None) == "x" * 10_000


@pytest.mark.parametrize("make", [JtlCsvParser, PhoutParser])
def test_long_names_are_cut_and_counted_once_each(make: Any) -> None:
    long_a, long_b = "a" * 160_000, "b" * 300
    labels = [long_a, "short", long_b, long_a, long_b, "short"]
    body = jtl(labels) if make is JtlCsvParser else phout(labels)
    parser, names = run(make(), body, 100, None)
    assert names == [cut_label(label, 100) for label in labels]
    assert all(len(n) <= 100 for n in parser.cases)
    assert parser.stats.labels_cut == 2 and parser.stats.cases_folded == 0


@pytest.mark.parametrize("make", [JtlCsvParser, PhoutParser])
def test_cases_past_the_limit_are_folded_into_one(make: Any) -> None:
    labels = [f"case{i % 50}" for i in range(500)]
    body = jtl(labels) if make is JtlCsvParser else phout(labels)
    parser, names = run(make(), body, 100, 10)
    kept = {f"case{i}" for i in range(10)}
    assert set(parser.cases) == kept | {OTHER_CASES}
    assert names == [label if label in kept else OTHER_CASES for label in labels]
    assert parser.stats.cases_folded == 40 and parser.stats.labels_cut == 0


@pytest.mark.parametrize("make", [JtlCsvParser, PhoutParser])
def test_without_limits_nothing_changes(make: Any) -> None:
    labels = [f"case{i}" for i in range(300)] + ["z" * 5000]
    body = jtl(labels) if make is JtlCsvParser else phout(labels)
    parser, names = run(make(), body, None, None)
    assert names == labels
    assert parser.stats.labels_cut == 0 and parser.stats.cases_folded == 0


def test_jtl_slow_path_and_xml_and_gatling_and_locust_cut_too() -> None:
    # A bad line sends the JTL CSV block to its line-by-line path.
    slow = jtl(["x" * 300, "y"]) + b"not,a,line\n"
    parser, names = run(JtlCsvParser(), slow, 50, None)
    assert names == [cut_label("x" * 300, 50), "y"] and parser.stats.lines_bad == 1
    xml = (
        b'<?xml version="1.0" encoding="UTF-8"?>\n<testResults version="1.2">\n'
        + b'<httpSample t="10" lt="5" ts="1700000000000" s="true" lb="%s" rc="200" by="10"/>\n' % (b"q" * 300)
        + b"</testResults>\n"
    )
    parser, names = run(JtlXmlParser(), xml, 50, None)
    assert names == [cut_label("q" * 300, 50)] and parser.stats.labels_cut == 1
    gatling = b"".join(
        b"REQUEST\t\t%s\t1700000000000\t1700000000010\tOK\t \n" % name.encode() for name in ["g" * 300, "a", "b"]
    )
    parser, names = run(GatlingParser(), gatling, 50, 1)
    assert names == [cut_label("g" * 300, 50), OTHER_CASES, OTHER_CASES]
    assert parser.stats.labels_cut == 1 and parser.stats.cases_folded == 2
    locust = LocustParser()
    locust.label_max_chars = 20
    header = (
        "Timestamp,User Count,Type,Name,Requests/s,Failures/s,50%,66%,75%,80%,90%,95%,98%,99%,99.9%,99.99%,100%,"
        "Total Request Count,Total Failure Count,Total Median Response Time,Total Average Response Time,"
        "Total Min Response Time,Total Max Response Time,Total Average Content Size\n"
    )
    rows = "".join(
        f"{1_700_000_000 + s},1,GET,{'/' + 'p' * 100},1,0,10,10,10,10,10,10,10,10,10,10,10,{s + 1},0,10,10,10,10,100\n"
        for s in range(3)
    )
    locust.feed((header + rows).encode())
    locust.finish()
    assert locust.stats.labels_cut == 1, locust.stats.bad_examples
