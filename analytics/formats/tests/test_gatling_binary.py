"""Gatling 3.13+'s binary simulation.log: every layout version's fixture (written by gatling_binary_writer from the
documented layout), read whole, in pieces and as a growing file; cut short, damaged, and arbitrary bytes."""

from __future__ import annotations

import struct
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytics.formats import detect, parser_class, resolve
from analytics.formats.gatling import case_of
from analytics.formats.gatling_binary import GatlingBinaryParser, sanitized
from analytics.formats.tests.gatling_binary_writer import RUN_START_MS, VERSIONS, Expected, SimulationLog, sample_run
from analytics.schema.samples import PhoutBatch


def read(data: bytes, piece: int | None = None, *, growing: bool = False) -> tuple[GatlingBinaryParser, list[Expected]]:
    """Parse `data` whole, or fed `piece` bytes at a time (`growing`: each piece parsed at once, as a follow does)."""
    parser = GatlingBinaryParser()
    batches: list[PhoutBatch] = []
    step = piece or len(data)
    for at in range(0, len(data), step):
        batches += parser.feed(data[at : at + step])
        if growing:
            batches += parser.parse_buffered()
    batches += parser.finish()
    rows = []
    for batch in batches:
        for i in range(batch.rows):
            rows.append(
                Expected(
                    parser.cases[int(batch.case_codes[i])],
                    int(batch.send_ts_us[i]),
                    int(batch.interval_real_us[i]),
                    int(batch.proto_code[i]),
                    int(batch.net_code[i]),
                )
            )
    return parser, rows


@pytest.mark.parametrize("version", VERSIONS)
def test_each_layout_versions_run_is_read_request_by_request(version: str) -> None:
    data, expected, users = sample_run(version)
    assert detect(data[:4096]) == "gatling-binary" and resolve("gatling", "gatling-binary") == "gatling-binary"
    parser, rows = read(data)
    assert parser.refusal() is None and parser.stats.lines_bad == 0
    assert parser.gatling_version == version and parser.scenarios == ["Browse", "Checkout"]
    assert rows == expected
    assert parser.instances.at(np.arange(4) + RUN_START_MS // 1000).tolist() == users


@pytest.mark.parametrize("piece", [1, 7, 64])
@pytest.mark.parametrize("growing", [False, True])
def test_pieces_of_any_size_give_the_same_requests(piece: int, growing: bool) -> None:
    data, expected, _ = sample_run(VERSIONS[-1])
    parser, rows = read(data, piece, growing=growing)
    assert rows == expected and parser.stats.lines_bad == 0


def test_a_log_cut_inside_a_record_keeps_the_records_before_it() -> None:
    data, expected, _ = sample_run(VERSIONS[-1])
    parser, rows = read(data[: -10 - 3])  # without the last USER record (10 bytes), and 3 bytes of the last request
    assert rows == expected[:-1]
    assert parser.stats.lines_bad == 1 and "ends inside this record" in parser.stats.bad_examples[0].reason
    assert parser.refusal() is None


def test_a_damaged_log_is_refused_naming_the_record_and_byte() -> None:
    log = SimulationLog("3.15.1")
    log.request([], "home", RUN_START_MS + 1, RUN_START_MS + 5, ok=True)
    at = len(log.out)
    log.out.append(9)  # no such record kind
    log.request([], "home", RUN_START_MS + 6, RUN_START_MS + 9, ok=True)
    parser, _ = read(log.bytes())
    assert parser.fatal is not None
    assert f"record 3 (byte {at})" in parser.fatal and "unknown record kind 9" in parser.fatal
    assert parser.refusal() == parser.fatal


def test_a_reference_to_a_string_never_written_is_damage() -> None:
    log = SimulationLog("3.15.1")
    log.out += bytes([1]) + struct.pack(">ii", 0, -7)
    parser, _ = read(log.bytes() + bytes(20))
    assert parser.fatal is not None and "cached string 7 was never written" in parser.fatal


def test_a_request_ending_before_it_starts_is_a_bad_record_and_times_must_be_plausible() -> None:
    log = SimulationLog("3.14.9")
    log.request([], "a", RUN_START_MS + 10, RUN_START_MS + 5, ok=True)
    log.request([], "a", RUN_START_MS + 10, RUN_START_MS + 15, ok=True)
    parser, rows = read(log.bytes())
    assert len(rows) == 1 and parser.stats.bad_examples[0].line == 2
    early = SimulationLog("3.14.9", start_ms=1000)
    parser, _ = read(early.bytes())
    assert parser.fatal is not None and "not a plausible unix time" in parser.fatal


def test_text_gatling_is_not_read_as_binary() -> None:
    parser = parser_class("gatling-binary")()
    parser.feed(b"RUN\tsim\tid\t1700000000000\t \t3.9.5\n")
    assert parser.fatal is not None and "first byte" in parser.fatal


_names = st.text(st.characters(codec="utf-8"), max_size=12)
_request = st.tuples(
    st.lists(_names, max_size=3), _names, st.integers(0, 10**7), st.integers(0, 10**6), st.booleans(), _names
)


@settings(max_examples=60, deadline=None)
@given(st.lists(_request, max_size=40), st.integers(1, 50))
def test_any_run_the_writer_makes_reads_back_exactly(requests: list[tuple[Any, ...]], piece: int) -> None:
    log = SimulationLog("3.15.1")
    expected = []
    for groups, name, start, duration, ok, message in requests:
        log.request(groups, name, RUN_START_MS + start, RUN_START_MS + start + duration, ok=ok, message=message)
        case = case_of([sanitized(g) for g in groups], sanitized(name))
        expected.append((case, (RUN_START_MS + start) * 1000, duration * 1000))
    parser, rows = read(log.bytes(), piece, growing=True)
    assert [(r.case, r.send_us, r.interval_us) for r in rows] == expected
    assert parser.stats.lines_bad == 0 and parser.fatal is None


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300), st.integers(1, 64))
def test_arbitrary_bytes_after_a_run_record_never_crash_the_reader(tail: bytes, piece: int) -> None:
    parser, rows = read(SimulationLog("3.15.1").bytes() + tail, piece, growing=True)
    for row in rows:  # whatever was read is a plausible request
        assert row.interval_us >= 0 and row.send_us >= RUN_START_MS * 1000
    assert parser.fatal is not None or parser.stats.lines_bad <= parser.stats.lines_total
