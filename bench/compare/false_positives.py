"""Measure the comparison's false-positive rate: pairs of runs drawn from the same system, judged at 9 levels.

A run: `--seconds` s at `--rps` responses per second, a lognormal body around 100 ms, a 3% tail of 0.5-1.5 s,
and a per-second slowdown drifting as AR(1) with coefficient `--ar` (neighbouring seconds correlated). Prints
the share of pairs where some level is not `same`, and how often each level was flagged.

    .venv/bin/python bench/compare/false_positives.py --ar 0.7 --trials 300
    .venv/bin/python bench/compare/false_positives.py --ar 0.9 --trials 200 --seed 3
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from analytics.compare import DEFAULT_LEVELS, SparseCounts, compare_quantiles, hist_from_values_ms


def run(rng: np.random.Generator, seconds: int, rps: int, ar: float) -> SparseCounts:
    level = np.zeros(seconds)
    shocks = rng.normal(0.0, 0.08, seconds)
    for i in range(1, seconds):
        level[i] = ar * level[i - 1] + shocks[i]
    secs = np.repeat(np.arange(seconds), rps)
    values = rng.lognormal(np.log(100.0), 0.3, secs.size) * np.exp(level[secs])
    tail = rng.random(secs.size) < 0.03
    values[tail] = rng.uniform(500.0, 1500.0, int(tail.sum()))
    return hist_from_values_ms(secs, values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ar", type=float, default=0.7)
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--seconds", type=int, default=300)
    parser.add_argument("--rps", type=int, default=20)
    parser.add_argument("--seed", type=int, default=2)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    flagged = np.zeros(len(DEFAULT_LEVELS))
    any_flagged = 0
    started = time.perf_counter()
    for _ in range(args.trials):
        verdicts = compare_quantiles([run(rng, args.seconds, args.rps, args.ar) for _ in range(2)]).verdict[1]
        hits = np.array([v in ("better", "worse") for v in verdicts])  # not judged (null) is no verdict
        flagged += hits
        any_flagged += bool(hits.any())
    print(f"AR {args.ar}, {args.trials} trials of {args.seconds} s x {args.rps} rps: ")
    print(f"  false-positive rate (some level 'worse' or 'better'): {any_flagged / args.trials:.3f}")
    print(
        "  flagged per level: " + ", ".join(f"p{lv:g}={int(n)}" for lv, n in zip(DEFAULT_LEVELS, flagged, strict=True))
    )
    print(f"  {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
