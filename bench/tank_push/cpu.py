"""CPU per push, in process: the production entry (`backend.asgi.application`, the ASGI door gunicorn serves under
uvicorn's worker) called directly on an event loop, no network and no HTTP parsing.

What it shows: the server-side cost of one push_data body (the same ~20 KB, 6 cases + overall, as run.py sends) and
of one monitoring chunk, through the path gunicorn serves, and through Django's own handler (WSGI) for comparison.
It needs the bench's PostgreSQL, ClickHouse-less (pushes only reach Redis) and Redis db; run it under the bench lock:

    flock -x /tmp/tankodrom-bench.lock .venv/bin/python bench/tank_push/cpu.py [--pushes 2000] [--profile out.prof]
        [--root /work/wt/base]   # the code of another tree (a baseline), measured by this script

The Redis round trip is included (it is part of every push); nothing is flushed, and the stream is emptied after.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import os
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
# --root: measure another tree's code (this script and run.py's helpers stay this tree's).
_root = sys.argv[sys.argv.index("--root") + 1] if "--root" in sys.argv else str(ROOT)
sys.path.insert(0, _root)
sys.path.insert(0, str(Path(__file__).parent))

from run import bench_env, data_templates, issue_token, monitoring_template, prepare  # noqa: E402

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def environ(path: str, query: str, body: bytes) -> dict[str, Any]:
    return {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": path,
        "QUERY_STRING": query,
        "CONTENT_LENGTH": str(len(body)),
        "CONTENT_TYPE": "application/json",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000",
        "HTTP_HOST": "127.0.0.1:8000",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "wsgi.input": io.BytesIO(body),
        "wsgi.url_scheme": "http",
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }


def call(app: WsgiApp, env: dict[str, Any]) -> str:
    status: list[str] = []

    def start_response(line: str, _headers: list[tuple[str, str]], _exc: Any = None) -> None:
        status.append(line)

    result = app(env, start_response)
    b"".join(result)
    close = getattr(result, "close", None)
    if close is not None:
        close()
    return status[0]


def scope(path: str, query: str, body: bytes) -> dict[str, Any]:
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": [
            (b"host", b"127.0.0.1:8000"),
            (b"content-type", b"application/json"),
            (b"content-length", b"%d" % len(body)),
        ],
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 50000),
    }


class AsgiCaller:
    """Calls an ASGI application as a WSGI one, on one event loop kept for the whole run (its Redis connection too)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.loop = asyncio.new_event_loop()

    def __call__(self, env: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        body = env["wsgi.input"].read()
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": body, "more_body": False}

        async def send(message: Any) -> None:
            sent.append(message)

        self.loop.run_until_complete(self.app(scope(env["PATH_INFO"], env["QUERY_STRING"], body), receive, send))
        start_response(f"{sent[0]['status']} -", [])
        return [sent[1]["body"]]


def measure(app: WsgiApp, requests: list[tuple[str, str, bytes]], repeat: int, rounds: int = 1) -> tuple[float, float]:
    """(CPU µs, wall µs) per request over `repeat` passes of `requests`: the best of `rounds` rounds, because on a
    shared machine other work only ever adds time."""
    best = (float("inf"), float("inf"))
    for _round in range(rounds):
        cpu0, wall0 = time.process_time(), time.perf_counter()
        for _ in range(repeat):
            for path, query, body in requests:
                line = call(app, environ(path, query, body))
                if not line.startswith("200"):
                    raise RuntimeError(f"{path}: {line}")
        n = repeat * len(requests)
        result = ((time.process_time() - cpu0) / n * 1e6, (time.perf_counter() - wall0) / n * 1e6)
        best = min(best, result)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pushes", type=int, default=640, help="requests of each kind per round")
    parser.add_argument("--rounds", type=int, default=5, help="rounds per figure; the best one is printed")
    parser.add_argument("--profile", help="write a cProfile of the production path's pushes here")
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/tankodrom_bench_h3")
    parser.add_argument("--clickhouse-database", default="tankodrom_bench_h3")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/3")
    parser.add_argument("--root", default=str(ROOT), help="the tree whose code is measured (default: this one)")
    args = parser.parse_args()
    args.workers, args.threads = 1, 1
    env = bench_env(args)
    os.environ.update(env)
    prepare(env, args)
    token = issue_token(env)

    from django.core.handlers.wsgi import WSGIHandler

    from backend.asgi import application as asgi_application

    print(f"code of {sys.modules['backend.asgi'].__file__}", flush=True)
    application = AsgiCaller(asgi_application)
    create = environ("/api/job/create.json", f"api_token={token}", b"{}")
    status: list[str] = []
    answer = b"".join(WSGIHandler()(create, lambda line, _h, _e=None: status.append(line)))
    import json

    (job,) = json.loads(answer)
    query = f"upload_token={job['upload_token']}&api_token={token}"
    data = [t.replace("__TS__", str(1_796_000_000 + i)).encode() for i, t in enumerate(data_templates(7, 300))]
    mon = monitoring_template("sut").replace("__TS__", "1796000000").encode()
    requests = [(f"/api/job/{job['job']}/push_data.json", query, body) for body in data]
    monitoring = [("/api/monitoring/receiver/push", f"job_id={job['job']}&{query}", mon)]
    repeat = max(1, args.pushes // len(requests))

    from backend.tankapi import buffer

    try:
        for name, app in (("production entry", application), ("django handler", WSGIHandler())):
            measure(app, requests[:4] + monitoring, 20)  # warm caches and connections
            data_cpu, data_wall = measure(app, requests, repeat, args.rounds)
            mon_cpu, mon_wall = measure(app, monitoring, args.pushes, args.rounds)
            print(
                f"{name:17s} push_data {data_cpu:6.0f} µs CPU ({data_wall:6.0f} wall)   "
                f"monitoring {mon_cpu:6.0f} µs CPU ({mon_wall:6.0f} wall)",
                flush=True,
            )
            buffer.connection().delete(buffer.STREAM_KEY)
        if args.profile:
            profiler = cProfile.Profile()
            profiler.enable()
            measure(application, requests + monitoring * len(requests), repeat)
            profiler.disable()
            profiler.dump_stats(args.profile)
            print(f"profile of the production entry written to {args.profile}")
    finally:
        buffer.connection().delete(buffer.STREAM_KEY)


if __name__ == "__main__":
    main()
