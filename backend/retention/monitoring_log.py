"""A yandex-tank run's monitoring.log (its JsonReport plugin's file) stored as the test's monitoring.

Each line is one chunk of what the tank pushes live (`[{timestamp, data: {host: {metrics: {...}}}}]`, read by
the tank protocol's own parser, analytics.tank_push.parse_monitoring). `monitoring` is a ReplacingMergeTree on
(test, host, metric, second): a file imported twice stores each point once.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from typing import Protocol

from rest_framework.exceptions import ParseError

from analytics.tank_push import PushFormatError, parse_monitoring
from backend.clickhouse.queries import archive as ch
from backend.core.parsers import loads_checked

ROWS_PER_INSERT = 50_000
READ_BYTES = 1024 * 1024


class Readable(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


def lines_of(body: Readable) -> Iterator[bytes]:
    """The body's lines, read in chunks (the WSGI input under the ASGI server has no dependable readline)."""
    rest = b""
    while chunk := body.read(READ_BYTES):
        *lines, rest = (rest + chunk).split(b"\n")
        yield from lines
    if rest:
        yield rest


class MonitoringLogError(ValueError):
    """A line that is not a monitoring chunk; the message names the line."""


def store(test_id: int, lines: Iterable[bytes]) -> int:
    """Parse every line first (nothing is stored if one is bad), then insert; returns the points stored."""
    received_at_us = time.time_ns() // 1000
    rows: list[list[object]] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            chunk = parse_monitoring(loads_checked(line))
        except ParseError as exc:
            raise MonitoringLogError(f"line {number}: {exc}") from None
        except PushFormatError as exc:
            raise MonitoringLogError(f"line {number}: {exc}") from None
        rows.extend([test_id, p.ts, p.host, p.metric, p.value, received_at_us] for p in chunk.points)
    for start in range(0, len(rows), ROWS_PER_INSERT):
        ch.insert_monitoring(rows[start : start + ROWS_PER_INSERT])
    return len(rows)
