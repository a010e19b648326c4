"""Trial data built from real runs: phout files yandex-tank's BFG wrote against small local targets
(fixtures/real_runs/README.md says how each was made), resampled by blocks of seconds.

A trial run keeps the shape of a real one: its first seconds come from the first seconds of a real run (warm-up
included), and every stretch of `block_s` seconds is a real stretch of seconds taken from the same position of a
real run (jittered by a few seconds past the warm-up), so neighbouring seconds stay as correlated as they were.
Two trials of one pair never share a real second: at each position one takes a run, the other another run.
"""

from __future__ import annotations

import gzip
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

from analytics.compare import SparseCounts, hist_from_values_ms

FIXTURES = Path(__file__).parent / "fixtures" / "real_runs"
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Run:
    """One real run: per response: start (s, float), response second (relative to the first start), time (ms)."""

    start_s: FloatArray
    second: IntArray
    time_ms: FloatArray
    net_code: IntArray
    proto_code: IntArray

    @property
    def seconds(self) -> int:
        return int(self.second.max()) + 1


@cache
def load(name: str) -> Run:
    """fixtures/real_runs/<name>.phout.gz, as the tank wrote it (unsorted lines, request start in column 1)."""
    with gzip.open(FIXTURES / f"{name}.phout.gz", "rt") as fh:
        table = np.loadtxt(fh, usecols=(0, 2, 10, 11), dtype=np.float64, ndmin=2)
    start = table[:, 0]
    time_ms = table[:, 1] / 1000.0
    first = float(np.floor(start.min()))
    second = np.floor(start + time_ms / 1000.0 - first).astype(np.int64)
    return Run(start - first, second, time_ms, table[:, 2].astype(np.int64), table[:, 3].astype(np.int64))


def without_pauses(run: Run, warmup_s: int = 10) -> Run:
    """The run with every steady second that a pause hit (a response slower than 3x the steady seconds' median p99)
    replaced by the nearest second no pause hit: not real material, a diagnostic of what the pauses cost."""
    per_second = [run.time_ms[run.second == s] for s in range(run.seconds)]
    p99 = np.array([np.percentile(v, 99) if v.size > 10 else np.nan for v in per_second])
    cut = 3.0 * float(np.nanmedian(p99[warmup_s:]))
    hit = [s >= warmup_s and bool((v > cut).any()) for s, v in enumerate(per_second)]
    clean = [s for s in range(warmup_s, run.seconds) if not hit[s] and per_second[s].size > 10]
    source = [min(clean, key=lambda c: abs(c - s)) if hit[s] else s for s in range(run.seconds)]
    second = np.concatenate([np.full(per_second[src].size, s, dtype=np.int64) for s, src in enumerate(source)])
    time_ms = np.concatenate([per_second[src] for src in source])
    zero = np.zeros(second.size, dtype=np.int64)
    return Run(second.astype(np.float64), second, time_ms, zero, zero + 200)


def trial(
    runs: list[Run],
    rng: np.random.Generator,
    seconds: int,
    *,
    block_s: int = 5,
    warmup_s: int = 10,
    jitter_s: int = 3,
    order: list[int] | None = None,
) -> tuple[IntArray, FloatArray]:
    """(response second, time ms) of a trial run of `seconds` s drawn from `runs` by blocks of seconds.

    `order[k]` names the run block k comes from (random when None). Blocks inside the warm-up are taken from
    their own position; later ones from a position jittered by up to `jitter_s`, within the steady part of the
    run, wrapping around when the trial is longer than the run.
    """
    secs: list[IntArray] = []
    vals: list[FloatArray] = []
    n_blocks = -(-seconds // block_s)
    for k in range(n_blocks):
        run = runs[order[k] if order is not None else int(rng.integers(len(runs)))]
        steady = run.seconds - warmup_s - block_s
        pos = k * block_s
        if pos >= warmup_s:
            offset = pos - warmup_s + int(rng.integers(-jitter_s, jitter_s + 1))
            pos = warmup_s + offset % max(steady, 1)
        length = min(block_s, seconds - k * block_s)
        pick = (run.second >= pos) & (run.second < pos + length)
        secs.append(run.second[pick] - pos + k * block_s)
        vals.append(run.time_ms[pick])
    return np.concatenate(secs), np.concatenate(vals)


def pair(
    runs: list[Run], rng: np.random.Generator, seconds: int, **kwargs: int
) -> tuple[tuple[IntArray, FloatArray], tuple[IntArray, FloatArray]]:
    """Two trials from the same real runs that never share a second (needs two runs or more)."""
    block_s = int(kwargs.get("block_s", 5))
    n_blocks = -(-seconds // block_s)
    first = [int(rng.integers(len(runs))) for _ in range(n_blocks)]
    second = [(o + 1 + int(rng.integers(len(runs) - 1))) % len(runs) for o in first]
    return (
        trial(runs, rng, seconds, order=first, **kwargs),
        trial(runs, rng, seconds, order=second, **kwargs),
    )


def slower_median(values_ms: FloatArray, factor: float) -> FloatArray:
    """Every response `factor` times slower: the median (and every quantile) times `factor`."""
    return values_ms * factor


def slower_tail(
    trial_data: tuple[IntArray, FloatArray], factor: float, from_level: float = 90.0
) -> tuple[IntArray, FloatArray]:
    """In every second, the responses above that second's `from_level` quantile `factor` times slower: each second's
    p99 (and the test's) times `factor`, the body kept. What a person sees on the p99 line in every second."""
    seconds, values = trial_data
    out = values.copy()
    order = np.argsort(seconds, kind="stable")
    _, starts = np.unique(seconds[order], return_index=True)
    for begin, end in zip(starts, [*starts[1:], order.size], strict=True):
        idx = order[begin:end]
        cut = float(np.percentile(values[idx], from_level))
        out[idx] = np.where(values[idx] > cut, values[idx] * factor, values[idx])
    return seconds, out


def counts(trial_data: tuple[IntArray, FloatArray], start: int = 1_700_000_000) -> SparseCounts:
    seconds, values = trial_data
    return hist_from_values_ms(seconds + start, values)
