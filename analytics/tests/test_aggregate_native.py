"""The aggregation's C kernels (analytics/_phout_fast.c) against its numpy path: the same rows, bit for bit."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytics import _phout_fast, aggregate, kernels
from analytics.aggregate import SENTINEL_ABS_US
from analytics.histogram import MAX_HIST_US, native_grid
from analytics.schema.codes import DISCARDED_NET_CODE
from analytics.schema.samples import SampleColumns
from analytics.schema.seconds import QUANTILE_LEVELS
from analytics.tests.seconds_support import named, rows_of


def columns(seed: int, rows: int, cases: int) -> SampleColumns:
    rng = np.random.default_rng(seed)
    real = rng.choice([rng.integers(0, 2_000_000, rows), rng.integers(0, MAX_HIST_US * 2, rows)], axis=0)
    discarded = rng.random(rows) < 0.05
    phases = [rng.integers(-5, 500_000, rows) for _ in range(4)]
    for phase in phases[:1] + phases[2:]:  # connect, latency, receive carry pandora's sentinels on timeouts
        phase[rng.random(rows) < 0.05] = rng.choice([SENTINEL_ABS_US, -SENTINEL_ABS_US])
    net = rng.choice([0, 110, 104, DISCARDED_NET_CODE, 32767], rows).astype(np.int32)
    for values in (real, *phases):
        values[discarded] = 0
    net[discarded] = DISCARDED_NET_CODE
    receive_sec = np.sort(rng.integers(1_700_000_000, 1_700_000_030, rows))
    return SampleColumns(
        send_ts_us=receive_sec * 1_000_000,
        receive_sec=receive_sec,
        case_codes=rng.integers(0, cases, rows).astype(np.int32),
        interval_real_us=real,
        connect_time_us=phases[0],
        send_time_us=phases[1],
        latency_us=phases[2],
        receive_time_us=phases[3],
        interval_event_us=np.zeros(rows, dtype=np.int64),
        size_out_bytes=rng.integers(0, 2**32, rows),
        size_in_bytes=rng.integers(0, 2**32, rows),
        net_code=net,
        proto_code=rng.choice([200, 200, 200, 404, 500, 0, -1, 30000], rows).astype(np.int32),
    )


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 3000), st.integers(1, 6))
def test_the_kernels_give_what_numpy_gives(seed: int, rows: int, cases: int) -> None:
    cols = columns(seed, rows, cases)
    names = ["", *(f"case{i}" for i in range(1, cases))]  # code 0: requests with no case
    native = rows_of(aggregate.aggregate_table(cols, names))
    assert kernels.fast is not None
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(kernels, "fast", None)
        plain = rows_of(aggregate.aggregate_table(cols, names))
    assert native == plain  # every float bit for bit, every tuple of codes and counts


@pytest.mark.parametrize(
    "times",
    [
        "uniform",  # buckets of ~500 µs, a few values each
        "outliers",  # a few values near 300 s: nearly every value in the first bucket, sorted there
        "narrow",  # a span under 4096 µs: one value per bucket width, no sort at all
        "equal",  # one value
    ],
)
def test_quantiles_of_big_groups_are_numpys(times: str) -> None:
    """Groups and seconds of 1024 values or more take the kernel's selection path (counted into buckets, only the
    buckets holding the ranks read sorted); the property test above makes smaller ones."""
    rng = np.random.default_rng(7)
    rows = 30_000
    cols = columns(11, rows, 3)
    real = {
        "uniform": rng.integers(0, 2_000_000, rows),
        "outliers": np.where(rng.random(rows) < 0.001, 299_000_000, rng.integers(0, 50_000, rows)),
        "narrow": rng.integers(1_000_000, 1_003_000, rows),
        "equal": np.full(rows, 12_345),
    }[times]
    discarded = cols.net_code == DISCARDED_NET_CODE
    cols = dataclasses.replace(
        cols,
        receive_sec=np.sort(rng.integers(1_700_000_000, 1_700_000_003, rows)),
        interval_real_us=np.where(discarded & (cols.interval_real_us == 0), 0, real),
    )
    names = ["", "a", "b"]
    native = rows_of(aggregate.aggregate_table(cols, names))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(kernels, "fast", None)
        plain = rows_of(aggregate.aggregate_table(cols, names))
    assert min(named(r)["resps"] for r in native) >= 1024
    assert native == plain


def _kernel_call(
    group: list[int], bounds: list[int], groups: int, capacity: int | None = None, group_dtype: type = np.int64
) -> object:
    rows = len(group)
    i64, u32, i32 = (np.zeros(rows, dtype=t) for t in (np.int64, np.uint32, np.int32))
    codes = np.full(rows, 200, dtype=np.int16)
    levels = len(QUANTILE_LEVELS)
    group_outputs = tuple(np.zeros(groups * (levels if i == 13 else 1)) for i in range(14))
    sparse = tuple(np.zeros(rows if capacity is None else capacity, dtype=np.int64) for _ in range(9))
    seconds = (np.array(bounds, dtype=np.int64), np.zeros((len(bounds) - 1) * levels))
    return _phout_fast.group_aggregate(
        (np.array(group, dtype=group_dtype), u32, i64, i32, i64, i64, u32, u32, codes, codes),
        group_outputs,
        seconds,
        sparse,
        native_grid(),
        aggregate._LEVEL_FRACTIONS,
        SENTINEL_ABS_US,
        DISCARDED_NET_CODE,
    )


def test_the_kernel_refuses_what_does_not_fit() -> None:
    assert _kernel_call([0, 1, 1], [0, 2], groups=2) == (2, 2, 2)  # one bin, one net and one HTTP code per group
    with pytest.raises(ValueError, match=r"outside 0\.\.groups-1"):
        _kernel_call([0, 2], [0, 2], groups=2)
    with pytest.raises(ValueError, match="from 0 to groups"):
        _kernel_call([0, 1], [0, 1], groups=2)
    with pytest.raises(ValueError, match="must not decrease"):
        _kernel_call([0, 1], [0, 2, 1, 2], groups=2)
    with pytest.raises(ValueError, match="too small"):
        _kernel_call([0, 1], [0, 2], groups=2, capacity=1)
    with pytest.raises(ValueError, match="items of 8 bytes"):
        _kernel_call([0, 1], [0, 2], groups=2, group_dtype=np.int32)


def test_rows_come_by_second_cases_by_name_overall_last() -> None:
    cols = columns(3, 5000, 5)
    names = ["", "zeta", "alpha", "mid", "beta"]  # code 0: requests with no case, in the overall rows only
    rows = [named(r) for r in rows_of(aggregate.aggregate_table(cols, names))]
    keys = [(r["ts"], r["case"] == "", r["case"]) for r in rows]
    assert keys == sorted(keys)
    assert sum(r["resps"] for r in rows if r["case"] == "") == 5000
    assert {r["case"] for r in rows} == {"", "zeta", "alpha", "mid", "beta"}
