"""Generate a realistic phout file (pandora/phantom style) of any size, deterministically from a seed.

    .venv/bin/python bench/gen_phout.py --lines 10000000 --cases 8 --duration 600 --seed 1 --output var/bench/10m.phout
    .venv/bin/python bench/gen_phout.py --lines 1000000 --gzip --output var/bench/1m.phout.gz

What makes it realistic (and what a parser or a store must cope with):
- load: a linear ramp over the first third of the test, then constant, so RPS per second varies;
- cases: `--cases` tags with Zipf-like weights and their own log-normal response times (a few ms to a few hundred),
  tags carry a `#<n>` suffix now and then (the tank cuts it), and a few requests have an empty tag;
- response time split into connect / send / latency / receive as phantom writes them, with sizes in and out;
- errors: some 404/500/503, timeouts (net code 110, HTTP 0, pandora's ±9223372036854775 sentinels in
  connect/latency/receive), connection resets (104), and pandora's all-zero `discarded` rows (net code 777);
- order: lines are written when the request completes, so the file is sorted by response time, not send time.
Generated in blocks of --block-lines rows with numpy and written by pyarrow, so 10M lines take seconds and memory
stays bounded.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

SENTINEL = 9223372036854775
TIMEOUT_US = 10_000_000


def _weights(cases: int) -> np.ndarray:
    w = 1.0 / np.arange(1, cases + 1) ** 0.8
    return w / w.sum()


def _send_times(
    rng: np.random.Generator, lines_total: int, first: int, count: int, start: float, duration: float
) -> np.ndarray:
    """Send times of lines first..first+count of a ramp (first third) then constant load, as unix seconds."""
    # Cumulative requests of the profile, inverted: line k of N is sent at the time the profile reaches k.
    ramp = duration / 3
    ramp_share = (ramp / 2) / (ramp / 2 + (duration - ramp))  # area of the ramp over the total area
    u = (np.arange(first, first + count) + rng.random(count)) / lines_total
    t = np.where(
        u < ramp_share,
        ramp * np.sqrt(u / ramp_share),
        ramp + (u - ramp_share) / (1 - ramp_share) * (duration - ramp),
    )
    return start + t


def generate_block(
    rng: np.random.Generator, lines_total: int, first: int, count: int, cases: int, start: float, duration: float
) -> pa.Table:
    send = _send_times(rng, lines_total, first, count, start, duration)
    case = rng.choice(cases, size=count, p=_weights(cases))
    median_ms = 3.0 * (1.7 ** (np.arange(cases) % 9))  # 3 ms … ~200 ms per case
    rt = np.exp(rng.normal(np.log(median_ms[case] * 1000), 0.45))  # log-normal, µs
    rt = np.maximum(rt, 50).astype(np.int64)
    connect = np.where(rng.random(count) < 0.05, rng.integers(100, 900, count), rng.integers(0, 40, count))
    send_t = rng.integers(5, 60, count)
    receive_t = rng.integers(10, 400, count)
    rt = np.maximum(rt, connect + send_t + receive_t + 10)
    latency = rt - connect - send_t - receive_t
    interval_event = rt - rng.integers(0, 30, count)
    size_out = 180 + 7 * (case % 5) + rng.integers(0, 40, count)
    size_in = (400 + 350 * (case % 7) + rng.integers(0, 2000, count)).astype(np.int64)
    net = np.zeros(count, dtype=np.int64)
    http = np.full(count, 200, dtype=np.int64)
    r = rng.random(count)
    http[r < 0.02] = 404
    http[(r >= 0.02) & (r < 0.025)] = 500
    http[(r >= 0.025) & (r < 0.027)] = 503
    timeout = (r >= 0.027) & (r < 0.029)
    reset = (r >= 0.029) & (r < 0.0295)
    discarded = (r >= 0.0295) & (r < 0.031)
    rt[timeout] = TIMEOUT_US
    interval_event[timeout] = TIMEOUT_US
    net[timeout], http[timeout] = 110, 0
    sign = np.where(rng.random(count) < 0.5, 1, -1)
    for column in (connect, latency, receive_t):
        column[timeout] = SENTINEL * sign[timeout]
    send_t[timeout] = 0
    size_in[timeout] = 0
    net[reset], http[reset], size_in[reset] = 104, 0, 0
    for column in (rt, connect, send_t, latency, receive_t, interval_event, size_out, size_in):
        column[discarded] = 0
    net[discarded], http[discarded] = 777, 0

    names = np.array([f"/api/v1/case{i}" for i in range(cases)], dtype=object)
    tags = names[case]
    suffixed = rng.random(count) < 0.1
    tags[suffixed] = [f"{t}#{n}" for t, n in zip(tags[suffixed], rng.integers(0, 50, int(suffixed.sum())), strict=True)]
    tags[rng.random(count) < 0.002] = ""
    tags[discarded] = "discarded"

    # Written on completion: order by response time (within the block; blocks overlap a little, as in pandora).
    order = np.argsort(send + rt / 1e6, kind="stable")
    send_ms = np.round(send[order] * 1000).astype(np.int64)
    secs = pa.array(send_ms // 1000).cast(pa.string())
    millis = pc.utf8_lpad(pa.array(send_ms % 1000).cast(pa.string()), 3, "0")
    columns = {
        "send_ts": pc.binary_join_element_wise(secs, millis, "."),
        "tag": pa.array(tags[order], type=pa.string()),
    }
    for name, values in (
        ("interval_real", rt),
        ("connect_time", connect),
        ("send_time", send_t),
        ("latency", latency),
        ("receive_time", receive_t),
        ("interval_event", interval_event),
        ("size_out", size_out),
        ("size_in", size_in),
        ("net_code", net),
        ("proto_code", http),
    ):
        columns[name] = pa.array(np.asarray(values, dtype=np.int64)[order])
    return pa.table(columns)


@contextlib.contextmanager
def output(path: Path, compress: bool) -> Iterator[BinaryIO]:
    """The generated file, opened for writing (its folder made); gzip level 1 when `compress`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as raw:
        if not compress:
            yield raw
            return
        with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=1) as zipped:
            yield cast(BinaryIO, zipped)


def write(args: argparse.Namespace) -> None:
    rng = np.random.default_rng(args.seed)
    out_path = Path(args.output)
    options = pacsv.WriteOptions(include_header=False, delimiter="\t", quoting_style="none")
    started = time.perf_counter()
    with output(out_path, args.gzip) as stream:
        for first in range(0, args.lines, args.block_lines):
            count = min(args.block_lines, args.lines - first)
            table = generate_block(rng, args.lines, first, count, args.cases, args.start, args.duration)
            sink = pa.BufferOutputStream()
            pacsv.write_csv(table, sink, options)
            stream.write(sink.getvalue().to_pybytes())
    size = out_path.stat().st_size
    print(
        f"{args.lines} lines, {size / 1e6:.1f} MB → {out_path} in {time.perf_counter() - started:.1f} s",
        file=sys.stderr,
    )


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description="Generate a realistic phout file.")
    p.add_argument("--lines", type=int, default=1_000_000, help="number of requests (lines)")
    p.add_argument("--cases", type=int, default=8, help="number of distinct tags")
    p.add_argument("--duration", type=float, default=600.0, help="test duration, s")
    p.add_argument("--start", type=float, default=1_700_000_000.0, help="unix time of the first request")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--gzip", action="store_true", help="gzip the output (level 1, as fast as a tank writes)")
    p.add_argument("--block-lines", type=int, default=500_000, help="lines generated per block (memory bound)")
    p.add_argument("--output", "-o", required=True, help="output path")
    return p


if __name__ == "__main__":
    write(build_parser().parse_args())
