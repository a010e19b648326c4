"""The push_data body as the tank sends it, decoded straight into typed records (msgspec): the push path's fast lane.

Why: a push_data body is ~20 KB holding some 450 histogram bins as `{"from", "to", "count"}` objects. Decoding it
into Python dicts and then validating them (tank_push.parse_push_data) cost ~1 ms of CPU per push on this
hardware, the largest part of a push at 500 tanks (bench/tank_push). msgspec checks the types while it decodes and
builds small typed records instead of dicts.

Only the canonical shape is taken here: a JSON list of items with numeric trail values, int codes and counts, and
bins on the tank's grid, ascending. Anything else (NaN, nulls, strings for numbers, legacy or odd forms, and every
error) returns None, and the caller parses the body with tank_push.parse_push_data, which accepts what it accepts
and names what is wrong. Where both accept a body, they return equal PushSeconds (tests/test_tank_push_fast.py).
"""

from __future__ import annotations

import math
from typing import Annotated

import msgspec

from analytics.tank_push import (
    COLUMN_RANGES,
    EDGE_INDEX_MS,
    LEGACY_NOTAG,
    NOTAG_CASE,
    OVERALL_CASE,
    PushFormatError,
    PushSecond,
    parse_time,
)


def _whole(column: str) -> msgspec.Meta:
    """A trail number stored in an integer column: what int() of it leaves in the column's range."""
    low, high = COLUMN_RANGES[column]
    return msgspec.Meta(ge=low, lt=float(high + 1))  # high + 1 is a power of two: exact as a float


def _fits(column: str) -> msgspec.Meta:
    low, high = COLUMN_RANGES[column]
    # msgspec takes no bound past int64 (and decodes any integer): a count between 2**63 and a UInt64 column's top is
    # left to the general parser, like anything else unusual.
    return msgspec.Meta(ge=low, le=min(high, 2**63 - 1))


# The column ranges are checked while decoding (msgspec's constraints, in C); a value out of range makes the body
# not canonical, and the general parser then names it.
Threads = Annotated[float, _whole("threads")]
Resps = Annotated[float, _whole("resps")]
Bytes = Annotated[float, _whole("input_bytes")]
Code = Annotated[int, _fits("http_codes")]
Count = Annotated[int, _fits("hist_counts")]
assert COLUMN_RANGES["output_bytes"] == COLUMN_RANGES["input_bytes"]
assert COLUMN_RANGES["net_codes"] == COLUMN_RANGES["http_codes"]
assert COLUMN_RANGES["net_counts"] == COLUMN_RANGES["http_counts"] == COLUMN_RANGES["hist_counts"]


# gc=False on the records that hold only scalars (no cycle possible): a body makes ~450 of them, and tracked ones set
# off a young-generation collection every push or two (~30% of the decode).
class _Bin(msgspec.Struct, gc=False):
    to: float  # the bin's upper edge, ms
    count: Count


class _Code(msgspec.Struct, gc=False):
    code: Code
    count: Count


class _Trail(msgspec.Struct, gc=False):
    time: str | int | float
    reqps: float = 0.0
    threads: Threads = 0.0
    resps: Resps = 0.0
    expect: float = 0.0
    connect_time: float = 0.0
    send_time: float = 0.0
    latency: float = 0.0
    receive_time: float = 0.0
    input: Bytes = 0.0
    output: Bytes = 0.0
    q50: float = 0.0
    q75: float = 0.0
    q80: float = 0.0
    q85: float = 0.0
    q90: float = 0.0
    q95: float = 0.0
    q98: float = 0.0
    q99: float = 0.0
    q100: float = 0.0


class _Item(msgspec.Struct):
    trail: _Trail
    case: str | None = ""
    overall: int | str | bool | None = 0
    net_codes: list[_Code] | None = None
    http_codes: list[_Code] | None = None
    time_intervals: list[_Bin] | None = None


_DECODER = msgspec.json.Decoder(list[_Item])


class _NotCanonical(Exception):
    pass


def _codes(entries: list[_Code] | None) -> tuple[tuple[int, ...], tuple[int, ...]]:
    if not entries:
        return (), ()
    pairs = sorted((entry.code, entry.count) for entry in entries)
    counts = tuple(count for _, count in pairs)
    codes = tuple(code for code, _ in pairs)
    if len(set(codes)) != len(codes):
        raise _NotCanonical
    return codes, counts


def _bins(entries: list[_Bin] | None) -> tuple[tuple[int, ...], tuple[int, ...]]:
    if not entries:
        return (), ()
    try:
        bins = [EDGE_INDEX_MS[entry.to] for entry in entries]
    except KeyError:
        raise _NotCanonical from None
    counts = [entry.count for entry in entries]
    if sorted(set(bins)) != bins:
        raise _NotCanonical
    return tuple(bins), tuple(counts)


def _second(item: _Item) -> PushSecond:
    trail = item.trail
    numbers = (
        trail.reqps,
        trail.threads,
        trail.resps,
        trail.expect,
        trail.connect_time,
        trail.send_time,
        trail.latency,
        trail.receive_time,
        trail.input,
        trail.output,
    )
    quantiles = (trail.q50, trail.q75, trail.q80, trail.q85, trail.q90, trail.q95, trail.q98, trail.q99, trail.q100)
    if not math.isfinite(sum(numbers) + sum(quantiles)):
        raise _NotCanonical
    if item.overall in (1, "1", True):
        case = OVERALL_CASE
    elif item.case is None or item.case in ("", LEGACY_NOTAG):
        case = NOTAG_CASE
    else:
        if "\x00" in item.case:  # (msgspec refuses lone surrogates while decoding)
            raise _NotCanonical
        case = item.case
    net_codes, net_counts = _codes(item.net_codes)
    http_codes, http_counts = _codes(item.http_codes)
    hist_bins, hist_counts = _bins(item.time_intervals)
    return PushSecond(
        ts=parse_time(trail.time),
        case=case,
        reqps=float(trail.reqps),
        threads=int(trail.threads),
        resps=int(trail.resps),
        expect_ms=float(trail.expect),
        connect_time_ms=float(trail.connect_time),
        send_time_ms=float(trail.send_time),
        latency_ms=float(trail.latency),
        receive_time_ms=float(trail.receive_time),
        input_bytes=int(trail.input),
        output_bytes=int(trail.output),
        quantiles_ms=tuple(float(q) for q in quantiles),
        net_codes=net_codes,
        net_counts=net_counts,
        http_codes=http_codes,
        http_counts=http_counts,
        hist_bins=hist_bins,
        hist_counts=hist_counts,
    )


def parse_canonical_push_data(raw: bytes) -> list[PushSecond] | None:
    """The seconds of a push_data body in the tank's canonical shape, or None to parse it the general way."""
    try:
        return [_second(item) for item in _DECODER.decode(raw)]
    except (msgspec.DecodeError, _NotCanonical, PushFormatError, OverflowError, ValueError):
        return None
