"""Hits and false alarms of the `imbalance` finding on variants of real runs, from phout alone (no schedule given).

Real runs: analytics/tests/fixtures/real_runs (README there). Each trial takes one run and varies it as another run of
the same kind would differ: the first 0-4 s and the last 0-9 s cut off, 0-20 % of the requests dropped at random
(fewer requests, same service: a break found on the remaining ones is scaled back by the share kept), and every
second's response times multiplied by a real second-to-second factor (per-second median of one real baseline run
over the other's, at a random offset). A hit: a ramp to overload gets `imbalance` within ±10 % of the target's
capacity (191 RPS). A false alarm: any critical finding on a run that kept up (each material's two baselines and
slower build, the ramp the service kept up with).

    .venv/bin/python bench/diagnosis/imbalance.py --trials 200
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from analytics.diagnosis import diagnose
from analytics.tests import real_runs, real_series

TRUE_BREAK_RPS = 4 / (0.020 * float(np.exp(0.3**2 / 2)))
BREAKING = ("step_break", "line_break")
KEEPING_UP = (*(f"{kind}_{run}" for kind in ("const", "pause", "steady") for run in ("a", "b", "slow")), "ramp_keepup")


def _noise(rng: np.random.Generator, n: int) -> np.ndarray:
    a, b = real_runs.load("const_a"), real_runs.load("const_b")
    seconds = min(a.seconds, b.seconds)
    med_a = np.array([np.median(a.time_ms[a.second == s]) for s in range(seconds)])
    med_b = np.array([np.median(b.time_ms[b.second == s]) for s in range(seconds)])
    ratio = (med_b / med_a)[10:]  # past the warm-up: the seconds-to-seconds wobble of a steady run
    offset = int(rng.integers(ratio.size))
    return np.asarray(np.resize(np.roll(ratio, offset), n), dtype=np.float64)


def variant(name: str, rng: np.random.Generator) -> tuple[real_runs.Run, float]:
    run = real_runs.load(name)
    head, tail = int(rng.integers(0, 5)), int(rng.integers(0, 10))
    keep_share = float(rng.uniform(0.8, 1.0))
    keep = (run.start_s >= head) & (run.start_s < run.seconds - tail) & (rng.random(run.start_s.size) < keep_share)
    factor = _noise(rng, run.seconds)[run.second[keep]]
    varied = real_runs.Run(
        run.start_s[keep] - head,
        run.second[keep] - head,
        run.time_ms[keep] * factor,
        run.net_code[keep],
        run.proto_code[keep],
    )
    return varied, keep_share


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    for name in BREAKING + KEEPING_UP:
        hits = alarms = 0
        errors: list[float] = []
        for _ in range(args.trials):
            run, share = variant(name, rng)
            result = diagnose(real_series.series_input(run))
            critical = [f for f in result.findings if f.severity == "critical"]
            if name in BREAKING:
                if result.imbalance_rps is not None:
                    error = result.imbalance_rps / share / TRUE_BREAK_RPS - 1.0
                    errors.append(error)
                    hits += abs(error) <= 0.10
            else:
                alarms += bool(critical)
        if name in BREAKING:
            spread = f"error median {np.median(errors):+.1%}, worst {max(errors, key=abs):+.1%}" if errors else ""
            print(f"{name:<12} imbalance within ±10%: {hits / args.trials:.3f}  {spread}", flush=True)
        else:
            print(f"{name:<12} false alarms (a critical finding): {alarms / args.trials:.3f}", flush=True)
    print(f"{args.trials} trials per run, {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
