"""Gatling 3.13+'s binary simulation.log written from its documented layout, for the tests' fixtures.

A port of gatling-core's writer (`LogFileDataWriter.scala`: BufferedFileChannelWriter and the RUN, USER, REQUEST,
GROUP and ERROR serializers; checked at v3.13.0 to v3.15.1 and main), so that every fixture is made here from the
layout analytics/formats/gatling_binary.py documents, never copied from a run. Strings are stored as the JVM holds
them (StringInternals: the value bytes and the coder): LATIN1 when every char fits a byte (compact strings, the
JVM's default), else UTF16 in native (little-endian) order. `sample_run()` makes the run each layout's fixture holds.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

RUN, REQUEST, USER, GROUP, ERROR = 0, 1, 2, 3, 4
LONG_MIN = -(2**63)
RUN_START_MS = 1_700_000_000_000  # 2023-11-14T22:13:20Z

# Each layout revision of the writer, by the last release that writes it: 3.13.0 pickles the RUN record's assertions
# with boopickle's defaults, 3.13.1 on with Gatling's own picklers (inside the same length-prefixed blob); the record
# layout is the same in all of them. One fixture per release line.
VERSIONS = ("3.13.0", "3.13.5", "3.14.9", "3.15.1")


def to_int32(value: int) -> int:
    return (value + 2**31) % 2**32 - 2**31


@dataclass
class SimulationLog:
    """Records written one by one (`user`, `request`, `group`, `error`), as Gatling's DataWriter does."""

    version: str
    start_ms: int = RUN_START_MS
    simulation: str = "computerdatabase.BasicSimulation"
    description: str = ""
    scenarios: tuple[str, ...] = ("Browse", "Checkout")
    assertions: tuple[bytes, ...] = ()
    out: bytearray = field(default_factory=bytearray)
    _cache: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._byte(RUN)
        self._string(self.version)
        self._string(self.simulation)
        self.out += struct.pack(">q", self.start_ms)
        self._string(self.description)
        self._int(len(self.scenarios))
        for name in self.scenarios:
            self._string(name)
        self._int(len(self.assertions))
        for blob in self.assertions:
            self._int(len(blob))
            self.out += blob

    # ── records ─────────────────────────────────────────────────────────────────────────────────────────────
    def user(self, scenario: str, *, start: bool, at_ms: int) -> None:
        self._byte(USER)
        self._int(self.scenarios.index(scenario))
        self._byte(1 if start else 0)
        self._int(to_int32(at_ms - self.start_ms))

    def request(self, groups: list[str], name: str, start_ms: int, end_ms: int, *, ok: bool, message: str = "") -> None:
        self._byte(REQUEST)
        self._groups(groups)
        self._cached(name)
        self._int(to_int32(start_ms - self.start_ms))
        self._int(to_int32(end_ms - self.start_ms))
        self._byte(1 if ok else 0)
        self._cached(message)

    def incoming(self, name: str, at_ms: int) -> None:
        """An SSE/WebSocket message nobody waited for: SseState/WsState log it with Long.MinValue as the end."""
        self.request([], name, at_ms, LONG_MIN, ok=True)

    def group(self, groups: list[str], start_ms: int, end_ms: int, cumulated_ms: int, *, ok: bool) -> None:
        self._byte(GROUP)
        self._groups(groups)
        self._int(to_int32(start_ms - self.start_ms))
        self._int(to_int32(end_ms - self.start_ms))
        self._int(cumulated_ms)
        self._byte(1 if ok else 0)

    def error(self, message: str, at_ms: int) -> None:
        self._byte(ERROR)
        self._cached(message)
        self._int(to_int32(at_ms - self.start_ms))

    def bytes(self) -> bytes:
        return bytes(self.out)

    # ── BufferedFileChannelWriter ───────────────────────────────────────────────────────────────────────────
    def _byte(self, value: int) -> None:
        self.out.append(value)

    def _int(self, value: int) -> None:
        self.out += struct.pack(">i", value)

    def _string(self, text: str) -> None:
        if not text:
            self._int(0)
            return
        latin1 = all(ord(c) < 256 for c in text)
        value = text.encode("latin-1") if latin1 else text.encode("utf-16-le")
        self._int(len(value))
        self.out += value
        self._byte(0 if latin1 else 1)

    def _cached(self, text: str) -> None:
        index = self._cache.get(text)
        if index is None:
            index = len(self._cache) + 1  # the writer counts from 1 (-0 would be 0)
            self._int(index)
            self._string(text)
            self._cache[text] = index
        else:
            self._int(-index)

    def _groups(self, groups: list[str]) -> None:
        self._int(len(groups))
        for name in groups:
            self._cached(name)


@dataclass(frozen=True)
class Expected:
    """A request as the reader must give it: case, send time (unix µs), interval_real (µs), HTTP code, net code."""

    case: str
    send_us: int
    interval_us: int
    http: int
    net: int


def sample_run(version: str) -> tuple[bytes, list[Expected], list[int]]:
    """The run each layout's fixture holds: its bytes, its requests as the reader gives them, and the active users of
    its seconds 0..3 after the start. Names and messages as Gatling writes them: a check's KO (`… but actually found
    500`), a refused connection, a timeout, a name in Cyrillic (UTF16), one with a tab, nested groups, a GROUP and an
    ERROR record, an incoming WebSocket message; names repeat, so later ones are cached references."""
    t0 = RUN_START_MS
    log = SimulationLog(version, assertions=(b"\x02\x01\x00\x00\x00\x05",) if version == "3.13.0" else ())
    expected: list[Expected] = []

    def request(groups: list[str], name: str, start: int, end: int, ok: bool, message: str, *codes: int) -> None:
        log.request(groups, name, t0 + start, t0 + end, ok=ok, message=message)
        http, net = codes
        case = " / ".join([*groups, name.replace("\t", " ")])
        expected.append(Expected(case, (t0 + start) * 1000, (end - start) * 1000, http, net))

    log.user("Browse", start=True, at_ms=t0 + 10)
    log.user("Checkout", start=True, at_ms=t0 + 20)
    request([], "home", 15, 27, True, "", 200, 0)
    request([], "home", 120, 131, True, "", 200, 0)
    request([], "search café", 200, 245, True, "", 200, 0)
    request(["Checkout", "Payment"], "pay", 400, 1480, True, "", 200, 0)
    log.user("Browse", start=True, at_ms=t0 + 1100)
    found = "status.find.in([200, 209], 304), found 500"
    request([], "home", 1200, 1212, False, found, 500, 0)
    request([], "заказ №1", 1300, 1333, True, "", 200, 0)
    request([], "tab\tname", 1400, 1401, True, "", 200, 0)
    log.group(["Checkout", "Payment"], t0 + 400, t0 + 1480, 1080, ok=True)
    refused = "j.n.ConnectException: Connection refused: localhost/127.0.0.1:8080"
    request([], "home", 2000, 2002, False, refused, 0, 111)
    log.error(refused, t0 + 2002)
    log.incoming("ws message", t0 + 2100)
    timeout = "i.g.h.c.i.RequestTimeoutException: Request timeout to localhost/127.0.0.1:8080 after 60000 ms"
    request([], "home", 2500, 3900, False, timeout, 0, 110)
    request([], "home", 3000, 3005, True, "", 200, 0)
    log.user("Browse", start=False, at_ms=t0 + 3100)
    # Users: Browse at 0.010 s, Checkout at 0.020 s, Browse at 1.1 s; one Browse ends at 3.1 s (counted in second 3).
    return log.bytes(), expected, [2, 3, 3, 3]
