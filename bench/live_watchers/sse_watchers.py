"""The watchers' side of both live benches: N SSE connections in one process, each counting the `second` events
it gets, told when to stop (and asked for the counts) over a multiprocessing pipe."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

FRAME = b"\nevent: second\n"

# One watcher: connect, release `ready` once the stream's head is in, then count (count_frames) until closed.
Watch = Callable[[list[int], int, asyncio.Semaphore], Coroutine[Any, Any, None]]


async def count_frames(reader: asyncio.StreamReader, counts: list[int], index: int) -> None:
    """Count the `second` events of a stream into counts[index] until the server closes it."""
    tail = b""  # a frame may be split across two reads: the last bytes of one are searched with the next
    while chunk := await reader.read(65536):
        data = tail + chunk
        counts[index] += data.count(FRAME)
        tail = data[-(len(FRAME) - 1) :]


def run_watchers(n: int, conn: Any, watch: Watch, poll_s: float) -> None:
    """Start n watchers; say "connected" on `conn` once all are, then answer the next message with the counts."""

    async def main() -> None:
        counts = [0] * n
        ready = asyncio.Semaphore(0)
        tasks = [asyncio.create_task(watch(counts, i, ready)) for i in range(n)]
        for _ in range(n):
            await ready.acquire()
        conn.send("connected")
        while not conn.poll():
            await asyncio.sleep(poll_s)
        conn.recv()
        conn.send(counts)
        for task in tasks:
            task.cancel()

    asyncio.run(main())
