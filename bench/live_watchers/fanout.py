"""Server CPU per watcher per event of the online pages' fan-out, in one process, without gunicorn or Django's
request: uvicorn (httptools, uvloop, as the worker runs it) serving the ASGI door's stream (backend.live.sse.LiveDoor)
behind a stand-in for Django's access check; N watchers (raw sockets, another process) and a publisher (PUBLISH of
framed events on the test's channel, another process), so that the CPU measured is the server's alone.

    flock -x /tmp/tankodrom-bench.lock .venv/bin/python bench/live_watchers/fanout.py [--watchers 500] [--events 200]
        [--rate 50] [--profile var/bench/fanout.prof] [--root /work/wt/base]   # the code of another tree

Prints the server process' CPU (user + system) per event and per watcher per event. With --profile, cProfile's
top functions (Python-level: uvloop's and the kernel's part shows only as the time of the calls into them).
For the whole production entry, 5 against 500 watchers at one event per second, use run.py.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import multiprocessing
import os
import pstats
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
_root = sys.argv[sys.argv.index("--root") + 1] if "--root" in sys.argv else str(ROOT)
sys.path.insert(0, _root)

from sse_watchers import count_frames, run_watchers  # noqa: E402

TEST_ID = 424242


async def _watch(port: int, counts: list[int], index: int, ready: asyncio.Semaphore, few: asyncio.Semaphore) -> None:
    async with few:  # a few connecting at a time, as pages open (not a reconnect storm: that is not measured here)
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(f"GET /api/v1/tests/{TEST_ID}/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        await writer.drain()
        await reader.readuntil(b"\r\n\r\n")
    ready.release()
    await count_frames(reader, counts, index)


def watchers(port: int, n: int, conn: Any) -> None:
    few = asyncio.Semaphore(20)  # bound to the watchers' loop on first use (asyncio.run's, in run_watchers)
    run_watchers(n, conn, lambda counts, i, ready: _watch(port, counts, i, ready, few), poll_s=0.05)


def publisher(url: str, channel_name: str, events: int, rate: float) -> None:
    import redis

    conn = redis.Redis.from_url(url)
    start = time.monotonic()
    for n in range(1, events + 1):
        frame = b'id: %d\nevent: second\ndata: {"n": %d, "pad": "%s"}\n\n' % (n, n, b"x" * 300)
        conn.publish(channel_name, frame)
        time.sleep(max(0.0, start + n / rate - time.monotonic()))


def cpu_s() -> tuple[float, float]:
    """(user, system) CPU seconds of this process so far."""
    times = os.times()
    return times.user, times.system


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--watchers", type=int, default=500)
    parser.add_argument("--events", type=int, default=200)
    parser.add_argument("--rate", type=float, default=50.0, help="events per second")
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/3"))
    parser.add_argument("--profile", default=None)
    parser.add_argument("--root", default=None)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "backend.settings")
    import django

    django.setup()
    import uvicorn

    from backend.live import channel
    from backend.live.hub import Hub
    from backend.live.sse import LiveDoor
    from backend.live.views import LIVE_HEADER

    door = LiveDoor(Hub(args.redis_url))

    async def django_stand_in(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        headers = [(LIVE_HEADER.lower().encode(), str(TEST_ID).encode())]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b""})

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                await send({"type": message["type"] + ".complete"})
                if message["type"] == "lifespan.shutdown":
                    return
        await door.serve(scope, receive, send, django_stand_in)

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, loop="uvloop", http="httptools", lifespan="on", log_level="warning")
    server = uvicorn.Server(config)
    database = int(args.redis_url.rsplit("/", 1)[1] or 0)
    name = channel.channel_name(database, TEST_ID)
    result: dict[str, Any] = {}
    profile = cProfile.Profile() if args.profile else None

    def drive() -> None:
        while not server.started:
            time.sleep(0.05)
        parent, child = multiprocessing.Pipe()
        watching = multiprocessing.Process(target=watchers, args=(port, args.watchers, child))
        watching.start()
        assert parent.poll(120), "the watchers did not connect"
        parent.recv()
        time.sleep(1)
        pub = multiprocessing.Process(target=publisher, args=(args.redis_url, name, args.events, args.rate))
        before, wall = cpu_s(), time.monotonic()
        if profile is not None:
            profile.enable()  # (enabled from this thread: it profiles the loop's thread through setprofile below)
        pub.start()
        pub.join()
        time.sleep(0.5)
        after = cpu_s()
        result["user_s"], result["system_s"] = after[0] - before[0], after[1] - before[1]
        result["cpu_s"], result["wall_s"] = result["user_s"] + result["system_s"], time.monotonic() - wall
        parent.send("done")
        result["counts"] = parent.recv()
        watching.join(10)
        server.should_exit = True

    threading.Thread(target=drive, daemon=True).start()
    if profile is not None:
        profile.enable()
    server.run(sockets=[sock])
    if profile is not None:
        profile.disable()
        profile.dump_stats(args.profile)
        pstats.Stats(args.profile).sort_stats("tottime").print_stats(25)
    counts = result["counts"]
    cpu_us = result["cpu_s"] * 1e6
    per_event = cpu_us / args.events
    print(f"tree {_root}: {args.watchers} watchers, {args.events} events at {args.rate}/s")
    print(f"server CPU {result['cpu_s']:.3f} s over {result['wall_s']:.1f} s: {per_event:.0f} us per event,")
    user_us, system_us = (result[k] * 1e6 / args.events / args.watchers for k in ("user_s", "system_s"))
    print(f"  {per_event / args.watchers:.1f} us per watcher per event (user {user_us:.1f}, system {system_us:.1f})")
    print(f"watchers with every event: {sum(1 for c in counts if c >= args.events)}/{len(counts)} (min {min(counts)})")


if __name__ == "__main__":
    main()
