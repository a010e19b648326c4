"""Generate a realistic JMeter CSV JTL (the 17 default columns, with their header) of any size, from a seed.

    .venv/bin/python bench/gen_jtl.py --lines 2000000 --output var/bench/2m.jtl

The requests are bench/gen_phout.py's (same load shape, cases, response times, errors), written as JMeter's
CSVSaveService writes them (analytics/formats/jtl_csv.py, docs/formats.md): ms times, the label (a few with a
comma, hence quoted), the HTTP code or `Non HTTP response code: <exception>` for connection failures, the response
message, thread names, `success`, sizes, the thread counts, the URL, Latency and Connect. Pandora's `discarded`
rows have no JMeter equivalent and are left out, so a file has somewhat fewer lines than asked for.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_phout import SENTINEL, generate_block, output

HEADER = (
    "timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,"
    "sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect\n"
)
EXCEPTION_OF_NET_CODE = {110: "java.net.SocketTimeoutException", 104: "java.net.SocketException"}
MESSAGE_OF_CODE = {200: "OK", 404: "Not Found", 500: "Internal Server Error", 503: "Service Unavailable"}
THREADS = 64
# A label with a comma, which JMeter quotes: pyarrow writes no quotes, so a mark stands in for it, replaced after.
COMMA_LABEL_MARK = "POST-/api/v1/case1-add"
COMMA_LABEL = b'"POST /api/v1/case1, add"'


def jtl_block(table: pa.Table, rng: np.random.Generator) -> pa.Table:
    col = {name: table.column(name).to_numpy(zero_copy_only=False) for name in table.column_names}
    kept = col["net_code"] != 777
    col = {name: values[kept] for name, values in col.items()}
    n = int(kept.sum())
    path = np.array([t.rsplit("#", 1)[0] or "/" for t in col["tag"]], dtype=object)
    label = path.copy()
    label[label == "/api/v1/case1"] = COMMA_LABEL_MARK
    net, http = col["net_code"], col["proto_code"]
    code = np.array([str(c) for c in http], dtype=object)
    message = np.array([MESSAGE_OF_CODE.get(int(c), "Other") for c in http], dtype=object)
    failed_net = net != 0
    for i in np.flatnonzero(failed_net):
        code[i] = f"Non HTTP response code: {EXCEPTION_OF_NET_CODE.get(int(net[i]), 'java.io.IOException')}"
        message[i] = "Non HTTP response message: Read timed out"
    elapsed_ms = col["interval_real"] // 1000
    connect = np.where(np.abs(col["connect_time"]) == SENTINEL, 0, col["connect_time"]) // 1000
    latency = np.where(np.abs(col["latency"]) == SENTINEL, 0, col["latency"]) // 1000 + connect
    thread = rng.integers(1, THREADS + 1, n)
    return pa.table(
        {
            "timeStamp": pa.array(np.rint(col["send_ts"].astype(np.float64) * 1000).astype(np.int64)),
            "elapsed": pa.array(elapsed_ms),
            "label": pa.array(label, type=pa.string()),
            "responseCode": pa.array(code, type=pa.string()),
            "responseMessage": pa.array(message, type=pa.string()),
            "threadName": pa.array([f"Thread Group 1-{t}" for t in thread], type=pa.string()),
            "dataType": pa.array(["text"] * n, type=pa.string()),
            "success": pa.array(np.where(failed_net | (http >= 400), "false", "true"), type=pa.string()),
            "failureMessage": pa.array([""] * n, type=pa.string()),
            "bytes": pa.array(col["size_in"]),
            "sentBytes": pa.array(col["size_out"]),
            "grpThreads": pa.array(np.full(n, THREADS)),
            "allThreads": pa.array(np.full(n, THREADS)),
            "URL": pa.array([f"http://127.0.0.1:8080{p}" for p in path], type=pa.string()),
            "Latency": pa.array(np.minimum(latency, elapsed_ms)),
            "IdleTime": pa.array(np.zeros(n, dtype=np.int64)),
            "Connect": pa.array(np.minimum(connect, elapsed_ms)),
        }
    )


def write(args: argparse.Namespace) -> None:
    rng = np.random.default_rng(args.seed)
    out_path = Path(args.output)
    # Unquoted, as JMeter writes values (it quotes only those holding a delimiter, a quote or a line end: those
    # are quoted above already).
    options = pacsv.WriteOptions(include_header=False, quoting_style="none")
    started = time.perf_counter()
    rows = 0
    with output(out_path, args.gzip) as stream:
        stream.write(HEADER.encode())
        for first in range(0, args.lines, args.block_lines):
            count = min(args.block_lines, args.lines - first)
            table = jtl_block(generate_block(rng, args.lines, first, count, 8, args.start, args.duration), rng)
            rows += table.num_rows
            sink = pa.BufferOutputStream()
            pacsv.write_csv(table, sink, options)
            stream.write(sink.getvalue().to_pybytes().replace(COMMA_LABEL_MARK.encode(), COMMA_LABEL))
    print(f"{rows} samples → {out_path} in {time.perf_counter() - started:.1f} s", file=sys.stderr)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description="Generate a realistic JMeter CSV JTL.")
    p.add_argument("--lines", type=int, default=1_000_000, help="number of requests asked for")
    p.add_argument("--duration", type=float, default=600.0, help="test duration, s")
    p.add_argument("--start", type=float, default=1_700_000_000.0, help="unix time of the first request")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--gzip", action="store_true")
    p.add_argument("--block-lines", type=int, default=500_000)
    p.add_argument("--output", "-o", required=True)
    return p


if __name__ == "__main__":
    write(build_parser().parse_args())
