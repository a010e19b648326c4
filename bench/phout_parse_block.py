"""Benchmark: the C parser's `parse_block` alone, for builds of analytics/_phout_fast.c side by side.

    .venv/bin/python bench/phout_parse_block.py var/bench/phout_upload/10000000.phout \
        --build analytics/_phout_fast.cpython-311-x86_64-linux-gnu.so --build /tmp/before.so

The first `--mb` MB of the file (whole lines) are read into memory and cut into 16 MB blocks of complete lines, as
analytics.phout cuts them; each build parses all of them `--repeat` times and keeps its best pass, the builds
alternating round by round, each in a fresh process. Reported per build: CPU seconds of the best pass, MB/s and
ns per line. Every build must give the same rows and the same checksum of every column, or the run fails.
Without --build, the installed module (analytics.kernels.fast) is measured.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def measure(path: Path, build: str, mb: int, repeat: int) -> dict[str, float | int]:
    """In this process: the best pass of `parse_block` over the blocks, the rows and a checksum of the columns."""
    sys.path.insert(0, str(ROOT))
    import numpy as np

    from analytics.phout import _NATIVE_RANGES, DEFAULT_BLOCK_BYTES, NativeColumns
    from analytics.schema.samples import MAX_RECEIVE_SEC

    if build == "installed":
        from analytics import kernels

        if kernels.fast is None:
            raise SystemExit("the C kernels are not built (pip install -e . with gcc)")
        fast = kernels.fast
    else:
        spec = importlib.util.spec_from_file_location("analytics._phout_fast", build)
        if spec is None or spec.loader is None:
            raise SystemExit(f"cannot load {build}")
        fast = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(fast)
    with path.open("rb") as f:
        data = f.read(mb * 1024 * 1024)
    data = data[: data.rfind(b"\n") + 1]
    view = memoryview(data)
    blocks, start = [], 0
    while start < len(data):
        cut = data.rfind(b"\n", start, start + DEFAULT_BLOCK_BYTES)
        blocks.append(view[start : cut + 1])
        start = cut + 1
    columns = NativeColumns.for_block(DEFAULT_BLOCK_BYTES)
    outputs = columns.outputs()
    best, rows, checksum = float("inf"), 0, 0
    for first_pass in [True] + [False] * (repeat - 1):
        spent = 0.0
        for block in blocks:
            started = time.process_time()
            parsed = fast.parse_block(block, outputs, _NATIVE_RANGES, MAX_RECEIVE_SEC)
            spent += time.process_time() - started
            if parsed is None:
                raise SystemExit("a block left the C path: use a file of clean lines (bench/gen_phout.py)")
            if first_pass:  # every pass parses the same blocks: rows and checksum once
                n, _keys = parsed
                rows += n
                sums = sum(int(np.asarray(column[:n], dtype=np.int64).sum()) for column in outputs)
                checksum = (checksum + sums) % (1 << 61)
        best = min(best, spent)
    return {"rows": rows, "checksum": checksum, "bytes": len(data), "cpu_s": best}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file")
    p.add_argument("--build", action="append", help="a built _phout_fast .so (repeat to compare builds)")
    p.add_argument("--mb", type=int, default=320, help="MB of the file to parse")
    p.add_argument("--repeat", type=int, default=5, help="passes per build and round; the best is kept")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--child", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        print(json.dumps(measure(Path(args.file), args.child, args.mb, args.repeat)))
        return
    builds = args.build or ["installed"]
    results: dict[str, list[dict[str, float | int]]] = {build: [] for build in builds}
    for _ in range(args.rounds):
        for build in builds:
            cmd = [sys.executable, __file__, args.file, "--child", build, "--mb", str(args.mb)]
            out = subprocess.run([*cmd, "--repeat", str(args.repeat)], check=True, capture_output=True, text=True)
            results[build].append(json.loads(out.stdout))
    reference = results[builds[0]][0]
    for build, runs in results.items():
        for run in runs:
            if (run["rows"], run["checksum"]) != (reference["rows"], reference["checksum"]):
                raise SystemExit(f"{build} gave other rows than {builds[0]}")
        best = min(float(run["cpu_s"]) for run in runs)
        rows, size = int(reference["rows"]), int(reference["bytes"])
        speed = f"{size / best / 1e6:.0f} MB/s, {best / rows * 1e9:.1f} ns/line"
        print(f"{build}: {rows} lines, best {best:.3f} CPU-s, {speed}")


if __name__ == "__main__":
    main()
