"""A pandora-like step test against a small service that it overloads, written as a phout file.

No pandora binary can be installed here, so this models one, request by request, with the behaviour field notes
record for Pandora 0.5.29: an open model following a `step` schedule with a fixed pool of instances; a request
that finds no free instance is discarded (tag `discarded`, all zeros, net code 777); a request unanswered after
the timeout ends with net code 110 (HTTP code 0, unmeasured phases as the ±9223372036854775 sentinel); lines
written on completion, so the file is not sorted by time; the time column is the start with 3 decimals.
The service is one FIFO worker with a fixed service time that drops requests which waited 80 % of the client's
timeout (they time out on the client).
So the truth is known: the service keeps up while the planned RPS is below its capacity, and breaks at the first
step above it.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from pathlib import Path

SENTINEL = 9223372036854775


@dataclass(frozen=True)
class SimResult:
    path: Path
    lines: int
    ok: int
    timeouts: int
    discarded: int


def step_levels(start: int, end: int, step: int, level_s: int) -> list[int]:
    return [rps for rps in range(start, end + 1, step) for _ in range(level_s)]


def write_phout(
    path: Path,
    *,
    t0: float,
    planned_per_second: list[int],
    capacity_rps: float,
    instances: int,
    timeout_s: float = 1.0,
    network_s: float = 0.0015,
) -> SimResult:
    service_s = 1.0 / capacity_rps
    busy_until = t0
    in_flight: list[float] = []  # end times of requests holding an instance
    lines: list[tuple[float, str]] = []  # (completion time, line)
    ok = timeouts = discarded = 0
    for second, rps in enumerate(planned_per_second):
        for k in range(rps):
            start = t0 + second + k / rps
            while in_flight and in_flight[0] <= start:
                heapq.heappop(in_flight)
            stamp = f"{start:.3f}"
            if len(in_flight) >= instances:
                discarded += 1
                lines.append((start, f"{stamp}\tdiscarded\t0\t0\t0\t0\t0\t0\t0\t0\t777\t0"))
                continue
            begin = max(start + network_s / 2, busy_until)
            if begin - start >= 0.8 * timeout_s:
                # Deadline propagation: a request that waited most of the client's timeout in the queue is dropped
                # unprocessed, so the service keeps answering at its capacity while the rest time out.
                end = start + timeout_s
                timeouts += 1
                us = int(timeout_s * 1e6)
                lines.append((end, f"{stamp}\tping\t{us}\t120\t15\t{SENTINEL}\t{SENTINEL}\t0\t0\t0\t110\t0"))
            else:
                busy_until = begin + service_s
                end = busy_until + network_s / 2
                if end - start > timeout_s:
                    end = start + timeout_s
                    timeouts += 1
                    us = int(timeout_s * 1e6)
                    lines.append((end, f"{stamp}\tping\t{us}\t120\t15\t{SENTINEL}\t{SENTINEL}\t0\t0\t0\t110\t0"))
                else:
                    ok += 1
                    total_us = round((end - start) * 1e6)
                    latency_us = max(total_us - 160, 1)
                    lines.append((end, f"{stamp}\tping\t{total_us}\t120\t15\t{latency_us}\t25\t0\t0\t0\t0\t200"))
            heapq.heappush(in_flight, end)
    lines.sort(key=lambda item: item[0])  # written on completion, as pandora does
    path.write_text("".join(line + "\n" for _, line in lines))
    return SimResult(path=path, lines=len(lines), ok=ok, timeouts=timeouts, discarded=discarded)
