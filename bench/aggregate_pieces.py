"""Benchmark: the per-second aggregation of an upload's pieces, the C kernel against the numpy path, side by side.

    .venv/bin/python bench/aggregate_pieces.py var/bench/phout_upload/10000000.phout --lines 4000000

The file's first `--lines` lines (about) are parsed and cut into whole seconds by analytics.second_window, as
ingestion does; then analytics.aggregate.aggregate_table runs over every piece, `--repeat` times for each path,
the paths alternating pass by pass, each keeping its best pass. Reported: CPU seconds per 10M lines for each path
and their ratio. Both paths must give the same table for every piece (every float bit for bit), or the run fails.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from analytics import kernels  # noqa: E402
from analytics.aggregate import SecondTable, aggregate_table  # noqa: E402
from analytics.phout import PhoutParser  # noqa: E402
from analytics.schema.samples import SampleColumns  # noqa: E402
from analytics.second_window import SecondWindow  # noqa: E402


def pieces_of(path: Path, lines: int) -> tuple[list[SampleColumns], tuple[str, ...]]:
    parser, window, pieces = PhoutParser(), SecondWindow(), []
    with path.open("rb") as f:
        for batch in parser.read_from(f):
            released = window.add(batch)
            if released.in_order is not None:
                pieces.append(released.in_order)
            if sum(p.rows for p in pieces) >= lines:
                break
    return pieces, tuple(parser.cases)


def one_pass(pieces: list[SampleColumns], cases: tuple[str, ...]) -> tuple[float, list[SecondTable]]:
    started = time.process_time()
    tables = [aggregate_table(piece, cases) for piece in pieces]
    return time.process_time() - started, tables


def same(a: SecondTable, b: SecondTable) -> bool:
    arrays = ["ts", "resps", "expect_ms", "input_bytes", "output_bytes", "quantiles_ms"]
    sparse = [(getattr(a, n), getattr(b, n)) for n in ("nets", "https", "hist")]
    return (
        a.case == b.case
        and all(np.array_equal(getattr(a, n), getattr(b, n)) for n in arrays)
        and all(np.array_equal(x, y) for x, y in zip(a.phases_ms, b.phases_ms, strict=True))
        and all(np.array_equal(getattr(x, f), getattr(y, f)) for x, y in sparse for f in ("group", "code", "count"))
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", type=Path)
    p.add_argument("--lines", type=int, default=4_000_000)
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    fast = kernels.fast
    if fast is None:
        raise SystemExit("the C kernels are not built (pip install -e . with gcc)")
    pieces, cases = pieces_of(args.file, args.lines)
    rows = sum(piece.rows for piece in pieces)
    best = {"kernel": float("inf"), "numpy": float("inf")}
    for _ in range(args.repeat):
        kernels.fast = fast
        spent_kernel, by_kernel = one_pass(pieces, cases)
        kernels.fast = None  # type: ignore[assignment]  # what a build without the C kernels has
        spent_numpy, by_numpy = one_pass(pieces, cases)
        kernels.fast = fast
        if not all(same(a, b) for a, b in zip(by_kernel, by_numpy, strict=True)):
            raise SystemExit("the two paths gave different tables")
        best["kernel"] = min(best["kernel"], spent_kernel)
        best["numpy"] = min(best["numpy"], spent_numpy)
    per_10m = {name: round(seconds / rows * 10_000_000, 3) for name, seconds in best.items()}
    report = {
        "rows": rows,
        "pieces": len(pieces),
        "cases": len(cases),
        "cpu_s_per_10m_lines": per_10m,
        "numpy_over_kernel": round(per_10m["numpy"] / per_10m["kernel"], 2),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
