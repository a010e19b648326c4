"""The push_data fast lane (analytics.tank_push_fast) against the general parser (analytics.tank_push): wherever the
fast lane takes a body it must return what parse_push_data returns, and it must take what the tank really sends."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from analytics.histogram import BIN_EDGES_US
from analytics.schema.seconds import TRAIL_KEYS
from analytics.tank_push import PushFormatError, parse_push_data
from analytics.tank_push_fast import parse_canonical_push_data

from .test_tank_push import BFG_PUSH, PHANTOM_ITEM

GRID_MS = [int(edge) / 1000 for edge in BIN_EDGES_US]


def _general(body: bytes) -> Any:
    """parse_push_data's answer as the push path gets it (json.loads, as its fallback decoder), or its error."""
    try:
        return parse_push_data(json.loads(body))
    except (PushFormatError, ValueError) as exc:
        return type(exc)


def test_the_real_clients_bodies_take_the_fast_lane_with_equal_results() -> None:
    for body in (BFG_PUSH, [PHANTOM_ITEM], [*BFG_PUSH, PHANTOM_ITEM]):
        raw = json.dumps(body).encode()
        fast = parse_canonical_push_data(raw)
        assert fast is not None
        assert fast == parse_push_data(body)


def test_what_is_not_canonical_is_left_to_the_general_parser() -> None:
    item = json.loads(json.dumps(PHANTOM_ITEM))
    variants: list[Any] = [
        {"trail": [item]},  # the writer endpoint's form
        [dict(item, trail=dict(item["trail"], q50=None))],  # null: the general parser reads it as 0
        [dict(item, trail=dict(item["trail"], resps="2"))],  # a number as text
        [dict(item, trail=dict(item["trail"], resps=-1))],  # an error, named by the general parser
        [dict(item, http_codes=[{"code": 200, "count": 1}, {"code": 200, "count": 1}])],  # repeated code: merged
        [dict(item, time_intervals=list(reversed(item["time_intervals"])))],  # bins out of order
        [dict(item, time_intervals=[{"from": 0, "to": 6.4000001, "count": 1}])],  # off the grid by a hair
        [dict(item, trail=dict(item["trail"], time="2018-12-20 19:04:57"))],  # legacy time: still fast (parse_time)
        [dict(item, overall="1")],
        [dict(item, case=None)],
        "not a list",
    ]
    for body in variants:
        raw = json.dumps(body).encode()
        fast = parse_canonical_push_data(raw)
        assert fast is None or fast == parse_push_data(body), body
    assert parse_canonical_push_data(b"[{]") is None
    assert parse_canonical_push_data(b'[{"trail": {"time": "1545332697", "q50": NaN}}]') is None


_number = st.one_of(
    st.integers(min_value=-5, max_value=10**6),
    st.floats(min_value=-5, max_value=1e6, allow_nan=False, allow_infinity=False),
)
_trail = st.fixed_dictionaries(
    {"time": st.sampled_from(["1545332697", 1545332697, 1545332697.0, "1545332697.5", "2018-12-20 19:04:57"])},
    optional={key: st.one_of(_number, st.none()) for key in TRAIL_KEYS},
)
_codes = st.lists(
    st.fixed_dictionaries({"code": st.sampled_from([0, 110, 200, 404, 500, 777]), "count": st.integers(-1, 50)}),
    max_size=4,
)
_bins = st.one_of(
    # on the grid, ascending, as the tank sends them
    st.lists(st.sampled_from(GRID_MS), max_size=40, unique=True)
    .map(sorted)
    .flatmap(
        lambda edges: st.tuples(*(st.integers(0, 100) for _ in edges)).map(
            lambda counts: [{"from": 0, "to": edge, "count": count} for edge, count in zip(edges, counts, strict=True)]
        )
    ),
    # anything: off-grid, repeated, unordered, negative
    st.lists(
        st.fixed_dictionaries(
            {"to": st.one_of(st.sampled_from(GRID_MS), st.floats(0, 1e5, allow_nan=False)), "count": st.integers(-1, 9)}
        ),
        max_size=6,
    ),
)
_item = st.fixed_dictionaries(
    {"trail": _trail},
    optional={
        "case": st.one_of(st.none(), st.sampled_from(["", "__EMPTY__", "index", "api|v2"])),
        "overall": st.sampled_from([0, 1, "1", "0", True, False, None]),
        "net_codes": st.one_of(st.none(), _codes),
        "http_codes": st.one_of(st.none(), _codes),
        "time_intervals": st.one_of(st.none(), _bins),
    },
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_item, min_size=1, max_size=4))
def test_wherever_the_fast_lane_answers_it_answers_as_the_general_parser(body: list[dict[str, Any]]) -> None:
    raw = json.dumps(body).encode()
    fast = parse_canonical_push_data(raw)
    if fast is not None:
        assert fast == _general(raw)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.fixed_dictionaries(
            {
                "trail": st.fixed_dictionaries(
                    {"time": st.just("1545332697"), "resps": st.integers(0, 1000), "q99": st.floats(0, 1e4)}
                ),
                "case": st.sampled_from(["index", ""]),
                "overall": st.sampled_from([0, 1]),
                "http_codes": st.lists(
                    st.fixed_dictionaries({"code": st.sampled_from([200, 404]), "count": st.integers(0, 9)}),
                    max_size=1,
                ),
                "time_intervals": _bins.filter(
                    lambda bins: (
                        all(b["to"] in GRID_MS and b["count"] >= 0 for b in bins)
                        and [b["to"] for b in bins] == sorted({b["to"] for b in bins})
                    )
                ),
            }
        ),
        min_size=1,
        max_size=3,
    )
)
def test_canonical_bodies_take_the_fast_lane(body: list[dict[str, Any]]) -> None:
    raw = json.dumps(body).encode()
    fast = parse_canonical_push_data(raw)
    assert fast is not None
    assert fast == parse_push_data(body)
