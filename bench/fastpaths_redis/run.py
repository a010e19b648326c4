"""The tank push's Redis append on the event loop: the hand-written RESP appender (backend/fastpaths/buffer_async.py,
what the ASGI door awaits) against redis-py's asyncio client doing the same append, side by side in one run.

Both send the same command (buffer.AppendCommand: EVALSHA of the append script, its five keys and seven arguments)
and check the reply the same way (buffer.check_append_result), on one uvloop event loop as uvicorn's worker runs it,
against the Redis of REDIS_URL (the stream key is deleted between rounds). Two loads:
  * serial: one append at a time (a quiet worker: each push waits for its own round trip);
  * burst: `--burst` appends started in the same loop turn and awaited together (the tanks' pushes of one second
    arriving at once), repeated.
Measured per append: this process's CPU (user + system: what the worker's loop pays; Redis's own CPU is not in it)
and the wall time. Rounds alternate the two clients (A B A B ...), so a busy moment of the shared machine falls on
both; the table gives the median of the rounds and their spread (min-max).

    source /work/wt/env/<branch>.env   # (or any environment whose REDIS_URL is a Redis of one's own)
    .venv/bin/python bench/fastpaths_redis/run.py [--rounds 7] [--serial 2000] [--burst 100] [--bursts 40]
        [--body-bytes 5000] [--json var/bench/fastpaths_redis.json]
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "backend.settings")

import django  # noqa: E402

django.setup()

import redis  # noqa: E402
import redis.asyncio  # noqa: E402
import uvloop  # noqa: E402
from django.conf import settings  # noqa: E402

from backend.fastpaths.buffer_async import AsyncAppender  # noqa: E402
from backend.tankapi import buffer  # noqa: E402

Append = Callable[[str, int, bytes, str], Awaitable[None]]

COUNTS = (  # the command line's numbers: flag, default, meaning
    ("--rounds", 7, "rounds; each measures both clients under both loads"),
    ("--serial", 2000, "appends one at a time, per round"),
    ("--burst", 100, "appends started together"),
    ("--bursts", 40, "bursts per round"),
    ("--body-bytes", 5000, "the validated rows one push appends"),
)


class RedisPyAppender:
    """buffer_async.AsyncAppender's contract written on redis-py's asyncio client: the same command, the same reply
    check, the same timeouts as buffer.connection()."""

    def __init__(self, url: str) -> None:
        self.client = redis.asyncio.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=1)

    async def append(self, kind: str, test_id: int, body: bytes, token_hash: str = "") -> None:
        command = buffer.AppendCommand.of(kind, test_id, body, token_hash=token_hash)
        try:
            try:
                reply = await self.client.evalsha(
                    buffer._APPEND_SHA.decode(), len(buffer._KEYS), *command.keys_and_args
                )
            except redis.exceptions.NoScriptError:
                reply = await self.client.eval(buffer._APPEND_SCRIPT, len(buffer._KEYS), *command.keys_and_args)
        except redis.RedisError as exc:
            raise buffer.BufferUnavailable(f"the ingest buffer (Redis) is unavailable: {exc}") from exc
        buffer.check_append_result(b":%d" % reply)


async def _serial(append: Append, count: int, body: bytes) -> None:
    for n in range(count):
        await append(buffer.KIND_DATA_ROWS, n, body, "")


async def _burst(append: Append, size: int, bursts: int, body: bytes) -> None:
    for _ in range(bursts):
        await asyncio.gather(*(append(buffer.KIND_DATA_ROWS, n, body, "") for n in range(size)))


async def _measure(run: Callable[[], Awaitable[None]], operations: int) -> tuple[float, float]:
    """(CPU µs, wall µs) per operation of `run`."""
    cpu0, wall0 = time.process_time(), time.perf_counter()
    await run()
    cpu1, wall1 = time.process_time(), time.perf_counter()
    return (cpu1 - cpu0) * 1e6 / operations, (wall1 - wall0) * 1e6 / operations


def _machine() -> str:
    model = next(
        (
            line.split(":", 1)[1].strip()
            for line in subprocess.check_output(["lscpu"], text=True).splitlines()
            if line.startswith("Model name")
        ),
        platform.processor(),
    )
    return f"{model}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}"


async def main(args: argparse.Namespace) -> dict[str, Any]:
    url = str(settings.REDIS_URL)
    sync = redis.Redis.from_url(url)
    body = os.urandom(args.body_bytes // 2).hex().encode()
    clients: dict[str, Append] = {
        "hand-written RESP": AsyncAppender().append,
        "redis-py asyncio": RedisPyAppender(url).append,
    }
    loads: dict[str, tuple[Callable[[Append], Awaitable[None]], int]] = {
        "serial": (lambda a: _serial(a, args.serial, body), args.serial),
        f"burst of {args.burst}": (lambda a: _burst(a, args.burst, args.bursts, body), args.burst * args.bursts),
    }
    for append in clients.values():  # connect, load the script, warm up
        await _burst(append, args.burst, 2, body)
    figures: dict[str, dict[str, list[tuple[float, float]]]] = {load: {name: [] for name in clients} for load in loads}
    for _round in range(args.rounds):
        for load, (run, operations) in loads.items():
            for name, append in clients.items():
                sync.delete(buffer.STREAM_KEY)
                figures[load][name].append(await _measure(functools.partial(run, append), operations))
    sync.delete(buffer.STREAM_KEY, buffer.LAST_PUSH_KEY)
    return {"machine": _machine(), "redis_url": url, "body_bytes": len(body), "rounds": args.rounds, "figures": figures}


def _table(result: dict[str, Any]) -> str:
    lines = [
        f"machine: {result['machine']}; body {result['body_bytes']} B; {result['rounds']} rounds, median (min-max)",
        "| load | client | CPU µs / append | wall µs / append |",
        "|---|---|---|---|",
    ]
    for load, by_client in result["figures"].items():
        for name, rounds in by_client.items():
            cells = []
            for index in (0, 1):
                values = [r[index] for r in rounds]
                cells.append(f"{statistics.median(values):.1f} ({min(values):.1f}-{max(values):.1f})")
            lines.append(f"| {load} | {name} | {cells[0]} | {cells[1]} |")
    return "\n".join(lines)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for flag, default, meaning in COUNTS:
        parser.add_argument(flag, type=int, default=default, help=meaning)
    parser.add_argument("--json", type=Path, default=ROOT / "var" / "bench" / "fastpaths_redis.json")
    arguments = parser.parse_args()
    outcome = uvloop.run(main(arguments))
    arguments.json.parent.mkdir(parents=True, exist_ok=True)
    arguments.json.write_text(json.dumps(outcome, indent=1))
    print(_table(outcome))
