"""The tank's histogram grid, checked against the edges documented in tank-protocol.md §4.4."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from analytics.histogram import (
    BIN_COUNT,
    BIN_EDGES_US,
    bin_index_of_upper_edge_ms,
    bin_indexes_for_values_us,
    lower_edge_us,
)


def test_grid_has_the_tanks_3721_edges() -> None:
    assert BIN_COUNT == 3721
    assert BIN_EDGES_US[0] == 0 and BIN_EDGES_US[-1] == 300_000_000
    assert np.all(np.diff(BIN_EDGES_US) > 0)
    steps = {int(e): int(n - e) for e, n in itertools.pairwise(BIN_EDGES_US)}
    assert steps[4_990] == 10 and steps[5_000] == 100 and steps[10_000] == 1_000
    assert steps[500_000] == 5_000 and steps[3_000_000] == 10_000 and steps[120_000_000] == 1_000_000


def test_values_land_in_the_bin_whose_upper_edge_the_tank_reports() -> None:
    # From the capture: responses of 33.3 ms and 54.03 ms were pushed as "to": 34.0 and "to": 55.0.
    idx = bin_indexes_for_values_us(np.array([33_297, 54_030]))
    assert [int(BIN_EDGES_US[i]) for i in idx] == [34_000, 55_000]
    assert [lower_edge_us(int(i)) for i in idx] == [33_000, 54_000]


def test_values_outside_the_grid_are_not_counted() -> None:
    idx = bin_indexes_for_values_us(np.array([-1, 300_000_001, 300_000_000]))
    assert idx.tolist() == [-1, -1, BIN_COUNT - 1]


def test_upper_edge_lookup_round_trips_and_rejects_off_grid_values() -> None:
    assert bin_index_of_upper_edge_ms(34.0) == int(np.searchsorted(BIN_EDGES_US, 34_000))
    assert bin_index_of_upper_edge_ms(0.01) == 1
    with pytest.raises(ValueError, match="not on the tank's bin grid"):
        bin_index_of_upper_edge_ms(34.5)


def test_every_edge_and_its_neighbours_land_where_a_search_of_the_edges_puts_them() -> None:
    values = np.concatenate([BIN_EDGES_US + d for d in (-1, 0, 1)] + [np.array([-1, 0, 1, 299_999_999])])
    by_search = np.searchsorted(BIN_EDGES_US, values, side="right")
    by_search = np.where(values == BIN_EDGES_US[-1], BIN_EDGES_US.size - 1, by_search)
    by_search = np.where((values < 0) | (values > BIN_EDGES_US[-1]), -1, by_search)
    assert (bin_indexes_for_values_us(values) == by_search).all()


def test_one_histogram_quantile_rule_for_report_and_compare() -> None:
    """The report (analytics.quantiles) and the comparison (analytics.compare) read the same quantile off the same
    histogram: before, one placed it at rank + 0.5 in its bin and the other interpolated, so a streamed test showed
    two different p50s on two pages."""
    import numpy as np

    from analytics.compare import LOWER_MS, UPPER_MS, hist_quantiles_ms
    from analytics.histogram import BIN_COUNT
    from analytics.quantiles import histogram_quantiles_us

    rng = np.random.default_rng(3)
    hist = np.zeros(BIN_COUNT)
    np.add.at(hist, rng.integers(900, 1100, 50), 1.0)  # few values in wide bins: the rules differ most
    levels = [50.0, 90.0, 99.0]
    report_ms = histogram_quantiles_us(hist.astype(np.int64), levels) / 1000.0
    compare_ms = hist_quantiles_ms(hist, LOWER_MS, UPPER_MS, levels)[0]
    assert np.allclose(report_ms, compare_ms, rtol=0, atol=1e-9)
