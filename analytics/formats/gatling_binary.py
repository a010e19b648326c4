"""Gatling's binary `simulation.log` (3.13 and later), read as a stream of records.

Gatling 3.13.0 replaced the text log with a binary one (gatling/gatling commit efd3ec7 "switch to a binary log
file"). The layout below is the writer's, gatling-core `src/main/scala/io/gatling/core/stats/writer/
LogFileDataWriter.scala` (BufferedFileChannelWriter and the *MessageSerializer classes), `RecordHeader.scala` and
`src/main/java/io/gatling/core/stats/writer/StringInternals.java`, read the way gatling-charts `src/main/scala/io/
gatling/charts/stats/LogFileReader.scala` (LogFileParser, FirstPassParser, SecondPassParser) reads it. Checked at
every tag from v3.13.0 to v3.15.1 and at main (8bb193b, 2026-07): the record layout is the same in all of them. The
writer changed twice without touching it: v3.13.1 pickles the RUN record's assertions with Gatling's own picklers
(3.13.0 used boopickle's defaults: other bytes inside the same length-prefixed blob, which is skipped here), and
v3.14.0 fixed the write buffer at 8 KiB (it was `gatling.data.file.bufferSize`). The reader changed in wording
only (v3.13.2, v3.14.2).

Numbers are big-endian (java.nio.ByteBuffer's default): int 4 bytes, long 8, boolean 1 byte (0 false, else true).
- string: int length, 0 for "" (nothing follows); else `length` bytes of the JVM String's internal value and one
  coder byte: 0 LATIN1 (one byte a char), 1 UTF16 (two bytes a char, in the JVM's native order: little-endian on
  x86-64 and arm64, the platforms Gatling runs on);
- cached string: int index, then the string if the index is >= 0 (it is the string's number from then on: the
  writer counts from 1), or nothing if it is negative (the string numbered -index, written before);
- the file: one RUN record, then USER, REQUEST, GROUP and ERROR records, each a header byte and its fields:
  - RUN (0): gatlingVersion, simulationClassName (strings), start (long, unix ms), runDescription (string),
    scenario names (int count, strings), assertions (int count, each an int length and that many bytes);
  - REQUEST (1): groups (int count, cached strings), name (cached string), start, end (ints, ms after the run's
    start), OK (boolean), message (cached string, "" when none);
  - USER (2): scenario (int, its index among the RUN's scenarios), START (boolean; false = END), time (int, ms after
    the run's start);
  - GROUP (3): groups (int count, cached strings), start, end, cumulated response time (ints), OK (boolean);
  - ERROR (4): message (cached string), time (int).
Strings are shown as the reader shows them: line ends and tabs become spaces. A response to an event Gatling did
not send (an SSE or WebSocket message nobody waited for: SseState/WsState log it with `Long.MinValue` as the end)
is written with the end `(Long.MinValue - start).toInt`; Gatling's report leaves these "incoming" records out
(ResultsHolder.addRequestRecord), and so does this reader.

A file cut short (Gatling killed mid-write) ends inside a record: that record is a bad one and the others are kept,
as Gatling's own reader keeps them. Anything else that does not fit the layout (an unknown record kind, a string
longer than MAX_STRING_BYTES, a cached string never written) leaves no way to find the next record: the file is
refused as damaged, naming the record and its byte offset.

Mapping (docs/formats.md), as for the text logs (analytics/formats/gatling.py): the request name under its groups
→ case; the run's start + start → send time; end − start → interval_real; OK → HTTP 200, KO → the code a failed
check names, or a net code from the message; USER START/END → the active users of each second.
"""

from __future__ import annotations

import struct
from typing import ClassVar

from analytics.formats.base import RecordParser, Rows, request_ints
from analytics.formats.gatling import US_PER_MS, case_of, codes_of
from analytics.phout import DEFAULT_BLOCK_BYTES, MAX_BAD_EXAMPLES
from analytics.schema.samples import MIN_SEND_TS_US, PhoutBatch

RUN, REQUEST, USER, GROUP, ERROR = 0, 1, 2, 3, 4
LATIN1, UTF16 = 0, 1
MAX_STRING_BYTES = 1024 * 1024  # no name or message comes near; a larger length means the bytes are not a string
MAX_GROUPS = 1024  # nesting depth of groups
MAX_SCENARIOS = 1 << 20
MAX_ASSERTIONS = 1 << 20
MS_PER_S = 1000
MAX_RUN_START_MS = (2**32 - 1) * MS_PER_S  # a run that starts after 2106 is not a real one (samples' UInt32 seconds)
_INT = struct.Struct(">i")
_LONG = struct.Struct(">q")
_INT32_MIN = -(2**31)
_LONG_MIN = -(2**63)


class _Incomplete(Exception):
    """The buffer ends inside this record: wait for more bytes (or, at the end of the file, it was cut short)."""


class _Damaged(Exception):
    """The bytes do not fit the layout: the records after them cannot be found."""


def to_int32(value: int) -> int:
    """Java's `(long).toInt`: the low 32 bits, signed."""
    return (value + 2**31) % 2**32 - 2**31


def sanitized(text: str) -> str:
    """What Gatling's reader shows of a string (LogFileParser.sanitize): line ends and tabs as spaces."""
    return text.replace("\n", " ").replace("\r", " ").replace("\t", " ")


class _Cursor:
    """Reads the layout's values from a buffer, from `pos` on."""

    def __init__(self, buf: bytes | bytearray, pos: int, cache: dict[int, str]) -> None:
        self.buf = buf
        self.pos = pos
        self.cache = cache

    def take(self, n: int) -> int:
        start = self.pos
        if start + n > len(self.buf):
            raise _Incomplete
        self.pos = start + n
        return start

    def byte(self) -> int:
        return self.buf[self.take(1)]

    def boolean(self) -> bool:
        return self.byte() != 0

    def int32(self) -> int:
        value: int = _INT.unpack_from(self.buf, self.take(4))[0]
        return value

    def int64(self) -> int:
        value: int = _LONG.unpack_from(self.buf, self.take(8))[0]
        return value

    def count(self, what: str, limit: int) -> int:
        n = self.int32()
        if not 0 <= n <= limit:
            raise _Damaged(f"{what} count {n} is not in 0..{limit}")
        return n

    def string(self) -> str:
        length = self.int32()
        if length == 0:
            return ""
        if not 0 < length <= MAX_STRING_BYTES:
            raise _Damaged(f"a string length of {length} bytes (at most {MAX_STRING_BYTES})")
        start = self.take(length)
        coder = self.byte()
        raw = bytes(self.buf[start : start + length])
        if coder == LATIN1:
            return raw.decode("latin-1")
        if coder == UTF16 and length % 2 == 0:
            return raw.decode("utf-16-le", errors="replace")
        raise _Damaged(f"a string coder {coder} with {length} bytes (0: one byte a char, 1: two)")

    def cached_string(self) -> str:
        index = self.int32()
        if index >= 0:
            text = sanitized(self.string())
            self.cache[index] = text
            return text
        text_or_none = self.cache.get(-index)
        if text_or_none is None:
            raise _Damaged(f"cached string {-index} was never written")
        return text_or_none

    def groups(self) -> list[str]:
        return [self.cached_string() for _ in range(self.count("group", MAX_GROUPS))]


class GatlingBinaryParser(RecordParser):
    name: ClassVar[str] = "gatling-binary"
    title: ClassVar[str] = "a Gatling 3.13+ simulation.log"
    shape: ClassVar[str] = "Gatling's binary records (RUN, USER, REQUEST, GROUP, ERROR)"

    def __init__(self, block_bytes: int = DEFAULT_BLOCK_BYTES, max_bad_examples: int = MAX_BAD_EXAMPLES) -> None:
        super().__init__(block_bytes, max_bad_examples)
        self._cache: dict[int, str] = {}
        self._offset = 0  # byte offset in the file of the buffer's first byte
        self._record = 0  # number of the next record (the RUN record is 1)
        self.run_start_ms: int | None = None
        self.gatling_version = ""
        self.scenarios: list[str] = []

    def _refuse_start(self, head: bytes) -> str | None:
        if head[:1] != bytes([RUN]):
            return f"this is not {self.title}: its first byte is not the RUN record's header 0"
        return None

    # Records are found by reading them: the buffer is parsed as far as its last whole record, whatever its size.
    def _parse_complete(self, *, final: bool) -> list[PhoutBatch] | None:
        rows = Rows()
        cursor = _Cursor(self._buf, 0, self._cache)
        done = 0
        try:
            while done < len(self._buf):
                self._record += 1
                try:
                    self._read_record(cursor, rows)
                except _Incomplete:
                    self._record -= 1
                    cursor.pos = done
                    break
                done = cursor.pos
        except _Damaged as exc:
            self.fatal = (
                f"this {self.title} is damaged at record {self._record} (byte {self._offset + done}): {exc}; "
                "the records after it cannot be found, so nothing of the file is stored"
            )
            self._buf.clear()
            return []
        if done == 0 and not final:
            return None  # not one whole record yet
        del self._buf[:done]
        self._offset += done
        if final and self._buf:
            # Gatling was stopped in the middle of writing a record: that record is lost, the others are kept.
            self._record += 1
            self.stats.lines_total += 1
            self.bad(self._record, f"the file ends inside this record ({len(self._buf)} bytes of it)", b"")
            self._offset += len(self._buf)
            self._buf.clear()
        batch = rows.batch()
        return [] if batch is None else [batch]

    def _read_record(self, cursor: _Cursor, rows: Rows) -> None:
        kind = cursor.byte()
        if self.run_start_ms is None:
            if kind != RUN:
                raise _Damaged(f"the first record is of kind {kind}, not RUN (0)")
            self._run(cursor)
            return
        if kind == REQUEST:
            self._request(cursor, rows)
        elif kind == USER:
            self._user(cursor)
        elif kind == GROUP:
            cursor.groups()
            for _ in range(3):  # start, end, cumulated response time
                cursor.int32()
            cursor.boolean()
        elif kind == ERROR:
            cursor.cached_string()
            cursor.int32()
        else:
            raise _Damaged(f"unknown record kind {kind} (RUN 0, REQUEST 1, USER 2, GROUP 3, ERROR 4)")

    def _run(self, cursor: _Cursor) -> None:
        version = cursor.string()
        cursor.string()  # the simulation's class
        start_ms = cursor.int64()
        cursor.string()  # the run's description
        scenarios = [sanitized(cursor.string()) for _ in range(cursor.count("scenario", MAX_SCENARIOS))]
        for _ in range(cursor.count("assertion", MAX_ASSERTIONS)):
            cursor.take(cursor.count("assertion byte", MAX_STRING_BYTES))
        if not MIN_SEND_TS_US // US_PER_MS <= start_ms <= MAX_RUN_START_MS:
            raise _Damaged(f"the run's start {start_ms} is not a plausible unix time in ms")
        self.gatling_version, self.scenarios, self.run_start_ms = version, scenarios, start_ms

    def _user(self, cursor: _Cursor) -> None:
        assert self.run_start_ms is not None
        cursor.int32()  # the scenario's index
        started = cursor.boolean()
        second = (self.run_start_ms + cursor.int32()) // MS_PER_S
        if started:
            self.instances.user_started(second)
        else:
            self.instances.user_ended(second)

    def _request(self, cursor: _Cursor, rows: Rows) -> None:
        assert self.run_start_ms is not None
        groups = cursor.groups()
        name = cursor.cached_string()
        start, end = cursor.int32(), cursor.int32()
        ok = cursor.boolean()
        message = cursor.cached_string()
        if end == to_int32(_LONG_MIN - self.run_start_ms):
            return  # an incoming message nobody waited for: no response time (Gatling's report leaves it out)
        self.stats.lines_total += 1
        if end < start:
            self.bad(self._record, f"the request ends ({end} ms) before it starts ({start} ms)", f"{name}: {message}")
            return
        proto, net = codes_of("OK" if ok else "KO", message.strip())
        ints = request_ints((end - start) * US_PER_MS, net_code=net, proto_code=proto)
        send_us = (self.run_start_ms + start) * US_PER_MS
        reason = rows.add(send_us, self.case_code(case_of(groups, name)), ints)
        if reason is not None:
            self.bad(self._record, reason, f"{name}: {message}")
