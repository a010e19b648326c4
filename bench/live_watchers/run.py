"""CPU of the server for the watchers of one online test: 5 watchers, then 500, in the same run.

The production entry (gunicorn with uvicorn's worker on backend.asgi, one worker) serves the online pages' channel
(GET /api/v1/tests/<id>/live, Server-Sent Events). Watchers (raw sockets on an event loop, in a separate process so
that their CPU is not the server's) connect and stay; once they are all in, a publisher sends one event per second
(backend.live.channel.publish, as the flusher does for each online test), for --seconds. Measured: the gunicorn
worker's CPU time (user + system, /proc) during that window, per second; and that every watcher got every event.

    flock -x /tmp/tankodrom-bench.lock .venv/bin/python bench/live_watchers/run.py [--seconds 20] [--steps 5,500]

Prints a table and writes var/bench/live_watchers.json. bench/live_watchers/README.md has the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import multiprocessing
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench" / "tank_push"))

from run import add_store_args, bench_env, create_jobs, issue_token, prepare, start_gunicorn, stop  # noqa: E402
from sse_watchers import count_frames, run_watchers  # noqa: E402


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def worker_pid(master: int) -> int:
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    assert len(children) == 1, f"one gunicorn worker expected, found {children}"
    return int(children[0])


async def _watch(port: int, path: str, token: str, counts: list[int], index: int, ready: Any) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Token {token}\r\n"
        "Accept: text/event-stream\r\n\r\n".encode()
    )
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200"), head[:200]
    ready.release()
    await count_frames(reader, counts, index)


def watchers_process(port: int, path: str, token: str, n: int, conn: Any) -> None:
    run_watchers(n, conn, functools.partial(_watch, port, path, token), poll_s=0.1)


def publish_env(env: dict[str, str]) -> None:
    os.environ.update(env)
    import django

    django.setup()


def step(port: int, pid: int, test_id: int, token: str, watchers: int, seconds: int) -> dict[str, Any]:
    from backend.live import channel

    parent, child = multiprocessing.Pipe()
    proc = multiprocessing.Process(
        target=watchers_process, args=(port, f"/api/v1/tests/{test_id}/live", token, watchers, child)
    )
    proc.start()
    assert parent.poll(120), "the watchers did not connect within 120 s"
    parent.recv()
    time.sleep(2)  # the connections' set-up settles
    cpu_before, wall_before = cpu_s(pid), time.monotonic()
    for n in range(seconds):
        channel.publish(test_id, channel.SECOND, {"test": test_id, "n": n, "pad": "x" * 300})
        time.sleep(max(0.0, wall_before + n + 1 - time.monotonic()))
    cpu_used, wall = cpu_s(pid) - cpu_before, time.monotonic() - wall_before
    time.sleep(0.5)
    parent.send("done")
    counts: list[int] = parent.recv()
    proc.join(30)
    # A fresh watcher's first frame is the newest event in the history (the previous step's last), not counted here.
    complete = sum(1 for c in counts if c >= seconds)
    return {
        "watchers": watchers,
        "seconds": seconds,
        "cpu_ms_per_s": round(1000 * cpu_used / wall, 2),
        "cpu_share_of_a_core": round(cpu_used / wall, 4),
        "watchers_with_every_event": complete,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", default="5,500", help="watchers per step, comma-separated")
    parser.add_argument("--seconds", type=int, default=20, help="events (one per second) per step")
    parser.add_argument("--port", type=int, default=18761)
    add_store_args(
        parser, "tankodrom_bench_live", os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/3"), "live_watchers.json"
    )
    args = parser.parse_args()
    args.workers, args.threads = 1, 8
    env = bench_env(args)
    prepare(env, args)
    token = issue_token(env)
    publish_env(env)
    log = ROOT / "var" / "bench" / "live_watchers_gunicorn.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    server = start_gunicorn(env, args.port, "backend.asgi:application", ROOT, log)
    try:
        time.sleep(2)
        pid = worker_pid(server.pid)
        ((test_id, _upload),) = create_jobs(args.port, token, 1)
        results = [step(args.port, pid, test_id, token, int(n), args.seconds) for n in args.steps.split(",")]
    finally:
        stop(server)
    model = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    cpu_model = next((line.split(":", 1)[1].strip() for line in model.splitlines() if "Model name" in line), "?")
    report = {"cpu": cpu_model, "cores": os.cpu_count(), "python": platform.python_version(), "steps": results}
    Path(args.out).write_text(json.dumps(report, indent=1))
    print(f"VM: {cpu_model}, {os.cpu_count()} cores")
    print(f"{'watchers':>9} {'server CPU, ms/s':>17} {'of a core':>10} {'got every event':>16}")
    for r in results:
        print(
            f"{r['watchers']:>9} {r['cpu_ms_per_s']:>17} {r['cpu_share_of_a_core']:>10.2%}"
            f" {r['watchers_with_every_event']:>10}/{r['watchers']}"
        )


if __name__ == "__main__":
    main()
