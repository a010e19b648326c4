"""Benchmark: what issue 19's gzip bomb costs the worker that ingests it, this tree against another, side by side.

    .venv/bin/python bench/faults/upload_bomb.py --baseline-tree var/base --timeout 120

The bomb: 300 good phout lines, then 1 GiB of line ends, gzipped (~1 MB). Each tree's own reading path (storage's
`open_decoded`, the phout parser's `read_from` with the ingestion's early verdict, exactly what `ingest._load`
runs before ClickHouse) reads it in a child process of its own; reported: how it ended (the refusal's reason, or
still running at the timeout), wall and CPU seconds, and the child's peak RSS. No database is touched.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PY = ROOT / ".venv" / "bin" / "python"

CHILD = r"""
import io, json, os, sys, time
sys.path.insert(0, sys.argv[1])
# the project's own settings (the Celery app reads them at import), with the inflate limits of the issue's run
os.environ.update(DJANGO_SETTINGS_MODULE="backend.settings", TANKODROM_MAX_INFLATE_RATIO="100",
                  TANKODROM_MAX_INFLATED_BYTES=str(200 * 1024**3))
from analytics.phout import PhoutParser
from backend.uploads import storage
path = sys.argv[2]
started = time.perf_counter()
outcome = "ingested whole"
with open(path, "rb") as raw_file:
    raw = io.BufferedReader(raw_file)
    size = raw_file.seek(0, 2); raw_file.seek(0)
    limit = storage.max_inflated_bytes(size) if hasattr(storage, "max_inflated_bytes") else None
    decoded = storage.open_decoded(raw, limit) if limit is not None else storage.open_decoded(raw)
    parser = PhoutParser()
    rows = 0
    try:
        for batch in parser.read_from(decoded, early_verdict_lines=5000):
            rows += batch.rows
    except Exception as exc:
        outcome = f"refused: {exc}"
print(json.dumps({"outcome": outcome[:160], "rows": rows, "wall_s": round(time.perf_counter() - started, 2)}))
"""


def make_bomb(path: Path) -> None:
    if path.exists():
        return
    good = b"".join(b"17000%05d.100\tindex\t1000\t10\t20\t900\t70\t0\t100\t2000\t0\t200\n" % i for i in range(300))
    packer = zlib.compressobj(6, zlib.DEFLATED, 31)
    with path.open("wb") as out:
        out.write(packer.compress(good))
        newlines = b"\n" * (1 << 20)
        for _ in range(1024):
            out.write(packer.compress(newlines))
        out.write(packer.flush())


def run(tree: Path, bomb: Path, timeout_s: float) -> dict[str, object]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    child = subprocess.Popen([str(PY), "-c", CHILD, str(tree), str(bomb)], stdout=subprocess.PIPE, text=True)
    peak_kb = 0
    while child.poll() is None and time.perf_counter() - started < timeout_s:
        try:
            status = Path(f"/proc/{child.pid}/status").read_text()
            peak_kb = max(peak_kb, int(status.split("VmHWM:")[1].split()[0]))
        except (OSError, IndexError):
            pass
        time.sleep(0.1)
    if child.poll() is None:
        child.kill()
        child.wait()
        result: dict[str, object] = {"outcome": f"still running after {timeout_s:g} s (killed)"}
    else:
        result = json.loads((child.stdout.read() if child.stdout else "") or "{}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    result["wall_s"] = round(time.perf_counter() - started, 2)
    result["cpu_s"] = round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 2)
    result["peak_rss_mb"] = round(peak_kb / 1024)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline-tree", help="another checkout of the project to measure beside this one")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds each tree may take")
    parser.add_argument("--workdir", default=str(ROOT / "var" / "bench" / "faults"))
    args = parser.parse_args()
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    bomb = workdir / "bomb.phout.gz"
    make_bomb(bomb)
    print(f"bomb: {bomb.stat().st_size / 1e6:.2f} MB gzip of 300 phout lines and 1 GiB of line ends")
    trees = [("this tree", ROOT)] + ([("baseline", Path(args.baseline_tree).resolve())] if args.baseline_tree else [])
    for name, tree in trees:
        print(f"{name}: {json.dumps(run(tree, bomb, args.timeout))}", flush=True)


if __name__ == "__main__":
    main()
