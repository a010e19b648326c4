"""Benchmark: parsing a phout file with the C path (analytics/_phout_fast.c) and with pyarrow's, side by side.

    .venv/bin/python bench/gen_phout.py --lines 10000000 --output var/bench/phout_upload/10000000.phout
    .venv/bin/python bench/phout_parse.py var/bench/phout_upload/10000000.phout --rounds 3

Each round parses the whole file once per path, each in a fresh process (`analytics.phout.PhoutParser.read_from`,
the file read included, as ingestion reads it), the two paths alternating so that the machine's state moves both
alike. Reported per path: CPU seconds (user + system, from wait4), wall seconds, lines/s and peak RSS. Both paths
must give the same rows (count and a checksum of every column), or the run fails.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PATHS = ("c", "pyarrow")


def parse_once(path: Path, which: str) -> dict[str, object]:
    """In this process: parse `path` with one path, return the rows and a checksum of every column."""
    sys.path.insert(0, str(ROOT))
    import numpy as np

    from analytics import kernels
    from analytics.phout import PhoutParser
    from analytics.schema.samples import FIELDS

    if which == "pyarrow":
        kernels.fast = None  # what a build without the C kernels does: path 2 for every block
    elif kernels.fast is None:
        raise SystemExit("the C kernels are not built (pip install -e . with gcc)")
    parser = PhoutParser()
    rows, checksum = 0, 0
    with path.open("rb", buffering=0) as f:
        for batch in parser.read_from(f):
            rows += batch.rows
            for name in FIELDS:
                checksum = (checksum * 31 + int(np.sum(getattr(batch, name), dtype=np.int64))) % (1 << 61)
    return {"rows": rows, "bad": parser.stats.lines_bad, "cases": parser.cases, "checksum": checksum}


def run_child(path: Path, which: str) -> dict[str, object]:
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, __file__, str(path), "--child", which], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    assert proc.stdout is not None
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    if status != 0:
        raise SystemExit(f"the {which} path failed (status {status})")
    result: dict[str, object] = json.loads(out)
    result.update(
        wall_s=round(wall, 2), cpu_s=round(usage.ru_utime + usage.ru_stime, 2), peak_rss_mb=usage.ru_maxrss // 1024
    )
    return result


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--child", choices=PATHS, help=argparse.SUPPRESS)
    args = p.parse_args()
    path = Path(args.file)
    if args.child:
        print(json.dumps(parse_once(path, args.child)))
        return
    runs: dict[str, list[dict[str, object]]] = {which: [] for which in PATHS}
    for _ in range(args.rounds):
        for which in PATHS:
            runs[which].append(run_child(path, which))
    first = runs["c"][0]
    for which, results in runs.items():
        for r in results:
            if (r["rows"], r["bad"], r["cases"], r["checksum"]) != (
                first["rows"],
                first["bad"],
                first["cases"],
                first["checksum"],
            ):
                raise SystemExit(f"the {which} path parsed something else: {r} vs {first}")
    rows = int(str(first["rows"]))
    summary = {
        which: {
            "cpu_s": [r["cpu_s"] for r in results],
            "wall_s": [r["wall_s"] for r in results],
            "lines_per_s": [round(rows / float(str(r["wall_s"]))) for r in results],
            "peak_rss_mb": [r["peak_rss_mb"] for r in results],
        }
        for which, results in runs.items()
    }
    best = {which: min(float(str(c)) for c in s["cpu_s"]) for which, s in summary.items()}
    print(
        json.dumps(
            {"file": str(path), "lines": rows, **summary, "cpu_ratio_best": round(best["pyarrow"] / best["c"], 2)},
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
