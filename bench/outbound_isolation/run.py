"""Benchmark: does what users configure slow the tank stream? Push-to-ClickHouse latency of live tank pushes with
no notification receivers, and with N receivers that accept connections and never answer (deliveries queued to
them for the whole phase), in the same run, phases alternating (A B A B...).

The stack is the one `make run` starts: gunicorn with deploy/gunicorn.conf.py serving backend.asgi, and the Celery
workers exactly as deploy/lib.sh's start_workers starts them (stream with beat, uploads, outbound). Each simulated
tank pushes one second of data per second; a poller reads ClickHouse every `--poll-ms` and notes when each pushed
second appears. The latency of a second is that moment minus the end of its push. The goal (issue 29): p99 with
stuck receivers within 10 % of p99 without.

    flock -x /tmp/tankodrom-bench.lock .venv/bin/python bench/outbound_isolation/run.py
    flock -x /tmp/tankodrom-bench.lock .venv/bin/python bench/outbound_isolation/run.py --tanks 5 --rounds 3

Uses its own PostgreSQL and ClickHouse databases (tankodrom_bench_outbound) and a Redis db of its own (--redis-url).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench" / "tank_push"))

import run as tank_push  # noqa: E402  (bench/tank_push/run.py: database set-up, gunicorn, bodies)

from backend import env as app_env  # noqa: E402

TS0 = 1_797_000_000


class StuckReceivers:
    """Sockets that accept every connection and never answer; counts the connections they got."""

    def __init__(self, count: int) -> None:
        self.sockets: list[socket.socket] = []
        self.accepted = 0
        self.held: list[socket.socket] = []
        self.stop = threading.Event()
        for _ in range(count):
            sock = socket.socket()
            sock.bind(("127.0.0.1", 0))
            sock.listen(128)
            sock.settimeout(0.2)
            self.sockets.append(sock)
            threading.Thread(target=self._accept, args=(sock,), daemon=True).start()

    def _accept(self, sock: socket.socket) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = sock.accept()
            except (TimeoutError, OSError):
                continue
            self.accepted += 1
            self.held.append(conn)  # open, silent

    @property
    def urls(self) -> list[str]:
        return [f"http://127.0.0.1:{sock.getsockname()[1]}/hook" for sock in self.sockets]

    def close(self) -> None:
        self.stop.set()
        time.sleep(0.3)
        for sock in [*self.sockets, *self.held]:
            sock.close()


def bench_env(args: argparse.Namespace, var: Path) -> dict[str, str]:
    """tank_push's bench environment (one worker, four threads) with the outbound settings this bench varies."""
    args.workers, args.threads = 1, 4
    env = tank_push.bench_env(args)
    env.update(
        TANKODROM_VAR_DIR=str(var),
        # The password of this checkout's ClickHouse (the bench's var dir has none of its own).
        CLICKHOUSE_PASSWORD=app_env.clickhouse_password(app_env.var_dir()),
        TANKODROM_EGRESS_ALLOW="127.0.0.1/32",
        TANKODROM_NOTIFY_TIMEOUT_S=str(args.timeout_s),
        TANKODROM_NOTIFY_RETRIES="3",
        TANKODROM_NOTIFY_BACKOFF_S="1",
        TANKODROM_NOTIFY_KEY="bench-outbound",
    )
    return env


def lib_sh(command: str, env: dict[str, str], piddir: Path) -> None:
    script = f'source "{ROOT}/deploy/lib.sh" && {command} "{piddir}" bench-'
    subprocess.run(["bash", "-c", script], cwd=ROOT, env=env, check=True)


def queue_stuck_deliveries(urls: list[str], per_target: int) -> int:
    """Targets on the stuck receivers and deliveries to them, queued as the code queues them."""
    from django.contrib.auth.models import User

    from backend.loadtests.models import Test, TestStatus
    from backend.notify import tasks
    from backend.notify.models import Delivery, Event, Target, TargetKind
    from backend.notify.secrets import encrypt

    owner, _ = User.objects.get_or_create(username="bench-hooks")
    test = Test.objects.create(owner=owner, name="finished", component="bench", status=TestStatus.READY)
    queued = 0
    for index, url in enumerate(urls):
        target = Target.objects.create(
            owner=owner, kind=TargetKind.SLACK, name=f"stuck {index}", address_encrypted=encrypt(url)
        )
        for event in list(Event)[:per_target]:
            delivery = Delivery.objects.create(
                target=target, test=test, component="bench", event=event, message={"title": "t", "url": "u"}
            )
            tasks.deliver.delay(delivery.pk)
            queued += 1
    return queued


def seen_seconds(jobs: list[int]) -> set[tuple[int, int]]:
    from backend.clickhouse import client as ch
    from backend.clickhouse.tables import second_aggregates

    rows = ch.execute(
        f"SELECT test_id, ts FROM {second_aggregates.NAME} WHERE test_id IN %(jobs)s AND source_id = 0"
        " GROUP BY test_id, ts",
        {"jobs": tuple(jobs)},
        tag="bench.outbound.seen",
    )
    return {(int(job), int(ts)) for job, ts in rows}


def push_phase(port: int, token: str, args: argparse.Namespace, ts0: int, data: list[str]) -> list[float]:
    """Tanks push `seconds` seconds each; the latency (s) of every pushed second until ClickHouse holds it."""
    jobs = tank_push.create_jobs(port, token, args.tanks)
    pushed_at: dict[tuple[int, int], float] = {}
    seen_at: dict[tuple[int, int], float] = {}
    lock = threading.Lock()
    done = threading.Event()

    def tank(index: int, job: int, upload: str) -> None:
        start = time.monotonic() + 1.0 + index / args.tanks
        path = f"http://127.0.0.1:{port}/api/job/{job}/push_data.json?upload_token={upload}&api_token={token}"
        for s in range(args.seconds):
            time.sleep(max(0.0, start + s - time.monotonic()))
            ts = ts0 + s
            body = data[(index + s) % len(data)].replace("__TS__", str(ts)).encode()
            request = urllib.request.Request(path, data=body, headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(request, timeout=30) as answer:
                answer.read()
            with lock:
                pushed_at[(job, ts)] = time.monotonic()

    def poll() -> None:
        ids = [job for job, _ in jobs]
        while not done.is_set():
            now = time.monotonic()
            for key in seen_seconds(ids):
                seen_at.setdefault(key, now)
            time.sleep(args.poll_ms / 1000)

    poller = threading.Thread(target=poll, daemon=True)
    poller.start()
    tanks = [threading.Thread(target=tank, args=(i, job, up)) for i, (job, up) in enumerate(jobs)]
    for thread in tanks:
        thread.start()
    for thread in tanks:
        thread.join()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with lock:
            if all(key in seen_at for key in pushed_at):
                break
        time.sleep(0.2)
    done.set()
    poller.join()
    return [seen_at[key] - pushed_at[key] if key in seen_at else float("inf") for key in pushed_at]


def summary(latencies_s: list[float]) -> dict[str, Any]:
    values = np.array(latencies_s) * 1000
    finite = values[np.isfinite(values)]
    return {
        "seconds": int(values.size),
        "never_seen": int((~np.isfinite(values)).sum()),
        "p50_ms": round(float(np.percentile(finite, 50)), 1),
        "p90_ms": round(float(np.percentile(finite, 90)), 1),
        "p99_ms": round(float(np.percentile(finite, 99)), 1),
        "max_ms": round(float(finite.max()), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tanks", type=int, default=5)
    parser.add_argument("--seconds", type=int, default=30, help="seconds each tank pushes per phase")
    parser.add_argument("--rounds", type=int, default=2, help="pairs of phases (without, with stuck receivers)")
    parser.add_argument("--receivers", type=int, default=10, help="stuck receivers in the phases with them")
    parser.add_argument("--per-target", type=int, default=3, help="deliveries queued to each stuck receiver")
    parser.add_argument("--timeout-s", type=int, default=10, help="TANKODROM_NOTIFY_TIMEOUT_S")
    parser.add_argument("--poll-ms", type=int, default=50)
    parser.add_argument("--rps", type=int, default=300)
    tank_push.add_store_args(
        parser,
        "tankodrom_bench_outbound",
        os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/3"),
        "outbound_isolation.json",
    )
    args = parser.parse_args()

    var = Path(tempfile.mkdtemp(prefix="outbound_bench_"))
    env = bench_env(args, var)
    os.environ.update(env)
    tank_push.prepare(env, args)
    import django

    django.setup()
    from backend.celery_app import app as celery

    celery.conf.task_always_eager = False
    token = tank_push.issue_token(env)
    piddir = var / "run"
    piddir.mkdir(parents=True, exist_ok=True)
    port = tank_push.free_port()
    web = tank_push.start_gunicorn(env, port, "backend.asgi:application", ROOT, var / "gunicorn.log")
    lib_sh("start_workers", env, piddir)
    phases: dict[str, list[float]] = {"none": [], "stuck": []}
    stuck_connections = 0
    try:
        time.sleep(8)  # workers up (their first ping takes a few seconds on this VM)
        data = tank_push.data_templates(seed=1, rps=args.rps)
        ts0 = TS0
        for _ in range(args.rounds):
            for phase in ("none", "stuck"):
                receivers = StuckReceivers(args.receivers) if phase == "stuck" else None
                if receivers is not None:
                    queue_stuck_deliveries(receivers.urls, args.per_target)
                    time.sleep(2)  # the outbound pool takes them and is held
                latencies = push_phase(port, token, args, ts0, data)
                ts0 += args.seconds + 10
                if receivers is not None:
                    stuck_connections += receivers.accepted
                    receivers.close()
                phases[phase] += latencies
                print(f"{phase:5s} {summary(latencies)}", flush=True)
    finally:
        lib_sh("stop_workers", env, piddir)
        tank_push.stop(web)
    result = {name: summary(values) for name, values in phases.items()}
    ratio = result["stuck"]["p99_ms"] / result["none"]["p99_ms"]
    result["p99_ratio_stuck_to_none"] = round(ratio, 3)
    result["stuck_connections_held"] = stuck_connections
    result["args"] = vars(args)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2))
    print(json.dumps({k: v for k, v in result.items() if k != "args"}, indent=2))
    print(f"p99 with {args.receivers} stuck receivers / without: {ratio:.3f} (goal: within 1.10)")


if __name__ == "__main__":
    main()
