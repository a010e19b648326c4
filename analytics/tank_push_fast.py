"""The push_data body as the tank sends it, decoded straight into typed records (msgspec): the push path's fast lane.

Why: a push_data body is ~20 KB holding some 450 histogram bins as `{"from", "to", "count"}` objects. Decoding it
into Python dicts and then validating them (tank_push.parse_push_data) is the largest part of a push's CPU
(bench/tank_push/README.md). msgspec checks the types while it decodes and builds small typed records instead of
dicts.

Only the canonical shape is taken here: a JSON list of items with numeric trail values, int codes and counts, and
bins on the tank's grid, ascending. Anything else (NaN, nulls, strings for numbers, legacy or odd forms, and every
error) returns None, and the caller parses the body with tank_push.parse_push_data, which accepts what it accepts
and names what is wrong. Where both accept a body, they return equal rows (tests/test_tank_push_fast.py).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Annotated, Any

import msgspec

from analytics.schema.seconds import COLUMN_RANGES, TRAIL_FIELDS, Field, Row
from analytics.tank_push import EDGE_INDEX_MS, PushFormatError, case_of, parse_time, row_of


def _whole(column: str) -> msgspec.Meta:
    """A trail number stored in an integer column: what int() of it leaves in the column's range."""
    low, high = COLUMN_RANGES[column]
    return msgspec.Meta(ge=low, lt=float(high + 1))  # high + 1 is a power of two: exact as a float


def _fits(column: str) -> msgspec.Meta:
    low, high = COLUMN_RANGES[column]
    # msgspec takes no bound past int64 (and decodes any integer): a count between 2**63 and a UInt64 column's top is
    # left to the general parser, like anything else unusual.
    return msgspec.Meta(ge=low, le=min(high, 2**63 - 1))


def _trail_type(field: Field) -> Any:
    """What a trail number must be to be canonical: a float, within its field's range if an integer field holds it
    (checked while decoding, by msgspec's constraints in C; a value out of range makes the body not canonical, and
    the general parser then names it)."""
    return Annotated[float, _whole(field.name)] if field.name in COLUMN_RANGES else float


Code = Annotated[int, _fits("http_codes")]
Count = Annotated[int, _fits("hist_counts")]
assert COLUMN_RANGES["net_codes"] == COLUMN_RANGES["http_codes"]
assert COLUMN_RANGES["net_counts"] == COLUMN_RANGES["http_counts"] == COLUMN_RANGES["hist_counts"]


# gc=False on the records that hold only scalars (no cycle possible): a body makes ~450 of them, and tracked ones set
# off a young-generation collection every push or two.
class _Bin(msgspec.Struct, gc=False):
    to: float  # the bin's upper edge, ms
    count: Count


class _Code(msgspec.Struct, gc=False):
    code: Code
    count: Count


# The trail: its time, then its numbers in row order (msgspec.structs.astuple gives them so).
if TYPE_CHECKING:
    _Trail = msgspec.Struct
else:
    _Trail = msgspec.defstruct(
        "_Trail",
        [("time", str | int | float), *((field.trail, _trail_type(field), 0.0) for field in TRAIL_FIELDS)],
        gc=False,
    )


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


def _second(item: _Item) -> Row:
    time, *numbers = msgspec.structs.astuple(item.trail)
    if not math.isfinite(sum(numbers)):
        raise _NotCanonical
    case = case_of(item.overall, item.case)
    if "\x00" in case:  # (msgspec refuses lone surrogates while decoding)
        raise _NotCanonical
    return row_of(
        parse_time(time), case, numbers, _codes(item.net_codes), _codes(item.http_codes), _bins(item.time_intervals)
    )


def parse_canonical_push_data(raw: bytes) -> list[Row] | None:
    """The seconds of a push_data body in the tank's canonical shape, or None to parse it the general way."""
    try:
        return [_second(item) for item in _DECODER.decode(raw)]
    except (msgspec.DecodeError, _NotCanonical, PushFormatError, OverflowError, ValueError):
        return None
