"""Benchmark of the tank stream: N simulated tanks, each pushing one second (6 cases + overall, realistic
histograms) and one monitoring chunk per second, against a real gunicorn (deploy/gunicorn.conf.py) and a real
Celery worker with the beat flushing the buffer into ClickHouse.

It reports, per load step: push latency percentiles (each attempt, as the tank would see it), 503 answers and
retries, and, counted in ClickHouse after the buffer drained, lost and duplicated seconds. The same load against a
minimal WSGI app (baseline_app.py) under the same gunicorn config runs side by side, to show what the HTTP server,
the load generator and the machine cost on their own. The ceiling is the largest step with p99 < --p99-ms and
nothing lost.

    .venv/bin/python bench/tank_push/run.py --tanks 20 --seconds 10            # small scale (shared machine)
    .venv/bin/python bench/tank_push/run.py --tanks 100,200,300,500 --seconds 30 # full scale, quiet machine

Uses its own PostgreSQL database, ClickHouse database and Redis db (options below); never the test ones.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
if __name__ == "__main__":  # imported (cpu.py), the importer has put the tree it measures first
    sys.path.insert(0, str(ROOT))

from analytics.histogram import BIN_EDGES_US, bin_indexes_for_values_us  # noqa: E402

PY = str(ROOT / ".venv" / "bin" / "python")
TS0 = 1_796_000_000  # a fixed second far from real tests; each run uses fresh job ids anyway
TEMPLATES = 32
CASES = ("index", "search", "cart", "login", "static", "api")


# ── realistic bodies ─────────────────────────────────────────────────────────────────────────────────────────


def _item(times_us: np.ndarray, case: str, overall: int, rng: np.random.Generator, reqps: int) -> dict[str, Any]:
    n = int(times_us.size)
    codes = rng.choice([200, 200, 200, 200, 200, 200, 200, 200, 404, 500], size=n)
    bins = bin_indexes_for_values_us(times_us)
    uniq, counts = np.unique(bins[bins >= 0], return_counts=True)
    q = np.percentile(times_us, [50, 75, 80, 85, 90, 95, 98, 99, 100]) / 1000
    http_codes, http_counts = np.unique(codes, return_counts=True)
    return {
        "overall": overall,
        "case": case,
        "net_codes": [{"code": 0, "count": n}],
        "http_codes": [{"code": int(c), "count": int(k)} for c, k in zip(http_codes, http_counts, strict=True)],
        "time_intervals": [
            {"from": 0, "to": float(BIN_EDGES_US[b]) / 1000, "count": int(k)} for b, k in zip(uniq, counts, strict=True)
        ],
        "trail": {
            "time": "__TS__",
            "reqps": reqps,
            "resps": n,
            "expect": float(times_us.mean() / 1000),
            "disper": 0,
            "self_load": 0,
            "input": n * 1520,
            "output": n * 240,
            "connect_time": 0.05,
            "send_time": 0.01,
            "latency": float(times_us.mean() / 1000) - 0.1,
            "receive_time": 0.04,
            "threads": 12,
            **{f"q{p}": float(v) for p, v in zip([50, 75, 80, 85, 90, 95, 98, 99, 100], q, strict=True)},
        },
    }


def data_templates(seed: int, rps: int) -> list[str]:
    """Push bodies with a `__TS__` placeholder: 6 cases with log-normal times (medians 5..150 ms) + overall."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(TEMPLATES):
        per_case = []
        for k, case in enumerate(CASES):
            n = max(1, int(rng.poisson(rps / len(CASES))))
            median_us = [5_000, 20_000, 40_000, 80_000, 1_500, 150_000][k]
            per_case.append((case, rng.lognormal(np.log(median_us), 0.6, size=n).astype(np.int64)))
        items = [_item(t, case, 0, rng, rps) for case, t in per_case]
        items.append(_item(np.concatenate([t for _c, t in per_case]), "", 1, rng, rps))
        out.append(json.dumps(items))
    return out


def monitoring_template(host: str) -> str:
    metrics = {f"custom:cpu-cpu{c}_usage_{k}": 12.5 for c in range(2) for k in ("user", "system", "idle", "iowait")}
    metrics.update({"Memory_used": 2.0e9, "Memory_free": 6.0e9, "Memory_buff": 1e8, "Memory_cached": 9e8})
    metrics.update({"System_la1": 0.5, "System_la5": 0.4, "System_la15": 0.3, "System_csw": 17000, "System_int": 8000})
    metrics.update({f"custom:net-eth0_{k}": 1e6 for k in ("bytes_recv", "bytes_sent", "packets_recv", "packets_sent")})
    metrics.update({"custom:diskio-sda_read_bytes": 114688, "custom:diskio-sda_write_bytes": 233472})
    return json.dumps([{"timestamp": "__TS__", "data": {host: {"comment": "", "metrics": metrics}}}]).replace(
        '"__TS__"', "__TS__"
    )


# ── a minimal keep-alive HTTP/1.1 client (one connection per tank thread, as the tank's requests.Session) ──


class Conn:
    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(self, path: str, body: bytes) -> int:
        for attempt in range(2):  # reconnect once if the server closed the idle connection
            try:
                if self.writer is None:
                    self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
                head = (
                    f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nUser-Agent: bench-tank\r\n"
                    f"Content-Length: {len(body)}\r\nContent-Type: application/json\r\nConnection: keep-alive\r\n\r\n"
                )
                self.writer.write(head.encode() + body)
                assert self.reader is not None
                status_line = await self.reader.readline()
                if not status_line:
                    raise ConnectionError("closed")
                status = int(status_line.split()[1])
                length = 0
                close = False
                while True:
                    line = await self.reader.readline()
                    if line in (b"\r\n", b"\n", b""):
                        break
                    name, _, value = line.decode("latin-1").partition(":")
                    if name.lower() == "content-length":
                        length = int(value)
                    elif name.lower() == "connection" and value.strip().lower() == "close":
                        close = True
                if length:
                    await self.reader.readexactly(length)
                if close:
                    self.close()
                return status
            except (ConnectionError, OSError, asyncio.IncompleteReadError):
                self.close()
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


@dataclass
class Stats:
    latencies_ms: list[float] = field(default_factory=list)
    started_at: list[float] = field(default_factory=list)  # time.perf_counter() of each measured attempt
    statuses: dict[int, int] = field(default_factory=dict)
    accepted_data: int = 0
    accepted_monitoring: int = 0
    failed: int = 0  # pushes given up after retries
    network_errors: int = 0
    late_starts: int = 0  # pushes that started more than 1 s after their second (the tank's queue would grow)


async def _push(conn: Conn, path: str, body: bytes, stats: Stats, retry_s: float, attempts: int) -> bool:
    for _ in range(attempts):
        started = time.perf_counter()
        try:
            status = await conn.request(path, body)
        except (ConnectionError, OSError, asyncio.IncompleteReadError):
            stats.network_errors += 1
            await asyncio.sleep(retry_s)
            continue
        stats.latencies_ms.append((time.perf_counter() - started) * 1000)
        stats.started_at.append(started)
        stats.statuses[status] = stats.statuses.get(status, 0) + 1
        if status == 200:
            return True
        if status in (500, 502, 503, 504):
            await asyncio.sleep(retry_s)
            continue
        return False
    return False


# The tank sends its api_token on every request; the server checks it too (from a per-process cache).
API_TOKEN = {"value": ""}


async def _tank(
    index: int, job: int, upload: str, port: int, seconds: int, start: float, data: list[str], stats: Stats
) -> None:
    data_conn, mon_conn = Conn(port), Conn(port)
    token = f"&api_token={API_TOKEN['value']}" if API_TOKEN["value"] else ""
    data_path = f"/api/job/{job}/push_data.json?upload_token={upload}{token}"
    mon_path = f"/api/monitoring/receiver/push?job_id={job}&upload_token={upload}{token}"
    mon = monitoring_template(f"sut-{index}")
    phase = random.random()  # tanks are not synchronised: spread their pushes over the second
    loop = asyncio.get_running_loop()

    async def one_second(s: int) -> None:
        ts = str(TS0 + s)
        body = data[(index + s) % len(data)].replace("__TS__", ts).encode()
        ok_data, ok_mon = await asyncio.gather(
            _push(data_conn, data_path, body, stats, 1.0, 10),
            _push(mon_conn, mon_path, mon.replace("__TS__", ts).encode(), stats, 1.0, 10),
        )
        stats.accepted_data += ok_data
        stats.accepted_monitoring += ok_mon
        stats.failed += (not ok_data) + (not ok_mon)

    for s in range(seconds):
        due = start + s + phase
        delay = due - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        elif delay < -1:
            stats.late_starts += 1
        await one_second(s)
    data_conn.close()
    mon_conn.close()


async def warm_up(jobs: list[tuple[int, str]], port: int, data: list[str]) -> None:
    """Unmeasured pushes (of a second before the window) so every gunicorn worker has loaded Django and its
    URLconf and opened its Redis and PostgreSQL connections before the clock starts."""
    throwaway = Stats()

    async def one(k: int) -> None:
        conn = Conn(port)
        job, upload = jobs[k % len(jobs)]
        for n in range(10):
            body = data[n % len(data)].replace("__TS__", str(TS0 - 100 - n)).encode()
            await _push(conn, f"/api/job/{job}/push_data.json?upload_token={upload}", body, throwaway, 0.5, 5)
        conn.close()

    await asyncio.gather(*(one(k) for k in range(16)))


async def drive(jobs: list[tuple[int, str]], port: int, seconds: int, data: list[str]) -> Stats:
    await warm_up(jobs, port, data)
    stats = Stats()
    loop = asyncio.get_running_loop()
    start = loop.time() + 1.0
    await asyncio.gather(*(_tank(i, j, u, port, seconds, start, data, stats) for i, (j, u) in enumerate(jobs)))
    return stats


# ── processes ────────────────────────────────────────────────────────────────────────────────────────────────


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_http(port: int, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"nothing listens on {port}")


def add_store_args(parser: argparse.ArgumentParser, database: str, redis_url: str, out_name: str) -> None:
    """The stores a bench on this module's set-up uses: its own PostgreSQL and ClickHouse database `database`, Redis at
    `redis_url`, and where its figures go (var/bench/`out_name`)."""
    parser.add_argument("--database-url", default=f"postgres://postgres@127.0.0.1:5432/{database}")
    parser.add_argument("--clickhouse-database", default=database)
    parser.add_argument("--redis-url", default=redis_url)
    parser.add_argument("--out", default=str(ROOT / "var" / "bench" / out_name))


def bench_env(args: argparse.Namespace) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="backend.settings",
        DATABASE_URL=args.database_url,
        CLICKHOUSE_DATABASE=args.clickhouse_database,
        REDIS_URL=args.redis_url,
        CELERY_BROKER_URL=args.redis_url,
        CELERY_RESULT_BACKEND=args.redis_url,
        GUNICORN_WORKERS=str(args.workers),
        GUNICORN_THREADS=str(args.threads),
        LOG_LEVEL="WARNING",
        TANKODROM_WRITE_RATE="100000/min",
    )
    return env


def start_gunicorn(env: dict[str, str], port: int, app: str, chdir: Path, log: Path) -> subprocess.Popen[bytes]:
    cmd = [str(ROOT / ".venv/bin/gunicorn"), "-c", str(ROOT / "deploy/gunicorn.conf.py"), "-b", f"127.0.0.1:{port}"]
    cmd += ["--chdir", str(chdir), app]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log.open("ab"), stderr=subprocess.STDOUT)
    wait_http(port)
    return proc


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


def prepare(env: dict[str, str], args: argparse.Namespace) -> None:
    import psycopg2

    from backend.env import parse_database_url

    db = parse_database_url(args.database_url)
    admin = psycopg2.connect(host=db.host, port=db.port, user=db.user, password=db.password, dbname="postgres")
    admin.autocommit = True
    with admin.cursor() as cur:
        cur.execute("SELECT 1 FROM pg_database WHERE datname = %s", [db.name])
        if cur.fetchone() is None:
            cur.execute(f'CREATE DATABASE "{db.name}"')
    admin.close()
    # A fresh ClickHouse database each run: the bench's tables would otherwise grow with every run (a million rows
    # after a day of runs), and the background merges of what earlier runs left took up to half a core, which the
    # latencies measured here then paid for.
    from clickhouse_driver import Client

    from backend import env as app_env  # the app's rule for the password (the variable, else the var dir's file)

    ch_host = env.get("CLICKHOUSE_HOST", "127.0.0.1")
    ch_port = int(env.get("CLICKHOUSE_PORT", "9000"))
    password = app_env.clickhouse_password(app_env.var_dir())
    Client(ch_host, port=ch_port, password=password).execute(f"DROP DATABASE IF EXISTS `{args.clickhouse_database}`")
    for command in (["migrate", "--noinput", "-v", "0"], ["ch_migrate"]):
        subprocess.run([PY, "manage.py", *command], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)


def issue_token(env: dict[str, str]) -> str:
    out = subprocess.run(
        [PY, "manage.py", "issue_token", "bench-tank"], cwd=ROOT, env=env, check=True, capture_output=True, text=True
    )
    return out.stdout.strip().splitlines()[-1]


def create_jobs(port: int, token: str, count: int) -> list[tuple[int, str]]:
    jobs = []
    body = json.dumps({"task": "BENCH-1", "person": "bench", "tank": "bench", "host": "", "port": 80}).encode()
    for _ in range(count):
        req = urllib.request.Request(f"http://127.0.0.1:{port}/api/job/create.json?api_token={token}", data=body)
        req.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(req, timeout=30) as resp:
            (answer,) = json.loads(resp.read())
        jobs.append((int(answer["job"]), str(answer["upload_token"])))
    return jobs


def count_in_clickhouse(env: dict[str, str], jobs: list[int], seconds: int) -> dict[str, int]:
    """Drain wait + counts, in a subprocess with the bench settings (the one ClickHouse door of the project)."""
    script = f"""
import json, time, django
django.setup()
from backend.clickhouse import client
from backend.clickhouse.tables import second_aggregates, monitoring
from backend.tankapi import buffer
deadline = time.time() + 120
while buffer.backlog() and time.time() < deadline:
    time.sleep(0.5)
jobs = {jobs!r}
p = {{"jobs": tuple(jobs), "t0": {TS0}, "t1": {TS0 + seconds}}}
w = "test_id IN %(jobs)s AND source_id = 0 AND ts >= %(t0)s AND ts < %(t1)s"
stored = client.execute(f"SELECT count() FROM {{second_aggregates.NAME}} WHERE " + w, p, tag="bench")[0][0]
final = client.execute(f"SELECT count() FROM {{second_aggregates.NAME}} FINAL WHERE " + w, p, tag="bench")[0][0]
keys = client.execute(
    f"SELECT uniqExact(test_id, ts) FROM {{second_aggregates.NAME}} FINAL WHERE case = '' AND " + w, p, tag="bench"
)[0][0]
mw = "test_id IN %(jobs)s AND ts >= %(t0)s AND ts < %(t1)s"
mon = client.execute(f"SELECT uniqExact(test_id, ts) FROM {{monitoring.NAME}} FINAL WHERE " + mw, p, tag="bench")[0][0]
print(json.dumps({{"backlog": buffer.backlog(), "rows_stored": stored, "rows_final": final,
                  "seconds_final": keys, "monitoring_seconds": mon}}))
"""
    out = subprocess.run([PY, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError("counting in ClickHouse failed:\n" + out.stderr[-3000:])
    result: dict[str, int] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def summarize(stats: Stats) -> dict[str, Any]:
    lat = np.array(stats.latencies_ms) if stats.latencies_ms else np.array([np.nan])
    return {
        "requests": len(stats.latencies_ms),
        "p50_ms": round(float(np.percentile(lat, 50)), 1),
        "p95_ms": round(float(np.percentile(lat, 95)), 1),
        "p99_ms": round(float(np.percentile(lat, 99)), 1),
        "max_ms": round(float(np.max(lat)), 1),
        "statuses": {str(k): v for k, v in sorted(stats.statuses.items())},
        "accepted_data": stats.accepted_data,
        "accepted_monitoring": stats.accepted_monitoring,
        "failed": stats.failed,
        "network_errors": stats.network_errors,
        "late_starts": stats.late_starts,
    }


def worst_seconds(stats: Stats, count: int = 5) -> list[dict[str, float]]:
    """The seconds of the step with the highest p99, to tell a steady overload from stalls."""
    if not stats.started_at:
        return []
    started = np.array(stats.started_at)
    latency = np.array(stats.latencies_ms)
    second = np.floor(started - started.min()).astype(int)
    rows = []
    for s in np.unique(second):
        lat = latency[second == s]
        rows.append({"second": int(s), "requests": int(lat.size), "p50_ms": float(np.percentile(lat, 50)),
                     "p99_ms": float(np.percentile(lat, 99)), "max_ms": float(lat.max())})  # fmt: skip
    return sorted(rows, key=lambda r: -r["p99_ms"])[:count]


def run_step(args: argparse.Namespace, tanks: int, env: dict[str, str], token: str, logs: Path) -> dict[str, Any]:
    data = data_templates(seed=tanks, rps=args.rps)
    row: dict[str, Any] = {"tanks": tanks, "seconds": args.seconds}

    port = free_port()
    app = start_gunicorn(env, port, "backend.asgi:application", ROOT, logs / "gunicorn-app.log")
    try:
        jobs = create_jobs(port, token, tanks)
        stats = asyncio.run(drive(jobs, port, args.seconds, data))
    finally:
        stop(app)
    row["app"] = summarize(stats)
    row["app"]["worst_seconds"] = worst_seconds(stats)
    counts = count_in_clickhouse(env, [j for j, _u in jobs], args.seconds)
    expected_seconds = stats.accepted_data
    row["app"].update(counts)
    row["app"]["lost_seconds"] = expected_seconds - counts["seconds_final"]
    row["app"]["duplicated_seconds_as_read"] = counts["rows_final"] - counts["seconds_final"] * (len(CASES) + 1)
    row["app"]["lost_monitoring_seconds"] = stats.accepted_monitoring - counts["monitoring_seconds"]
    row["app"]["duplicate_rows_before_merge"] = counts["rows_stored"] - counts["rows_final"]

    if not args.no_baseline:
        port = free_port()
        base = start_gunicorn(env, port, "baseline_app:application", Path(__file__).parent, logs / "gunicorn-base.log")
        try:
            fake_jobs = [(j, "0" * 32) for j, _u in jobs]
            row["baseline"] = summarize(asyncio.run(drive(fake_jobs, port, args.seconds, data)))
        finally:
            stop(base)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tanks", default="20", help="comma-separated load steps (simulated tanks)")
    parser.add_argument("--seconds", type=int, default=10, help="seconds each tank pushes per step")
    parser.add_argument("--rps", type=int, default=300, help="requests per second of each simulated tank")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers (GUNICORN_WORKERS)")
    parser.add_argument("--threads", type=int, default=8, help="gunicorn threads per worker (GUNICORN_THREADS)")
    parser.add_argument("--p99-ms", type=float, default=100.0, help="latency goal that defines the ceiling")
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument("--worker-nice", type=int, default=0, help="nice value of the Celery worker (deploy/app.sh)")
    add_store_args(parser, "tankodrom_bench_h3", "redis://127.0.0.1:6379/3", "tank_push.json")
    args = parser.parse_args()

    env = bench_env(args)
    os.environ.update({k: env[k] for k in ("DATABASE_URL", "CLICKHOUSE_DATABASE", "REDIS_URL")})
    prepare(env, args)
    token = issue_token(env)
    API_TOKEN["value"] = token
    logs = Path(tempfile.mkdtemp(prefix="tank_push_bench_"))
    nice = ["nice", "-n", str(args.worker_nice)] if args.worker_nice else []
    worker = subprocess.Popen(
        [*nice, str(ROOT / ".venv/bin/celery"), "-A", "backend.celery_app", "worker", "-B", "-Q", "ingest,default",
         "-c", "1", "--loglevel=WARNING", "-s", str(logs / "beat-schedule")],
        cwd=ROOT, env=env, stdout=(logs / "worker.log").open("ab"), stderr=subprocess.STDOUT,
    )  # fmt: skip
    rows = []
    try:
        for tanks in [int(t) for t in args.tanks.split(",")]:
            row = run_step(args, tanks, env, token, logs)
            rows.append(row)
            a, b = row["app"], row.get("baseline", {})
            print(
                f"tanks={tanks:4d} app p50={a['p50_ms']:7.1f} p99={a['p99_ms']:7.1f} ms statuses={a['statuses']} "
                f"lost={a['lost_seconds']} dup_read={a['duplicated_seconds_as_read']} late={a['late_starts']} | "
                f"baseline p50={b.get('p50_ms', float('nan')):6.1f} p99={b.get('p99_ms', float('nan')):6.1f} ms",
                flush=True,
            )
    finally:
        stop(worker)
    ok = [
        r["tanks"]
        for r in rows
        if r["app"]["p99_ms"] < args.p99_ms
        and r["app"]["lost_seconds"] == 0
        and r["app"]["lost_monitoring_seconds"] == 0
        and r["app"]["failed"] == 0
    ]
    summary = {"steps": rows, "ceiling_tanks": max(ok) if ok else None, "p99_goal_ms": args.p99_ms, "logs": str(logs)}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(summary, indent=2, default=lambda o: asdict(o)))
    print(f"ceiling (p99 < {args.p99_ms} ms, nothing lost): {summary['ceiling_tanks']} tanks; details in {args.out}")


if __name__ == "__main__":
    main()
