"""The comparison method: quantiles from histograms, verdicts, false-positive rate, tail shifts, code shares.

The simulations draw runs whose seconds are correlated (an AR(1) drift of the per-second latency level, as a
GC pause or a slow disk would cause) with a 3% slow tail, 20 responses per second for 5 minutes: 6000
responses per run, a small but realistic test.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from analytics.compare import (
    DEFAULT_LEVELS,
    LEVEL_TABLES,
    LOWER_MS,
    MID_MS,
    OPPOSITE_SIGNS,
    UPPER_MS,
    CompareSettings,
    QuantileComparison,
    SparseCounts,
    block_length_s,
    compare_codes,
    compare_quantiles,
    correlation_time_s,
    hist_from_values_ms,
    hist_quantiles_ms,
    method_text,
)
from analytics.histogram import bin_indexes_for_values_us

TRIALS = 200


def _run(
    rng: np.random.Generator,
    *,
    n_s: int = 300,
    rps: int = 20,
    ar: float = 0.7,
    tail_scale: float = 1.0,
    body_scale: float = 1.0,
) -> tuple[SparseCounts, np.ndarray]:
    level = np.zeros(n_s)
    shocks = rng.normal(0.0, 0.08, n_s)
    for i in range(1, n_s):
        level[i] = ar * level[i - 1] + shocks[i]
    seconds = np.repeat(np.arange(n_s) + 1_700_000_000, rps)
    values = rng.lognormal(np.log(100.0), 0.3, seconds.size) * np.exp(level[seconds - seconds[0]]) * body_scale
    tail = rng.random(seconds.size) < 0.03
    values[tail] = rng.uniform(500.0, 1500.0, int(tail.sum())) * tail_scale
    return hist_from_values_ms(seconds, values), values


def test_histogram_quantiles_are_within_one_bin_of_numpy() -> None:
    rng = np.random.default_rng(1)
    values = rng.lognormal(np.log(80.0), 0.8, 20_000)
    hist = hist_from_values_ms(np.zeros(values.size, dtype=np.int64), values)
    dense = np.zeros(UPPER_MS.size)
    np.add.at(dense, hist.keys, hist.counts)
    got = hist_quantiles_ms(dense, LOWER_MS, UPPER_MS, DEFAULT_LEVELS)[0]
    for level, value in zip(DEFAULT_LEVELS, got, strict=True):
        lo = np.percentile(values, level, method="lower")
        hi = np.percentile(values, level, method="higher")
        idx = int(np.searchsorted(UPPER_MS, lo, side="left"))
        width = UPPER_MS[min(idx + 1, UPPER_MS.size - 1)] - LOWER_MS[idx]
        assert lo - width <= value <= hi + width, (level, value, lo, hi)


def test_values_are_binned_as_the_tank_bins_them() -> None:
    values_ms = np.array([0.0, 0.005, 0.01, 4.99, 5.0, 9.95, 10.0, 499.9, 500.0, 2999.0, 300_000.0, 400_000.0])
    hist = hist_from_values_ms(np.arange(values_ms.size), values_ms)
    expected = bin_indexes_for_values_us(np.round(values_ms * 1000).astype(np.int64))
    assert hist.keys.tolist() == [int(x) for x in expected if x >= 0]
    assert hist.total == values_ms.size - 1  # 400 s is beyond the grid, as in the tank


def test_block_length_follows_cube_root_and_correlation_time() -> None:
    assert block_length_s(1) == 1
    assert block_length_s(1000) == 10
    rng = np.random.default_rng(2)
    correlated, _ = _run(rng, ar=0.9, n_s=600)
    independent, _ = _run(rng, ar=0.0, n_s=600)
    assert correlation_time_s(correlated, MID_MS) > 3 * correlation_time_s(independent, MID_MS)


def test_same_distribution_is_same_at_every_level_in_95_percent_of_trials() -> None:
    """The headline guarantee. Measured here: 1.5% of 200 trials flag some level (AR 0.7 drift): 98.5% same."""
    rng = np.random.default_rng(7)
    flagged = 0
    for _ in range(TRIALS):
        result = compare_quantiles([_run(rng)[0], _run(rng)[0]])
        flagged += any(v in ("better", "worse") for v in result.verdict[1])
    rate = flagged / TRIALS
    print(f"false-positive rate (some level not 'same'): {rate:.3f} over {TRIALS} trials")
    assert rate <= 0.05


def test_independent_seconds_false_positive_rate_is_low_too() -> None:
    rng = np.random.default_rng(8)
    flagged = sum(
        any(
            v in ("better", "worse") for v in compare_quantiles([_run(rng, ar=0.0)[0], _run(rng, ar=0.0)[0]]).verdict[1]
        )
        for _ in range(100)
    )
    assert flagged <= 5


def test_blocks_matter_when_seconds_are_correlated(monkeypatch: pytest.MonkeyPatch) -> None:
    """Flipping single seconds (units of 1) understates the noise of a drifting run: its intervals are narrower."""
    import analytics.compare as module

    rng = np.random.default_rng(9)
    a, _ = _run(rng, ar=0.9)
    b, _ = _run(rng, ar=0.9)
    blocked = compare_quantiles([a, b], (50.0,))

    def uncorrelated(series: np.ndarray) -> float:
        return 1.0

    monkeypatch.setattr(module, "MIN_UNIT_SLOTS", 1)
    monkeypatch.setattr(module, "_ar1_time", uncorrelated)
    naive = compare_quantiles([a, b], (50.0,))
    blocked_interval, naive_interval = blocked.change_interval_pct[1][0], naive.change_interval_pct[1][0]
    assert blocked_interval is not None and naive_interval is not None
    width_blocked = blocked_interval[1] - blocked_interval[0]
    width_naive = naive_interval[1] - naive_interval[0]
    assert width_blocked > 1.5 * width_naive


def test_p99_thirty_percent_higher_is_worse_and_the_body_is_same() -> None:
    rng = np.random.default_rng(11)
    worse = 0
    body_same = 0
    ratios = []  # p99 of the slower run over the baseline's: +30% in the population (tail uniform 500..1500 ms)
    for _ in range(20):
        base, base_values = _run(rng)
        slower, slower_values = _run(rng, tail_scale=1.3)
        ratios.append(np.percentile(slower_values, 99) / np.percentile(base_values, 99))
        result = compare_quantiles([base, slower])
        p99 = result.levels.index(99.0)
        worse += result.verdict[1][p99] == "worse"
        interval, change = result.change_interval_pct[1][p99], result.change_pct[1][p99]
        assert interval is not None and change is not None and interval[0] <= change <= interval[1]
        body_same += result.verdict[1][0] == "same"
    assert 1.2 < float(np.mean(ratios)) < 1.4
    # 20 rps leaves 3 responses a second beyond p99: each block's p99 rests on 5 of them, so a 30% tail shift is
    # seen in about half of the 5-minute runs (docs/compare.md); never the other way.
    assert worse >= 8
    assert body_same >= 19


def test_faster_body_is_better() -> None:
    rng = np.random.default_rng(12)
    result = compare_quantiles([_run(rng)[0], _run(rng, body_scale=0.7)[0]], (50.0, 75.0))
    assert result.verdict[1] == ["better", "better"]
    assert all(d is not None and d < 0 for d in result.diff_ms[1])


def test_exact_values_are_reported_and_differenced() -> None:
    rng = np.random.default_rng(13)
    (a, _), (b, _) = _run(rng), _run(rng)
    result = compare_quantiles([a, b], (50.0, 99.0), exact_ms=[[100.0, 900.0], [101.0, 1200.0]])
    assert result.values_ms == [[100.0, 900.0], [101.0, 1200.0]]
    assert result.diff_ms[1] == [1.0, 300.0]
    assert result.verdict[0] == [None, None]


def test_the_maximum_is_not_judged_on_a_few_samples() -> None:
    rng = np.random.default_rng(14)
    result = compare_quantiles([_run(rng)[0], _run(rng, tail_scale=3.0)[0]], (50.0, 100.0))
    assert result.verdict[1][1] is None  # not judged, and the reason is given
    assert result.change_interval_pct[1][1] is None
    assert 100.0 in result.notes[1] and 100.0 not in result.notes[0]


def test_empty_test_has_no_values_and_no_verdicts() -> None:
    rng = np.random.default_rng(15)
    result = compare_quantiles([_run(rng)[0], SparseCounts.empty()], (50.0,))
    assert result.values_ms[1] == [None]
    assert result.verdict[1] == [None]
    assert result.counts[1] == 0


def _codes(rng: np.random.Generator, error_share: float, n_s: int = 300, rps: int = 50) -> SparseCounts:
    seconds = np.repeat(np.arange(n_s), rps)
    codes = np.where(rng.random(seconds.size) < error_share, 500, 200)
    pairs, counts = np.unique(np.stack([seconds, codes]), axis=1, return_counts=True)
    return SparseCounts.of(pairs[0], pairs[1], counts)


def test_error_share_growth_is_worse_and_same_share_is_same() -> None:
    rng = np.random.default_rng(16)
    result = compare_codes([_codes(rng, 0.01), _codes(rng, 0.05)], "http")
    assert result.verdict["500"] == [None, "worse"]
    assert result.verdict["200"] == [None, "worse"]  # fewer successes is worse too
    low, high = result.interval["500"][1]  # type: ignore[misc]
    assert 0.03 < low < 0.04 < high < 0.05
    assert result.counts["500"][0] + result.counts["200"][0] == 15_000
    flagged = 0
    for _ in range(50):
        same = compare_codes([_codes(rng, 0.02), _codes(rng, 0.02)], "http")
        flagged += any(v[1] != "same" for v in same.verdict.values())
    assert flagged <= 3


def test_net_codes_zero_is_success() -> None:
    rng = np.random.default_rng(17)
    result = compare_codes([_codes(rng, 0.05), _codes(rng, 0.0)], "net")  # code 500 standing in for a net error
    assert result.verdict["200"][1] == "worse"  # any non-zero net code is a failure
    assert result.verdict["500"][1] == "better"


def test_same_data_gives_the_same_answer() -> None:
    rng = np.random.default_rng(18)
    (a, _), (b, _) = _run(rng), _run(rng)
    assert compare_quantiles([a, b]) == compare_quantiles([a, b])
    small = CompareSettings(n_resamples=200)
    assert compare_quantiles([a, b], settings=small) == compare_quantiles([a, b], settings=small)


@pytest.mark.parametrize("n_tests", [3, 4])
def test_several_tests_are_each_compared_with_the_first(n_tests: int) -> None:
    rng = np.random.default_rng(19)
    runs = [_run(rng)[0] for _ in range(n_tests - 1)] + [_run(rng, tail_scale=1.5)[0]]
    result = compare_quantiles(runs, (50.0, 99.0))
    assert len(result.verdict) == n_tests
    assert result.verdict[-1][1] == "worse"


def test_the_method_text_says_the_settings_it_runs_with() -> None:
    """The paragraph the compare page shows is made from the settings, so it cannot describe an older method."""
    assert "(99.25%)" in method_text() and "clipped at ±0.5" in method_text()
    text = method_text(CompareSettings(flip_confidence=0.95, rel_floor=0.02, min_tail=20))
    assert "(95.00%)" in text and "beyond 2% of the baseline" in text and "fewer than 20 responses" in text


# Real runs: yandex-tank's BFG against a local target (analytics/tests/fixtures/real_runs/README.md), resampled by
# blocks of seconds (analytics/tests/real_runs.py). bench/compare/power.py measures the same with more trials.
def _real_pairs(
    seconds: int, trials: int, seed: int, *, pauses: bool = True, names: tuple[str, ...] = ("const_a", "const_b")
) -> Iterator[tuple[SparseCounts, tuple[np.ndarray, np.ndarray]]]:
    from analytics.tests import real_runs

    rng = np.random.default_rng(seed)
    runs = [real_runs.load(name) for name in names]
    if not pauses:
        runs = [real_runs.without_pauses(run) for run in runs]
    for _ in range(trials):
        a, b = real_runs.pair(runs, rng, seconds)
        yield real_runs.counts(a), b


def test_real_runs_of_one_build_are_same_at_every_level() -> None:
    """A/A on real runs (warm-up, pauses, 250 rps, 45 s): `same` at every level in >= 95% of trials."""
    from analytics.tests import real_runs

    flagged = sum(
        any(v in ("worse", "better") for v in compare_quantiles([a, real_runs.counts(b)]).verdict[1])
        for a, b in _real_pairs(45, 60, seed=7)
    )
    assert flagged <= 3


def test_real_median_times_one_and_a_half_is_worse() -> None:
    """Every response 1.5x slower on a 30 s real run: p50 `worse` in (nearly) every trial."""
    from analytics.tests import real_runs

    worse = 0
    for a, b in _real_pairs(30, 40, seed=8):
        slower = real_runs.counts((b[0], real_runs.slower_median(b[1], 1.5)))
        verdict = compare_quantiles([a, slower]).verdict[1]
        worse += verdict[0] == "worse"
    assert worse >= 38


def test_real_slower_build_is_worse_at_the_median() -> None:
    """The issue's obvious regression, on real runs: a build with 1.5x the service time, every second's median above
    the baseline's, is `worse` at p50 whole and in trials of 30 s."""
    from analytics.tests import real_runs

    base = real_runs.load("const_a")
    slow = real_runs.load("const_slow")
    whole = compare_quantiles(
        [real_runs.counts((base.second, base.time_ms)), real_runs.counts((slow.second, slow.time_ms))]
    )
    assert whole.verdict[1][0] == "worse"
    assert whole.diff_pct[1][0] is not None and whole.diff_pct[1][0] > 20
    rng = np.random.default_rng(5)
    worse = 0
    for _ in range(20):
        a = real_runs.trial([base, real_runs.load("const_b")], rng, 30)
        b = real_runs.trial([slow], rng, 30)
        worse += compare_quantiles([real_runs.counts(a), real_runs.counts(b)]).verdict[1][0] == "worse"
    assert worse == 20


def _worse_or_withheld(result: QuantileComparison, level: float) -> tuple[bool, bool]:
    """(is `worse` at the level, is not judged only because the whole test moved the other way)."""
    j = result.levels.index(level)
    withheld = result.verdict[1][j] is None and result.notes[1].get(level, "").startswith(OPPOSITE_SIGNS)
    return result.verdict[1][j] == "worse", withheld


@pytest.mark.parametrize(("seconds", "found", "worse_at_least"), [(30, 28, 17), (45, 30, 18), (60, 33, 10)])
def test_real_p99_twice_is_never_better_and_mostly_worse(seconds: int, found: int, worse_at_least: int) -> None:
    """Each second's slowest 10% twice as slow on real runs whose p99 is set by random 120 ms pauses: found (beyond
    noise stretch by stretch) at p99 in most trials of 30-60 s, never `better`. Short of the 95% goal because of the
    pauses (docs/compare.md; the test below takes them out). In some of those trials the whole trial's p99 fell all
    the same (its first seconds, a warm-up, and how many pauses it caught set it): there the level is not judged,
    with the reason, never coloured `worse` beside a lower figure."""
    from analytics.tests import real_runs

    worse = withheld = 0
    for a, b in _real_pairs(seconds, 40, seed=9):
        result = compare_quantiles([a, real_runs.counts(real_runs.slower_tail(b, 2.0))])
        assert result.verdict[1][DEFAULT_LEVELS.index(99.0)] != "better"
        is_worse, is_withheld = _worse_or_withheld(result, 99.0)
        worse, withheld = worse + is_worse, withheld + is_withheld
    assert worse + withheld >= found
    assert worse >= worse_at_least


def test_real_p99_twice_is_worse_once_the_pauses_are_taken_out() -> None:
    """The same real runs with every steady second a 120 ms pause hit replaced by the nearest one none hit: p99 x2
    found in >= 95% of 30 s trials, and A/A of 45 s still `same`. The method has the tail's power; on the real
    runs the pauses take it (docs/compare.md). `worse` where the whole trial's p99 rose too: a 30 s trial's p99 is
    often its warm-up's, which the verdict leaves out and the whole-test figure does not."""
    from analytics.tests import real_runs

    worse = withheld = 0
    for a, b in _real_pairs(30, 40, seed=9, pauses=False):
        result = compare_quantiles([a, real_runs.counts(real_runs.slower_tail(b, 2.0))])
        is_worse, is_withheld = _worse_or_withheld(result, 99.0)
        worse, withheld = worse + is_worse, withheld + is_withheld
    assert worse + withheld >= 38
    assert worse >= 16
    flagged = sum(
        any(v in ("worse", "better") for v in compare_quantiles([a, real_runs.counts(b)]).verdict[1])
        for a, b in _real_pairs(45, 40, seed=7, pauses=False)
    )
    assert flagged <= 2


STEADY = ("steady_a", "steady_b")  # a service whose tail is its own: warm-up and spikes, no injected pauses


@pytest.mark.parametrize("seconds", [30, 45, 60])
def test_real_runs_without_stalls_meet_the_goal(seconds: int) -> None:
    """Real runs of a service with no stop-the-world pauses (warm-up, spikes of its own, 250 rps, 90 s each): A/A
    `same` at every level, and p50 x1.5 and p99 x2 `worse`, each in >= 95% of 40 trials (docs/compare.md)."""
    from analytics.tests import real_runs

    p50, p99 = DEFAULT_LEVELS.index(50.0), DEFAULT_LEVELS.index(99.0)
    flagged = median_found = tail_found = 0
    for a, b in _real_pairs(seconds, 40, seed=seconds, names=STEADY):
        flagged += any(v in ("worse", "better") for v in compare_quantiles([a, real_runs.counts(b)]).verdict[1])
        slower = real_runs.counts((b[0], real_runs.slower_median(b[1], 1.5)))
        median_found += compare_quantiles([a, slower]).verdict[1][p50] == "worse"
        tail = compare_quantiles([a, real_runs.counts(real_runs.slower_tail(b, 2.0))]).verdict[1]
        assert tail[p99] != "better"
        tail_found += tail[p99] == "worse"
    assert flagged <= 2
    assert median_found >= 38
    assert tail_found >= 38


def test_real_slower_build_without_stalls_is_worse_at_the_median() -> None:
    """The 1.5x slower build of the service without pauses, whole runs: `worse` at p50, and at p99."""
    from analytics.tests import real_runs

    base, slow = real_runs.load("steady_a"), real_runs.load("steady_slow")
    result = compare_quantiles(
        [real_runs.counts((base.second, base.time_ms)), real_runs.counts((slow.second, slow.time_ms))]
    )
    assert result.verdict[1][DEFAULT_LEVELS.index(50.0)] == "worse"
    assert result.verdict[1][DEFAULT_LEVELS.index(99.0)] == "worse"


def test_adding_tests_changes_no_pairs_verdict() -> None:
    """A pair is judged on its own: its figures are the same in a compare of two tests as among four."""
    rng = np.random.default_rng(21)
    a, b, c = (_run(rng)[0] for _ in range(3))
    d = _run(rng, tail_scale=1.5)[0]
    two = compare_quantiles([a, d]).as_json()
    four = compare_quantiles([a, b, c, d]).as_json()
    for name in LEVEL_TABLES:
        assert {level: values[1] for level, values in two[name].items()} == {
            level: values[3] for level, values in four[name].items()
        }, name
    assert "worse" in [values[1] for values in two["verdict"].values()]
    x, y, z = _codes(rng, 0.01), _codes(rng, 0.02), _codes(rng, 0.03)
    pair, among = compare_codes([x, z], "http"), compare_codes([x, y, z], "http")
    for table in ("interval", "verdict", "share_diff"):
        assert {k: v[1] for k, v in getattr(pair, table).items()} == {k: v[2] for k, v in getattr(among, table).items()}


def test_every_answer_agrees_with_itself_on_the_real_runs() -> None:
    """The real runs (fixtures/real_runs), A/A pairs and real effects: every interval contains its estimate, no
    level is coloured `worse`/`better` where the whole-test difference shown beside it has the other sign, a level
    not judged says why, and the one-line summary names each level under its verdict."""
    from analytics.compare_summary import summary_lines
    from analytics.tests import real_runs
    from analytics.tests.compare_support import check_levels, check_summary

    coloured = 0
    for names in (("const_a", "const_b"), ("pause_a", "pause_b"), STEADY):
        for seconds in (30, 60):
            for a, b in _real_pairs(seconds, 6, seed=seconds, names=names):
                for other in (b, real_runs.slower_tail(b, 2.0), (b[0], real_runs.slower_median(b[1], 1.5))):
                    result = compare_quantiles([a, real_runs.counts(other)])
                    part = result.as_json()
                    check_levels(part)
                    empty = compare_codes([SparseCounts.empty(), SparseCounts.empty()], "http")
                    check_summary(summary_lines(["#1", "#2"], result, empty, empty), part)
                    coloured += sum(v in ("worse", "better") for v in result.verdict[1])
    assert coloured > 50  # the checks above saw verdicts, not only `same`
