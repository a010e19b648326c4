"""Power and false-positive rate of the comparison on trial data built from real runs.

Trials are drawn by blocks of seconds from real phout files (analytics/tests/fixtures/real_runs, see its README):
A/A pairs from the two runs of the same build (warm-up and correlated seconds included), and pairs whose second
test is changed: every response times `m` (median × m), or the slowest 10 % of every second times `t` (each
second's p99 × t), or a real run of
a 1.5× slower build of the same target. For each effect and test length it prints how often the comparison says
`worse` at the level a person looks at (p50 for a median change, p99 for a tail change), and for A/A how often
any judged level is not `same`.

`--runs` names the real runs trials are drawn from (two or more runs of one build; default the 50 s pause-dominated
pair); `--slow` the run of the slower build the `slow` effect uses. The materials (fixtures/real_runs/README.md):
`const_a,const_b` / `const_slow` (50 s, random 120 ms pauses), `pause_a,pause_b` / `pause_slow` (the same target,
90 s, a quiet machine), `steady_a,steady_b` / `steady_slow` (90 s, no pauses: the tail is the service's own).
`--without-pauses` replaces every steady second a pause hit by the nearest second none hit (a diagnostic of what the
pauses cost, not real material).

    .venv/bin/python bench/compare/power.py --trials 200
    .venv/bin/python bench/compare/power.py --trials 200 --runs steady_a,steady_b --slow steady_slow
    .venv/bin/python bench/compare/power.py --trials 200 --runs pause_a,pause_b --slow pause_slow
    .venv/bin/python bench/compare/power.py --trials 100 --lengths 30,45,60 --effects m1.1,m1.2,m1.5,t1.5,t2
    .venv/bin/python bench/compare/power.py --trials 200 --without-pauses --lengths 30,45 --effects aa,t1.5,t2
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from analytics.compare import DEFAULT_LEVELS, OPPOSITE_SIGNS, compare_quantiles
from analytics.tests import real_runs


def rates(
    effect: str, seconds: int, trials: int, seed: int, runs: list[str], slow_run: str, pauses: bool = True
) -> tuple[float, float]:
    """(share of trials `worse` at the level, share `worse` or withheld there: its stretches beyond noise but the
    whole test moved the other way, which the page shows as not judged); for A/A both are the share with some level
    `worse` or `better`."""
    rng = np.random.default_rng(seed)
    base = [real_runs.load(name) if pauses else real_runs.without_pauses(real_runs.load(name)) for name in runs]
    slow = [real_runs.load(slow_run)]
    hits = withheld = 0
    for _ in range(trials):
        a, b = real_runs.pair(base, rng, seconds)
        if effect == "aa":
            verdict = compare_quantiles([real_runs.counts(a), real_runs.counts(b)]).verdict[1]
            hits += any(v not in ("same", None) for v in verdict)
            continue
        if effect == "slow":
            b = real_runs.trial(slow, rng, seconds)
            level = 50.0
        elif effect.startswith("m"):
            b = (b[0], real_runs.slower_median(b[1], float(effect[1:])))
            level = 50.0
        else:
            b = real_runs.slower_tail(b, float(effect[1:]))
            level = 99.0
        result = compare_quantiles([real_runs.counts(a), real_runs.counts(b)])
        hits += result.verdict[1][DEFAULT_LEVELS.index(level)] == "worse"
        withheld += result.notes[1].get(level, "").startswith(OPPOSITE_SIGNS)
    return hits / trials, (hits + withheld) / trials


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--lengths", default="30,45,60")
    parser.add_argument("--effects", default="aa,m1.1,m1.2,m1.5,t1.3,t1.5,t2,slow")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--runs", default="const_a,const_b", help="real runs of one build to draw trials from")
    parser.add_argument("--slow", default="const_slow", help="the real run of a slower build (effect `slow`)")
    parser.add_argument(
        "--without-pauses", action="store_true", help="replace the seconds pauses hit (a diagnostic, not real runs)"
    )
    args = parser.parse_args()
    runs = args.runs.split(",")
    shortest = min(real_runs.load(name).seconds for name in runs)
    # real_runs.trial wraps around the steady part (run - 15 s) once a block's jittered position passes it.
    print(f"runs {args.runs} (shortest {shortest} s: trials longer than {shortest - 4} s reuse seconds)")
    lengths = [int(x) for x in args.lengths.split(",")]
    started = time.perf_counter()
    print("worse at the level (worse or withheld there: beyond noise stretch by stretch, the whole test the other way)")
    print("effect      " + "".join(f"{n:>15} s" for n in lengths))
    for effect in args.effects.split(","):
        row = [rates(effect, n, args.trials, args.seed, runs, args.slow, not args.without_pauses) for n in lengths]
        name = {"aa": "A/A (FP)", "slow": "slow build"}.get(effect, effect.replace("m", "p50 x").replace("t", "p99 x"))
        print(f"{name:<12}" + "".join(f"{r:>9.3f} ({w:.3f})" for r, w in row), flush=True)
    print(f"{args.trials} trials per cell, {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
