"""Benchmark: phout upload-to-ready through Tankodrom vs. clickhouse-client loading the same file, in one run.

    .venv/bin/python bench/phout_upload/run.py --lines 1000000            # reduced scale (shared machine)
    .venv/bin/python bench/phout_upload/run.py --lines 10000000 --gzip    # the full run, on a quiet machine
    .venv/bin/python bench/phout_upload/run.py --file F --rounds 5       # five side-by-side rounds, medians
    .venv/bin/python bench/phout_upload/run.py --lines 2000000 --format jtl  # a JMeter CSV JTL of such requests

Steps, all against the local services (ClickHouse on 9000, PostgreSQL, Redis), in databases of its own
(`tankodrom_bench`, dropped and re-created, so it never touches real data):
1. generate a realistic phout with bench/gen_phout.py (unless --file is given);
2. baseline: `clickhouse-client --query "INSERT INTO t FORMAT TabSeparated" < file` into a 12-column MergeTree with
   the phout columns and the same partitioning and sort order as `samples` (the file gunzipped by zcat first
   when --gzip, piped, as a user would do), twice: into a table with `samples`' column types (the equivalent
   table, the ratio's reference) and into the all-Int64 table of earlier runs;
3. Tankodrom: gunicorn + one Celery worker started here, then `tankodrom upload FILE --wait` (the CLI: POST the
   test if the create endpoint exists, else a test row made directly; PUT the file; poll until the upload is
   ready). Upload-to-ready is the CLI's wall time.
Reported: lines/s of both, the ratio, and the peak RSS of every process (CLI, gunicorn, Celery worker,
clickhouse-client, and the ClickHouse server's growth), sampled every 50 ms from /proc.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import cast

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from bench import support  # noqa: E402  (the repository's root is on the path only from here)

PY = ROOT / ".venv" / "bin" / "python"
BENCH_DB = "tankodrom_bench"  # --db; the baseline's database is this name + "_baseline"
PORT = 18764  # --port; checked free before the server starts, so we never talk to another stack
GUNICORN_CONF = str(ROOT / "deploy/gunicorn.conf.py")  # --gunicorn-conf
GUNICORN_APP = ""  # --app; empty: the one the config names (`wsgi_app`)


def rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError):
        pass
    return 0


def children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry.name))
    return out


def cpu_s(pid: int) -> float:
    """User + system CPU seconds a process has used so far (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def thread_cpu(pid: int) -> dict[int, tuple[str, float]]:
    """CPU seconds used so far by each thread of a process: tid -> (thread name, seconds)."""
    out: dict[int, tuple[str, float]] = {}
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return out
    tick = os.sysconf("SC_CLK_TCK")
    for task in tasks:
        try:
            stat = (task / "stat").read_text()
        except OSError:
            continue
        head, tail = stat.rsplit(")", 1)
        fields = tail.split()
        out[int(task.name)] = (head.split("(", 1)[1], (int(fields[11]) + int(fields[12])) / tick)
    return out


class PeakRss:
    """Samples named process trees every 50 ms: `peaks` = max RSS (KB) of any one process of the tree, `cpu` =
    CPU seconds used by the tree during the watch (last sample; the server's is a delta from `watch`)."""

    def __init__(self, threads: bool = False, timeline_step_s: float = 0.5) -> None:
        self.threads = threads  # also CPU seconds per thread name (`thread_cpu`), for a breakdown of a process
        self.timeline_step_s = timeline_step_s
        self.started = time.perf_counter()  # the timeline's zero (reset by start)
        self.cli_span_t: tuple[float, float] | None = None  # when the CLI ran, on the timeline
        self.thread_cpu: dict[str, dict[str, float]] = {}
        self.timeline: list[dict[str, float]] = []
        self._thread_seen: dict[str, dict[int, tuple[str, float]]] = {}
        self._thread_start: dict[str, dict[int, float]] = {}
        self.roots: dict[str, int] = {}
        self.peaks: dict[str, int] = {}
        self.cpu: dict[str, float] = {}
        self._cpu_start: dict[str, float] = {}
        self._cpu_seen: dict[str, dict[int, float]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def watch(self, name: str, pid: int) -> None:
        # What the whole tree has used so far, children included: gunicorn's worker (a child of the pid watched)
        # starts (Django, pandas) before the watch, and that start is not the upload's work (README.md: "The bench
        # counted gunicorn's start-up as the upload's CPU").
        tree = [pid, *children(pid)]
        self._cpu_start[name] = sum(cpu_s(p) for p in tree)
        self._cpu_seen[name] = {}
        self._thread_seen[name] = {}
        self._thread_start[name] = (
            {tid: used for p in tree for tid, (_, used) in thread_cpu(p).items()} if self.threads else {}
        )
        self.roots[name] = pid

    def start(self) -> None:
        self.started = time.perf_counter()
        self._thread.start()

    def stop(self) -> dict[str, int]:
        """End the watch with a last sample; later calls change nothing and return the same peaks."""
        if not self._stop.is_set():
            self._stop.set()
            self._thread.join()
            self._sample()
        return self.peaks

    def _sample(self) -> None:
        for name, pid in list(self.roots.items()):
            seen = self._cpu_seen[name]
            for p in [pid, *children(pid)]:
                self.peaks[name] = max(self.peaks.get(name, 0), rss_kb(p))
                used = cpu_s(p)
                if used:
                    seen[p] = used
                if self.threads:
                    self._thread_seen[name].update(thread_cpu(p))
            self.cpu[name] = round(sum(seen.values()) - self._cpu_start[name], 2)
            if self.threads:
                by_name: dict[str, float] = {}
                start = self._thread_start[name]
                for tid, (comm, used) in sorted(self._thread_seen[name].items()):
                    # Python threads all carry the process's name: the thread id tells them apart.
                    by_name[f"{comm} {tid}"] = used - start.get(tid, 0.0)
                self.thread_cpu[name] = {k: round(v, 2) for k, v in by_name.items() if v >= 0.05}

    def _run(self) -> None:
        next_mark = 0.0
        while not self._stop.is_set():
            self._sample()
            elapsed = time.perf_counter() - self.started
            if self.threads and elapsed >= next_mark:  # CPU seconds so far, every timeline step
                self.timeline.append({"t": round(elapsed, 2), **self.cpu})
                next_mark += self.timeline_step_s
            time.sleep(min(0.05, self.timeline_step_s))


def sh(cmd: list[str], env: dict[str, str] | None = None, **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, env=env, check=True, text=True, capture_output=True, **kw)  # type: ignore[call-overload,no-any-return]


def clickhouse_pid() -> int:
    pid_file = ROOT / "var" / "run" / "clickhouse.pid"
    if pid_file.exists():
        return int(pid_file.read_text().split()[0])
    out = subprocess.run(["pgrep", "-o", "clickhouse"], text=True, capture_output=True).stdout.split()
    return int(out[0]) if out else 0


def ch(query: str) -> str:
    return sh([*support.clickhouse_client_args(), "--query", query]).stdout


def wait_merges_done(timeout_s: float = 300) -> None:
    """Wait until the server merges nothing: a phase's merges left running would take CPU from the next phase."""
    deadline = time.monotonic() + timeout_s
    while int(ch("SELECT count() FROM system.merges").strip()):
        if time.monotonic() > deadline:
            raise SystemExit(f"ClickHouse still merging after {timeout_s:.0f} s")
        time.sleep(0.5)


# The baseline loads the file twice, into two tables with the phout columns and `samples`' partitioning and sort
# order: "samples-typed" has the column types `samples` stores (analytics/schema/samples.py: 4-byte times and
# sizes, 2-byte codes; a line that does not fit is refused by both), the table equivalent to ours and the ratio's
# reference; "int64" is the wider table earlier runs used (every integer 8 bytes, codes 4), kept for comparison.


def baseline_types(shape: str) -> dict[str, str]:
    """The integer columns of phout (after send_ts and tag) with their types in the baseline table of `shape`."""
    from analytics.schema.samples import INTEGER_COLUMNS

    if shape == "int64":
        return {c.phout: "Int32" if c.phout.endswith("_code") else "Int64" for c in INTEGER_COLUMNS}
    return {c.phout: c.clickhouse for c in INTEGER_COLUMNS}


BASELINE_SHAPES: tuple[str, ...] = ("samples-typed", "int64")
# --format jtl: the file is a JMeter CSV JTL (bench/gen_jtl.py); the baseline loads it as CSVWithNames into a table
# of its 17 columns, typed as narrowly as `samples` stores what they map to, with `samples`' partitioning and order.
JTL_SHAPE = "jtl"
JTL_COLUMNS = (
    "timeStamp UInt64, elapsed UInt32, label String, responseCode String, responseMessage String, threadName String, "
    "dataType String, success String, failureMessage String, bytes UInt32, sentBytes UInt32, grpThreads UInt32, "
    "allThreads UInt32, URL String, Latency UInt32, IdleTime UInt32, Connect UInt32"
)
INPUT_FORMAT = "TabSeparated"


def baseline_ddl(table: str, shape: str) -> str:
    if shape == JTL_SHAPE:
        return (
            f"CREATE TABLE {table} ({JTL_COLUMNS}) ENGINE = MergeTree() "
            "PARTITION BY toYYYYMM(toDateTime(intDiv(timeStamp, 1000))) ORDER BY intDiv(timeStamp, 1000)"
        )
    columns = ", ".join(f"{name} {ch_type}" for name, ch_type in baseline_types(shape).items())
    return (
        f"CREATE TABLE {table} (send_ts Float64, tag String, {columns}) ENGINE = MergeTree() "
        "PARTITION BY toYYYYMM(toDateTime(toUInt32(send_ts))) ORDER BY toUInt32(send_ts)"
    )


def baseline_table(shape: str) -> str:
    return f"{BENCH_DB}_baseline.t_{shape.replace('-', '_')}"


def run_baseline(path: Path, gz: bool, monitor: PeakRss, shape: str) -> float:
    table = baseline_table(shape)
    ch(f"DROP TABLE IF EXISTS {table}")
    ch(baseline_ddl(table, shape))
    name = f"clickhouse-client (baseline, {shape})"
    started = time.perf_counter()
    with path.open("rb") as f:
        if gz:
            zcat = subprocess.Popen(["zcat"], stdin=f, stdout=subprocess.PIPE)
            proc = subprocess.Popen(
                [*support.clickhouse_client_args(), "--query", f"INSERT INTO {table} FORMAT {INPUT_FORMAT}"],
                stdin=zcat.stdout,
            )
            assert zcat.stdout is not None
            zcat.stdout.close()
            monitor.watch("zcat (baseline)", zcat.pid)
        else:
            proc = subprocess.Popen(
                [*support.clickhouse_client_args(), "--query", f"INSERT INTO {table} FORMAT {INPUT_FORMAT}"], stdin=f
            )
        monitor.watch(name, proc.pid)
        _, status, usage = os.wait4(proc.pid, 0)
        if gz:
            zcat.wait()
    elapsed = time.perf_counter() - started
    if status != 0:
        raise SystemExit(f"clickhouse-client failed with status {status}")
    monitor.cpu[f"{name} final"] = round(usage.ru_utime + usage.ru_stime, 2)
    monitor.peaks[name] = max(monitor.peaks.get(name, 0), usage.ru_maxrss)
    return elapsed


def app_env(var_dir: Path) -> dict[str, str]:
    redis_url = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/4")
    return support.app_env(BENCH_DB, BENCH_DB, redis_url, var_dir, CELERY_TASK_ALWAYS_EAGER="false")


def prepare_app(env: dict[str, str]) -> str:
    support.recreate_postgres_database(BENCH_DB)
    ch(f"DROP DATABASE IF EXISTS {BENCH_DB}")
    sh([str(PY), "manage.py", "migrate", "--noinput"], env=env, cwd=ROOT)
    sh([str(PY), "manage.py", "ch_migrate"], env=env, cwd=ROOT)
    token = sh([str(PY), "manage.py", "issue_token", "bench"], env=env, cwd=ROOT).stdout.strip().splitlines()[-1]
    return token


def make_test(env: dict[str, str], token: str) -> int | None:
    """A test row to upload into when the create endpoint is not there (then the CLI creates it itself)."""
    import requests

    probe = requests.post(
        f"http://127.0.0.1:{PORT}/api/v1/tests/", json={"name": "bench"}, headers={"Authorization": f"Token {token}"}
    )
    if probe.status_code == 201:
        return None  # the CLI creates its own
    code = (
        "from django.contrib.auth.models import User; from backend.loadtests.models import Test; "
        "print(Test.objects.create(owner=User.objects.get(username='bench'), name='bench').pk)"
    )
    return int(sh([str(PY), "manage.py", "shell", "-c", code], env=env, cwd=ROOT).stdout.strip().splitlines()[-1])


def ensure_port_free(port: int) -> None:
    import socket

    with socket.socket() as sock:
        # As servers do: connections of the previous round that the server closed may wait in TIME_WAIT on the
        # port, which only a listening socket should make this check fail for.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError as exc:
            raise SystemExit(f"port {port} is in use ({exc}): pass another with --port") from exc


def wait_http(url: str, timeout_s: float = 60) -> None:
    import requests

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            requests.get(url, timeout=2)
            return
        except requests.RequestException:
            time.sleep(0.2)
    raise SystemExit(f"{url} did not answer")


def _spawn(command: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    """Start one of the app's processes from the repository's root, its output (both streams) in `log`."""
    return subprocess.Popen(command, env=env, cwd=ROOT, stdout=log.open("w"), stderr=subprocess.STDOUT)


def run_tankodrom(path: Path, monitor: PeakRss, var_dir: Path) -> tuple[float, str]:
    ensure_port_free(PORT)
    env = app_env(var_dir)
    token = prepare_app(env)
    logs = var_dir / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    app = [GUNICORN_APP] if GUNICORN_APP else []
    gunicorn = _spawn(
        [str(ROOT / ".venv/bin/gunicorn"), *app, "-c", GUNICORN_CONF, "--bind", f"127.0.0.1:{PORT}", "--workers", "1"],
        env,
        logs / "gunicorn.log",
    )
    queues = "uploads,ingest,analysis,default"
    worker = _spawn(
        [
            str(ROOT / ".venv/bin/celery"),
            "-A",
            "backend",
            "worker",
            "-Q",
            queues,
            "--pool",
            "solo",
            "--loglevel",
            "INFO",
        ],
        env,
        logs / "celery.log",
    )
    try:
        wait_http(f"http://127.0.0.1:{PORT}/healthz")
        time.sleep(2)  # the worker connects to the broker
        test_id = make_test(env, token)
        monitor.watch("gunicorn (master + worker)", gunicorn.pid)
        monitor.watch("celery worker (ingestion)", worker.pid)
        # The console script `tankodrom` runs tankodrom_cli.main:main; -m works without the package installed.
        cmd = [str(PY), "-m", "tankodrom_cli.main", "upload", str(path), "--server", f"http://127.0.0.1:{PORT}"]
        cmd += ["--token", token, "--wait-report", "--quiet"] + (["--test", str(test_id)] if test_id else [])
        started = time.perf_counter()
        cli = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        monitor.watch("tankodrom CLI", cli.pid)
        out, err = cli.communicate()
        elapsed = time.perf_counter() - started
        monitor.stop()  # upload-to-ready's CPU, not the servers' shutdown below
        monitor.cli_span_t = (round(started - monitor.started, 2), round(started + elapsed - monitor.started, 2))
        if cli.returncode != 0:
            raise SystemExit(f"tankodrom upload failed: {err}")
        return elapsed, err.strip().splitlines()[-1] + " → " + out.strip()
    finally:
        for proc in (worker, gunicorn):
            proc.send_signal(signal.SIGTERM)
        for proc in (worker, gunicorn):
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()


def count_rows() -> dict[str, int]:
    rows = {"tankodrom": int(ch(f"SELECT count() FROM {BENCH_DB}.samples").strip())}
    for shape in BASELINE_SHAPES:
        rows[f"baseline {shape}"] = int(ch(f"SELECT count() FROM {baseline_table(shape)}").strip())
    return rows


def measure_round(
    path: Path, gz: bool, lines: int, var_dir: Path, threads: bool, timeline_step_s: float = 0.5
) -> dict[str, object]:
    """One side-by-side round: both baselines, then Tankodrom, on a server that merges nothing at each start."""
    shutil.rmtree(var_dir, ignore_errors=True)

    server_pid = clickhouse_pid()
    results: dict[str, object] = {}

    ch(f"DROP DATABASE IF EXISTS {BENCH_DB}_baseline")
    ch(f"CREATE DATABASE {BENCH_DB}_baseline")
    base_s: dict[str, float] = {}
    base_cpu: dict[str, dict[str, float]] = {}
    base_peaks: dict[str, dict[str, int]] = {}
    for shape in BASELINE_SHAPES:
        wait_merges_done()
        monitor = PeakRss()
        monitor.watch("clickhouse-server", server_pid)
        monitor.start()
        base_s[shape] = run_baseline(path, gz, monitor, shape)
        base_peaks[shape] = dict(monitor.stop())
        cpu = dict(monitor.cpu)
        name = f"clickhouse-client (baseline, {shape})"
        cpu[name] = cpu.pop(f"{name} final")
        base_cpu[shape] = cpu

    wait_merges_done()
    monitor = PeakRss(threads=threads, timeline_step_s=timeline_step_s)
    monitor.watch("clickhouse-server", server_pid)
    monitor.start()
    ours_s, cli_line = run_tankodrom(path, monitor, var_dir)
    ours_peaks = monitor.stop()
    ours_cpu = dict(monitor.cpu)

    reference = BASELINE_SHAPES[0]
    results.update(
        baseline_s=round(base_s[reference], 2),
        baseline_lines_per_s=round(lines / base_s[reference]),
        tankodrom_s=round(ours_s, 2),
        tankodrom_lines_per_s=round(lines / ours_s),
        speedup=round(base_s[reference] / ours_s, 2),
        baselines={
            shape: {
                "types": baseline_types(shape),
                "s": round(seconds, 2),
                "lines_per_s": round(lines / seconds),
                "speedup": round(seconds / ours_s, 2),
            }
            for shape, seconds in base_s.items()
        },
        rows_stored=count_rows(),
        cpu_s={**{f"baseline {k}": v for k, v in base_cpu.items()}, "tankodrom": ours_cpu},
        peak_rss_mb={
            **{f"baseline {k}": {n: round(v / 1024) for n, v in peaks.items()} for k, peaks in base_peaks.items()},
            "tankodrom": {k: round(v / 1024) for k, v in ours_peaks.items()},
        },
        cli=cli_line,
    )
    if threads:
        results["thread_cpu_s"] = monitor.thread_cpu
        results["cpu_timeline"] = monitor.timeline
        results["cli_span_t"] = monitor.cli_span_t
    return results


def main() -> None:
    global PORT, BENCH_DB, GUNICORN_CONF, GUNICORN_APP, BASELINE_SHAPES, INPUT_FORMAT
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lines", type=int, default=1_000_000)
    p.add_argument("--gzip", action="store_true", help="generate and upload a gzipped file")
    p.add_argument("--file", help="use this phout file instead of generating one")
    p.add_argument("--workdir", default=str(ROOT / "var" / "bench" / "phout_upload"))
    p.add_argument("--json", help="also write the results here")
    p.add_argument("--port", type=int, default=PORT, help="port of the gunicorn started for the run")
    p.add_argument("--db", default=BENCH_DB, help="PostgreSQL and ClickHouse database of the run (dropped first)")
    p.add_argument("--threads", action="store_true", help="also report CPU seconds per thread of every process")
    p.add_argument(
        "--timeline-step", type=float, default=0.5, help="seconds between the CPU timeline's marks (with --threads)"
    )
    p.add_argument(
        "--rounds", type=int, default=1, help="side-by-side rounds (baseline, then Tankodrom); medians reported"
    )
    p.add_argument("--gunicorn-conf", default=GUNICORN_CONF, help="gunicorn config of the server (the stack's)")
    p.add_argument("--app", default="", help="the app gunicorn serves, if not the config's (backend.wsgi:application)")
    p.add_argument(
        "--format", choices=("phout", "jtl"), default="phout", help="jtl: a JMeter CSV JTL of the same requests"
    )
    args = p.parse_args()
    if args.format == "jtl":
        BASELINE_SHAPES, INPUT_FORMAT = (JTL_SHAPE,), "CSVWithNames"
    GUNICORN_CONF, GUNICORN_APP = args.gunicorn_conf, args.app
    PORT = args.port
    BENCH_DB = args.db
    work = Path(args.workdir)
    work.mkdir(parents=True, exist_ok=True)
    if args.file:
        path = Path(args.file)
    else:
        path = work / (f"{args.lines}.{args.format}" + (".gz" if args.gzip else ""))
        if not path.exists():
            generator = "bench/gen_jtl.py" if args.format == "jtl" else "bench/gen_phout.py"
            gen = [str(PY), str(ROOT / generator), "--lines", str(args.lines), "--output", str(path)]
            subprocess.run(gen + (["--gzip"] if args.gzip else []), check=True)
    lines = int(sh(["sh", "-c", f"{'zcat' if args.gzip else 'cat'} {path} | wc -l"]).stdout.strip())
    lines -= 1 if args.format == "jtl" else 0  # the header
    var_dir = work / "var"
    results: dict[str, object] = {
        "format": args.format,
        "lines": lines,
        "file_bytes": path.stat().st_size,
        "gzip": args.gzip,
    }
    rounds = []
    for number in range(1, args.rounds + 1):
        measured = measure_round(path, args.gzip, lines, var_dir, args.threads, args.timeline_step)
        rounds.append(measured)
        print(
            f"round {number}/{args.rounds}: baseline {measured['baseline_s']} s, tankodrom {measured['tankodrom_s']} s,"
            f" ratio {measured['speedup']}",
            file=sys.stderr,
        )
    if args.rounds == 1:
        results.update(rounds[0])
    else:

        def figure(name: str) -> list[float]:
            return [cast(float, r[name]) for r in rounds]

        ratios = figure("speedup")
        results.update(
            baseline_s_median=statistics.median(figure("baseline_s")),
            tankodrom_s_median=statistics.median(figure("tankodrom_s")),
            speedups=ratios,
            speedup_median=statistics.median(ratios),
            rounds=rounds,
        )
    print(json.dumps(results, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
