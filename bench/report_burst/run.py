"""A link to a report posted in a busy chat: `--users` people open it within `--spread-s` seconds.

Builds, in databases of its own (PostgreSQL `tk_report_burst`, ClickHouse `tankodrom_report_burst`, Redis db 5 or
REPORT_BURST_REDIS_URL),
one finished test with `--lines` raw phout rows (an uploaded test, 10 cases, a ramp), post-processed as the worker
would (its default views warmed), then starts the app as deploy/ runs it (gunicorn with deploy/gunicorn.conf.py,
uvicorn workers) and nginx in front of it (deploy/proxy.sh, as `make run` does), and replays against each what a
browser with an empty cache fetches when it opens `/<id>`: the page, its assets (the app's script and style, the
chart chunk), then the API calls the page does not carry in itself (backend/web/first_screen.py; the bench reads
which from the page, so it asks what a browser would), six connections per user as a browser uses. Each user starts
at a uniformly random moment within the spread; a page's time runs from its first request to its last answer.

Baseline, in the same run against the same server: the same users with the same arrival, each fetching a static
file (the app's stylesheet) as many times as a page makes requests: what the server (WhiteNoise on the bare app,
nginx through the proxy) and this load generator cost for that many requests when the answer costs nothing.

`--runs N` repeats each burst N times in a row (the proxy's cache emptied before each proxied one, so each starts
cold). The measured phases hold the exclusive benchmark lock (/tmp/tankodrom-bench.lock); building the data does not.

    .venv/bin/python bench/report_burst/run.py --lines 1000000 --runs 3
    .venv/bin/python bench/report_burst/run.py --lines 1000000 --targets proxy --users 1000 --spread-s 30
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import json
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import h11

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from bench import support  # noqa: E402  (the repository's root is on the path only from here)

PY = ROOT / ".venv/bin/python"
PG_DB = "tk_report_burst"
CH_DB = "tankodrom_report_burst"
REDIS_URL = os.environ.get("REPORT_BURST_REDIS_URL", "redis://127.0.0.1:6379/5")
CONNECTIONS_PER_USER = 6  # what a browser opens to one host


def _report_api() -> Any:
    """bench/report_api/run.py's data builders (a ramp of raw samples and their per-second rows)."""
    spec = importlib.util.spec_from_file_location("report_api_run", ROOT / "bench/report_api/run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def app_env(var_dir: Path) -> dict[str, str]:
    return support.app_env(PG_DB, CH_DB, REDIS_URL, var_dir, CELERY_BROKER_URL=REDIS_URL)


def build_test(lines: int, env: dict[str, str]) -> int:
    """The finished test with `lines` raw rows, its default views warmed; its id."""
    support.recreate_postgres_database(PG_DB)
    os.environ.update(env)
    import django

    django.setup()
    import numpy as np
    from django.contrib.auth.models import User
    from django.core.cache import cache
    from django.core.management import call_command

    from backend.clickhouse import migrate
    from backend.loadtests.models import Test, TestStatus, Upload, UploadStatus
    from backend.reports.tasks import postprocess_test
    from backend.testing import drop_database

    call_command("migrate", verbosity=0)
    call_command("collectstatic", "--noinput", verbosity=0)
    drop_database()
    migrate.apply_all()
    cache.clear()
    builders = _report_api()
    owner = User.objects.create_user("bench")
    test = Test.objects.create(owner=owner, name="release 1.2 vs prod", status=TestStatus.READY, component="api")
    upload = Upload.objects.create(test=test, status=UploadStatus.READY)
    t0 = 1_790_000_000
    seconds = max(60, lines // 10_000)
    cols, cases = builders._sample_columns(np.random.default_rng(19), lines, t0, seconds, 10)
    builders._store_upload(test.pk, upload.pk, cols, cases)
    first, last = int(cols.receive_sec.min()), int(cols.receive_sec.max())
    Test.objects.filter(pk=test.pk).update(active_upload=upload, first_ts=first, last_ts=last)
    postprocess_test(test.pk)
    return int(test.pk)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def gunicorn(env: dict[str, str], port: int, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    cmd = [str(ROOT / ".venv/bin/gunicorn"), "-c", str(ROOT / "deploy/gunicorn.conf.py")]
    cmd += ["--bind", f"127.0.0.1:{port}"]
    proc = subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    try:
        from backend.testing import port_answers, wait_until_up

        wait_until_up(proc, lambda: port_answers(port), 60, lambda: f"gunicorn did not start; see {log}", poll_s=0.2)
        yield proc
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@contextlib.contextmanager
def proxy(env: dict[str, str], port: int, upstream_port: int, var_dir: Path) -> Iterator[Callable[[], None]]:
    """nginx in front of the app as deploy/proxy.sh runs it; yields what restarts it with an empty cache."""
    proxy_dir = var_dir / "nginx"
    proxy_env = {**env, "TANKODROM_PROXY_DIR": str(proxy_dir)}
    script = str(ROOT / "deploy/proxy.sh")

    def up() -> None:
        subprocess.run([script, "up", f"127.0.0.1:{port}", f"127.0.0.1:{upstream_port}"], env=proxy_env, check=True)

    def cold() -> None:
        # nginx keeps its cache's index in shared memory: stop it, empty the directory, start it again.
        subprocess.run([script, "down"], env=proxy_env, check=False)
        shutil.rmtree(proxy_dir / "cache", ignore_errors=True)
        up()

    shutil.rmtree(proxy_dir / "cache", ignore_errors=True)
    up()
    try:
        yield cold
    finally:
        subprocess.run([script, "down"], env=proxy_env, check=False)


# ── the load generator: asyncio connections speaking HTTP/1.1 through h11 ─────────────────────────────────────


class Connection:
    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.conn = h11.Connection(h11.CLIENT)

    async def get(self, target: str) -> tuple[int, int]:
        """(status, body bytes) of GET target; reconnects when the server closed the connection."""
        if self.writer is None or self.conn.our_state is not h11.IDLE:
            await self._connect()
        assert self.reader is not None and self.writer is not None
        request = h11.Request(
            method="GET",
            target=target,
            headers=[("Host", "127.0.0.1"), ("Accept", "*/*"), ("Accept-Encoding", "gzip, deflate, br")],
        )
        self.writer.write(self.conn.send(request) + self.conn.send(h11.EndOfMessage()))
        status, size = 0, 0
        while True:
            event = self.conn.next_event()
            if event is h11.NEED_DATA:
                self.conn.receive_data(await self.reader.read(65536))
            elif isinstance(event, h11.Response):
                status = event.status_code
            elif isinstance(event, h11.Data):
                size += len(event.data)
            elif isinstance(event, h11.EndOfMessage):
                break
            elif isinstance(event, h11.ConnectionClosed):
                raise ConnectionError("closed mid-answer")
        if self.conn.our_state is h11.DONE and self.conn.their_state is h11.DONE:
            self.conn.start_next_cycle()
        return status, size

    async def _connect(self) -> None:
        await self.close()
        self.conn = h11.Connection(h11.CLIENT)
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(Exception):
                await self.writer.wait_closed()
            self.writer = None


@dataclass
class Outcome:
    page_s: list[float] = field(default_factory=list)
    request_s: list[float] = field(default_factory=list)
    by_kind: dict[str, list[float]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    requests: int = 0


async def _fetch_all(port: int, targets: list[str], outcome: Outcome) -> None:
    """Fetch targets over CONNECTIONS_PER_USER connections, as a browser does."""
    queue = list(targets)
    connections = [Connection(port) for _ in range(min(CONNECTIONS_PER_USER, len(targets)))]

    async def work(connection: Connection) -> None:
        while queue:
            target = queue.pop(0)
            started = time.perf_counter()
            try:
                status, _size = await connection.get(target)
            except (OSError, h11.ProtocolError, ConnectionError) as exc:
                outcome.errors.append(f"{target}: {exc!r}")
                continue
            outcome.request_s.append(time.perf_counter() - started)
            kind = re.sub(r"\d+", "N", target.split("?")[0])
            outcome.by_kind.setdefault(kind, []).append(time.perf_counter() - started)
            outcome.requests += 1
            if status != 200:
                outcome.errors.append(f"{target}: {status}")
        await connection.close()

    await asyncio.gather(*(work(c) for c in connections))


async def _user(port: int, delay_s: float, steps: list[list[str]], outcome: Outcome) -> None:
    await asyncio.sleep(delay_s)
    started = time.perf_counter()
    for step in steps:
        await _fetch_all(port, step, outcome)
    outcome.page_s.append(time.perf_counter() - started)


async def _poll_health(port: int, until: asyncio.Event, outcome: Outcome) -> None:
    """A load balancer's health check during the burst: /healthz every 100 ms on one connection."""
    connection = Connection(port)
    while not until.is_set():
        started = time.perf_counter()
        try:
            status, _ = await connection.get("/healthz")
            outcome.request_s.append(time.perf_counter() - started)
            outcome.requests += 1
            if status != 200:
                outcome.errors.append(f"/healthz: {status}")
        except (OSError, h11.ProtocolError, ConnectionError) as exc:
            outcome.errors.append(f"/healthz: {exc!r}")
        await asyncio.sleep(0.1)
    await connection.close()


def burst(
    port: int, users: int, spread_s: float, steps: list[list[str]], seed: int, health: Outcome | None = None
) -> tuple[Outcome, float]:
    rng = random.Random(seed)
    delays = sorted(rng.uniform(0, spread_s) for _ in range(users))
    outcome = Outcome()

    async def main() -> float:
        started = time.perf_counter()
        done = asyncio.Event()
        poller = asyncio.create_task(_poll_health(port, done, health)) if health is not None else None
        await asyncio.gather(*(_user(port, d, steps, outcome) for d in delays))
        done.set()
        if poller is not None:
            await poller
        return time.perf_counter() - started

    import uvloop

    wall_s = uvloop.run(main())
    return outcome, wall_s


def page_api_calls(test_id: int) -> list[str]:
    """What the report page asks the API for on its first screen (the Overview tab), in the app's URLs."""
    return [
        "/api/v1/me",
        f"/api/v1/tests/{test_id}/",
        f"/api/v1/tests/{test_id}/report",
        f"/api/v1/tests/{test_id}/summary",
        f"/api/v1/tests/{test_id}/analysis",
        f"/api/v1/tests/{test_id}/notes",
        *(f"/api/v1/tests/{test_id}/charts/{n}?compress_ratio=auto" for n in ("quantiles", "http_codes", "net_codes")),
    ]


def page_steps(port: int, test_id: int) -> list[list[str]]:
    """What opening /<id> fetches: the page, then its assets, then the API calls whose answers the page does not
    carry (its first-screen script, backend/web/first_screen.py)."""
    import requests

    html = requests.get(f"http://127.0.0.1:{port}/{test_id}", timeout=30).text
    assets = sorted(set(re.findall(r'(?:src|href)="(/static/[^"]+)"', html)))
    carried = re.search(r'<script type="application/json" id="first-screen">(.*?)</script>', html, re.S)
    in_page = set(json.loads(carried.group(1))) if carried else set()
    api = [url for url in page_api_calls(test_id) if url not in in_page]
    return [step for step in ([f"/{test_id}"], assets, api) if step]


def _stats(values_s: list[float]) -> dict[str, float]:
    if not values_s:
        return {}
    ordered = sorted(values_s)

    def pct(p: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(p * len(ordered)))] * 1000, 1)

    return {"p50_ms": pct(0.5), "p95_ms": pct(0.95), "p99_ms": pct(0.99), "max_ms": round(ordered[-1] * 1000, 1)}


def summarize(name: str, outcome: Outcome, wall_s: float) -> dict[str, Any]:
    return {
        "what": name,
        "pages": len(outcome.page_s),
        "requests": outcome.requests,
        "errors": len(outcome.errors),
        "first_errors": outcome.errors[:5],
        "wall_s": round(wall_s, 2),
        "req_per_s": round(outcome.requests / wall_s, 1) if wall_s else 0.0,
        "page": _stats(outcome.page_s),
        "request": _stats(outcome.request_s),
        "by_request": {kind: _stats(values) for kind, values in sorted(outcome.by_kind.items())},
    }


def _vm() -> str:
    """The CPU model, as lscpu names it (the figures depend on it)."""
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    return "unknown"


def measure(
    port: int,
    test_id: int,
    args: argparse.Namespace,
    before_each: Callable[[], None] | None = None,
    health: bool = False,
) -> dict[str, Any]:
    """The static baseline and the report page, `args.runs` times each, against the server on `port`."""
    steps = page_steps(port, test_id)
    per_page = sum(len(s) for s in steps)
    stylesheets = [a for a in (steps[1] if len(steps) > 1 else []) if a.endswith(".css")]
    static = stylesheets[0] if stylesheets else "/static/admin/css/base.css"
    baseline_steps = [[static] * per_page]
    # Warm-up: one page, so that each worker has imported what the views use before the clock runs.
    burst(port, 4, 0.1, steps, args.seed)
    runs = []
    for _ in range(args.runs):
        if before_each is not None:
            before_each()
        polled = Outcome() if health else None
        run: dict[str, Any] = {
            "baseline_static": summarize(
                f"static file {static}", *burst(port, args.users, args.spread_s, baseline_steps, args.seed)
            ),
            "report_page": summarize(
                f"/{test_id} and its requests", *burst(port, args.users, args.spread_s, steps, args.seed, polled)
            ),
        }
        if polled is not None:
            run["healthz_during_report_burst"] = {
                "polls": polled.requests,
                "errors": polled.errors[:5],
                "latency": _stats(polled.request_s),
            }
        runs.append(run)
        page, base = run["report_page"], run["baseline_static"]
        print(
            f"  port {port}: page p95 {page['page'].get('p95_ms')} ms (p50 {page['page'].get('p50_ms')}), "
            f"{page['req_per_s']} req/s, {page['errors']} errors; static baseline page p95 "
            f"{base['page'].get('p95_ms')} ms",
            flush=True,
        )
    return {"requests_per_page": per_page, "steps": steps, "runs": runs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=1_000_000, help="raw phout rows of the test")
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--spread-s", type=float, default=5.0, help="users arrive uniformly within this many s")
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--out", type=Path, help="write the results as JSON here too")
    parser.add_argument("--runs", type=int, default=1, help="bursts in a row against each target")
    parser.add_argument("--reuse", action="store_true", help="measure the test the previous run built")
    parser.add_argument(
        "--targets", default="bare,proxy", help="bare (gunicorn alone), proxy (nginx in front), or both"
    )
    parser.add_argument(
        "--poll-healthz",
        action="store_true",
        help="poll /healthz every 100 ms during the report burst (no Celery worker runs here: it answers 503)",
    )
    args = parser.parse_args()

    var_dir = ROOT / "var" / "bench_report_burst"
    var_dir.mkdir(parents=True, exist_ok=True)
    env = app_env(var_dir)
    built = time.perf_counter()
    saved = var_dir / "built.json"
    if args.reuse:
        test_id = int(json.loads(saved.read_text())["test_id"])
    else:
        test_id = build_test(args.lines, env)
        saved.write_text(json.dumps({"test_id": test_id, "lines": args.lines}))
    print(f"test {test_id}: {args.lines} lines built in {time.perf_counter() - built:.1f} s", flush=True)

    targets = [t.strip() for t in args.targets.split(",") if t.strip()]
    results: dict[str, Any] = {
        "lines": args.lines,
        "users": args.users,
        "spread_s": args.spread_s,
        "workers": "deploy/gunicorn.conf.py (GUNICORN_WORKERS or max(2, cpus)); nginx: 1 worker",
        "cpus": os.cpu_count(),
        "vm": _vm(),
    }
    port = free_port()
    with support.exclusive_lock(), gunicorn(env, port, var_dir / "gunicorn.log"):
        if "bare" in targets:
            print("bare app (gunicorn):", flush=True)
            results["bare"] = measure(port, test_id, args, health=args.poll_healthz)
        if "proxy" in targets:
            proxy_port = free_port()
            with proxy(env, proxy_port, port, var_dir) as cold:
                print("through the proxy (nginx):", flush=True)
                results["proxy"] = measure(proxy_port, test_id, args, before_each=cold)
    print(json.dumps(results, indent=2))
    if args.out:
        args.out.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
