"""A real open-model load test on 127.0.0.1: a tiny single-worker HTTP target and a pandora-like generator.

No pandora binary can be installed here, so this generator behaves like one where the diagnosis cares: it follows
a `step` schedule with a fixed pool of instances, each with its own keep-alive connection; a request due while every
instance is busy is discarded (tag `discarded`, all zeros, net code 777); a request unanswered after the timeout
ends with net code 110 and its connection is dropped; lines are written as requests complete, with the start time
(3 decimals) in the first column, as pandora writes its phout.

The target answers one request at a time and spends `service_s` of wall-clock time on each (sleeping, not
burning CPU, so its capacity does not depend on how busy the machine is): capacity = 1 / service_s RPS.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

REQUEST = b"GET /ping HTTP/1.1\r\nHost: target\r\nUser-Agent: tankodrom-test\r\n\r\n"
RESPONSE = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok"


class Target:
    """One worker: requests queue on a FIFO lock, each holds it for `service_s`.

    Each request ends at an absolute time (the previous end + `service_s`), so timer overshoot does not add up
    and the capacity stays 1 / service_s RPS on a busy machine.
    """

    def __init__(self, service_s: float) -> None:
        self.service_s = service_s
        self._lock = asyncio.Lock()
        self._next_end = 0.0
        self._server: asyncio.Server | None = None
        self.port = 0

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                if not head:
                    break
                async with self._lock:
                    now = asyncio.get_running_loop().time()
                    self._next_end = max(now, self._next_end) + self.service_s
                    await asyncio.sleep(self._next_end - now)
                writer.write(RESPONSE)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


@dataclass
class RunStats:
    ok: int = 0
    timeouts: int = 0
    discarded: int = 0
    lines: list[str] = field(default_factory=list)


class Generator:
    def __init__(self, port: int, instances: int, timeout_s: float) -> None:
        self.port = port
        self.instances = instances
        self.timeout_s = timeout_s
        self.free = instances
        self.idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
        self.stats = RunStats()
        self.tasks: set[asyncio.Task[None]] = set()

    async def _shoot(self, start: float) -> None:
        connect_us = 0
        conn = None
        began = time.time()
        try:
            async with asyncio.timeout(self.timeout_s):
                if self.idle:
                    conn = self.idle.pop()
                else:
                    conn = await asyncio.open_connection("127.0.0.1", self.port)
                    connect_us = round((time.time() - began) * 1e6)
                reader, writer = conn
                writer.write(REQUEST)
                await writer.drain()
                await reader.readuntil(b"\r\n\r\n")
                body = await reader.readexactly(2)
            total_us = round((time.time() - start) * 1e6)
            self.idle.append(conn)
            self.stats.ok += 1
            latency_us = max(total_us - connect_us, 0)
            size_in = len(RESPONSE) - 2 + len(body)
            line = (
                f"{start:.3f}\tping\t{total_us}\t{connect_us}\t0\t{latency_us}\t0\t0\t{len(REQUEST)}\t{size_in}\t0\t200"
            )
        except TimeoutError:
            if conn is not None:
                conn[1].close()  # a connection with a request in flight cannot be reused
            total_us = round((time.time() - start) * 1e6)
            self.stats.timeouts += 1
            line = f"{start:.3f}\tping\t{total_us}\t{connect_us}\t0\t0\t0\t0\t{len(REQUEST)}\t0\t110\t0"
        finally:
            self.free += 1
        self.stats.lines.append(line)

    async def run(self, planned_per_second: list[int]) -> RunStats:
        loop = asyncio.get_running_loop()
        t0_loop = loop.time() + 0.2
        t0_wall = time.time() + 0.2
        for second, rps in enumerate(planned_per_second):
            for k in range(rps):
                offset = second + k / rps
                delay = t0_loop + offset - loop.time()
                if delay > 0:
                    await asyncio.sleep(delay)
                start = t0_wall + offset
                if self.free <= 0:
                    self.stats.discarded += 1
                    self.stats.lines.append(f"{start:.3f}\tdiscarded\t0\t0\t0\t0\t0\t0\t0\t0\t777\t0")
                    continue
                self.free -= 1
                task = asyncio.create_task(self._shoot(start))
                self.tasks.add(task)
                task.add_done_callback(self.tasks.discard)
        if self.tasks:
            await asyncio.wait(set(self.tasks))
        for _, writer in self.idle:
            writer.close()
        return self.stats


async def _serve(service_s: float) -> None:
    target = Target(service_s)
    await target.start()
    print(target.port, flush=True)
    await asyncio.Event().wait()  # until the parent terminates this process


def run_step_test(
    path: Path, planned_per_second: list[int], *, service_s: float, instances: int, timeout_s: float = 1.0
) -> RunStats:
    """Start a fresh target in its own process, shoot the schedule at it, and write the phout to `path`.

    The target runs in another process so that the generator's own work does not eat into its capacity.
    """
    server = subprocess.Popen(
        [sys.executable, "-m", "backend.diagnosis.tests.loadgen", "serve", repr(service_s)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline())
        stats = asyncio.run(Generator(port, instances, timeout_s).run(planned_per_second))
    finally:
        server.terminate()
        server.wait(10)
    path.write_text("".join(line + "\n" for line in stats.lines))
    return stats


if __name__ == "__main__":
    if sys.argv[1:2] == ["serve"]:
        asyncio.run(_serve(float(sys.argv[2])))
    else:  # a quick look by hand: python -m backend.diagnosis.tests.loadgen
        from backend.diagnosis.tests.phout_sim import step_levels

        result = run_step_test(
            Path("/tmp/loadgen.phout"), step_levels(40, 240, 40, 3), service_s=1 / 100, instances=150
        )
        print(f"ok={result.ok} timeouts={result.timeouts} discarded={result.discarded}")
