"""Exact and histogram quantiles against numpy, on random samples (hypothesis) and hand-checked cases."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytics.histogram import BIN_EDGES_US, bin_indexes_for_values_us
from analytics.quantiles import (
    DEFAULT_LEVELS_PCT,
    as_ms_dict,
    bin_width_us,
    dense_histogram,
    exact_quantiles,
    exact_quantiles_weighted,
    histogram_quantiles_us,
    parse_levels,
)

levels_strategy = st.lists(
    st.one_of(st.sampled_from([0.0, 50.0, 99.0, 99.9, 100.0]), st.floats(min_value=0, max_value=100)),
    min_size=1,
    max_size=8,
)
samples_strategy = st.lists(st.integers(min_value=0, max_value=300_000_000), min_size=1, max_size=400)


def _between_lower_and_higher(values: np.ndarray, levels: list[float], got: np.ndarray) -> None:
    lower = np.percentile(values, levels, method="lower")
    higher = np.percentile(values, levels, method="higher")
    assert np.all(got >= lower) and np.all(got <= higher), (levels, got, lower, higher)
    assert np.all(np.isin(got, values)), "an exact quantile must be one of the samples"


@settings(max_examples=300, deadline=None)
@given(samples_strategy, levels_strategy)
def test_exact_quantiles_are_order_statistics_between_numpy_lower_and_higher(values, levels) -> None:
    arr = np.array(values, dtype=np.int64)
    _between_lower_and_higher(arr, levels, exact_quantiles(arr, levels))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 50)), min_size=1, max_size=100), levels_strategy)
def test_weighted_exact_quantiles_equal_the_expanded_samples(pairs, levels) -> None:
    values = np.array([v for v, _ in pairs])
    counts = np.array([c for _, c in pairs])
    expanded = np.repeat(values, counts)
    got = exact_quantiles_weighted(values, counts, levels)
    if expanded.size == 0:
        assert np.all(np.isnan(got))
    else:
        assert np.array_equal(got, exact_quantiles(expanded, levels))


@settings(max_examples=300, deadline=None)
@given(samples_strategy, levels_strategy)
def test_histogram_quantiles_are_within_one_bin_of_exact(values, levels) -> None:
    arr = np.array(values, dtype=np.int64)
    hist = dense_histogram(bin_indexes_for_values_us(arr), np.ones(arr.size, dtype=np.int64))
    got = histogram_quantiles_us(hist, levels)
    exact = exact_quantiles(arr, levels)
    for g, e in zip(got, exact, strict=True):
        assert abs(g - e) <= bin_width_us(e), (g, e)


@settings(max_examples=50, deadline=None)
@given(st.lists(samples_strategy, min_size=1, max_size=6))
def test_histogram_matrix_rows_match_single_histograms(groups) -> None:
    hists = np.stack(
        [dense_histogram(bin_indexes_for_values_us(np.array(g)), np.ones(len(g), dtype=np.int64)) for g in groups]
    )
    matrix = histogram_quantiles_us(hists, DEFAULT_LEVELS_PCT)
    for row, hist in zip(matrix, hists, strict=True):
        assert np.array_equal(row, histogram_quantiles_us(hist, DEFAULT_LEVELS_PCT))


def test_merged_histograms_of_seconds_give_the_quantiles_of_the_whole_window() -> None:
    rng = np.random.default_rng(7)
    seconds = [rng.lognormal(10, 0.6, size=500).astype(np.int64) for _ in range(20)]
    merged = sum(dense_histogram(bin_indexes_for_values_us(s), np.ones(s.size, dtype=np.int64)) for s in seconds)
    everything = np.concatenate(seconds)
    got = histogram_quantiles_us(merged, [50, 99])
    exact = exact_quantiles(everything, [50, 99])
    assert np.all(np.abs(got - exact) <= [bin_width_us(e) for e in exact])


def test_known_values() -> None:
    values = np.arange(1, 101)  # 1..100
    assert exact_quantiles(values, [0, 50, 99, 100]).tolist() == [1, 51, 100, 100]  # rank floor(100 p), max 99
    assert np.isnan(exact_quantiles(np.array([]), [50])).all()
    assert np.isnan(histogram_quantiles_us(np.zeros(BIN_EDGES_US.size, dtype=np.int64), [50])).all()
    # A single response of 33.3 ms lands in the 33..34 ms bin.
    hist = dense_histogram(bin_indexes_for_values_us(np.array([33_297])), [1])
    assert 33_000 <= histogram_quantiles_us(hist, [50])[0] <= 34_000
    assert as_ms_dict([50, 99.9], [1500.0, float("nan")]) == {"50": 1.5, "99.9": None}


def test_parse_levels() -> None:
    assert parse_levels(None) == DEFAULT_LEVELS_PCT
    assert parse_levels("99.9, 50,50") == (99.9, 50.0)
    for bad in ("abc", "101", "-1", "nan"):
        with pytest.raises(ValueError, match="quantile level"):
            parse_levels(bad)
