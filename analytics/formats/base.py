"""What every result-file parser shares: blocks of whole records in, `PhoutBatch`es out, bad lines named.

Each format (jtl_csv, jtl_xml, k6_json, k6_csv, gatling) turns another generator's per-request file into the same
batches analytics.phout makes of phout, so the upload pipeline stores, aggregates and reports them alike. A parser
here is fed the (decompressed) bytes of the file in any pieces, cuts them into blocks of whole records (16 MB), and
parses each block; memory is bounded by the block, never by the file.

Bad records are treated as phout treats bad lines: counted, the first few named with their line numbers and the
reason, the good ones kept; a file that is mostly bad is refused as a whole (`refusal`), and the upload pipeline
then stores nothing of it.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from typing import ClassVar

import numpy as np

from analytics.formats.instances import ActiveInstances
from analytics.phout import (
    DEFAULT_BLOCK_BYTES,
    INT_COLUMNS,
    MAX_BAD_EXAMPLES,
    NO_CASE,
    BatchParser,
    NotPhout,
    SupportsReadinto,
    _batch,
)
from analytics.schema.samples import MAX_RECEIVE_SEC, MIN_SEND_TS_US, VALUE_RANGES, PhoutBatch

US_PER_MS = 1000
US_PER_S = 1_000_000
# A record may span this many blocks (and this many bytes) before the input is judged not to be the format at all:
# a file without line ends must not be gathered in memory.
MAX_RECORD_BLOCKS = 4
MAX_RECORD_BYTES = 64 * 1024 * 1024
_RANGES = tuple(VALUE_RANGES[name] for name in INT_COLUMNS)


class NotThisFormat(NotPhout):
    """The input is refused as a whole: not the format it was taken for (or mostly bad records)."""


class Rows:
    """Requests of one block gathered as Python values, then made one batch (the slow paths' builder)."""

    def __init__(self) -> None:
        self.send_ts_us: list[int] = []
        self.case_codes: list[int] = []
        self.ints: list[tuple[int, ...]] = []

    def __len__(self) -> int:
        return len(self.send_ts_us)

    def add(self, send_ts_us: int, case_code: int, ints: tuple[int, ...]) -> str | None:
        """Keep one request (ints: phout's ten integer columns, interval_real first); the reason if it cannot be."""
        for name, value, (low, high) in zip(INT_COLUMNS, ints, _RANGES, strict=True):
            if not low <= value <= high:
                return f"{name} {value} is out of range {low}..{high}"
        receive_sec = (send_ts_us + ints[0]) // US_PER_S
        if send_ts_us < MIN_SEND_TS_US or receive_sec > MAX_RECEIVE_SEC:
            return f"time {send_ts_us / US_PER_S:.3f} is not a plausible unix time"
        self.send_ts_us.append(send_ts_us)
        self.case_codes.append(case_code)
        self.ints.append(ints)
        return None

    def batch(self) -> PhoutBatch | None:
        if not self.send_ts_us:
            return None
        send = np.array(self.send_ts_us, dtype=np.int64)
        ints = np.array(self.ints, dtype=np.int64).reshape(len(self.ints), len(INT_COLUMNS))
        columns = {name: ints[:, i] for i, name in enumerate(INT_COLUMNS)}
        receive_sec = (send + columns["interval_real"]) // US_PER_S
        return _batch(send, receive_sec, np.array(self.case_codes, dtype=np.int32), columns)


def request_ints(
    interval_real_us: int,
    *,
    connect_us: int = 0,
    send_us: int = 0,
    latency_us: int = 0,
    receive_us: int = 0,
    size_out: int = 0,
    size_in: int = 0,
    net_code: int = 0,
    proto_code: int = 0,
) -> tuple[int, ...]:
    """phout's ten integer columns of one request, in phout's order (interval_event is always 0 here)."""
    return (interval_real_us, connect_us, send_us, latency_us, receive_us, 0, size_out, size_in, net_code, proto_code)


class RecordParser(BatchParser):
    """Feed bytes (`feed`, then `finish`), or `read_from` a stream; batches come out as blocks complete.

    Subclasses parse a block of whole records (`_parse_records`) and may say where records end (`_record_end`:
    after the last line end by default; a quoting format must not cut inside a quoted value).
    """

    name: ClassVar[str] = ""  # the format's name, as the `format` parameter spells it
    title: ClassVar[str] = ""  # how messages name it
    shape: ClassVar[str] = ""  # what its lines look like, for the refusal of a file that is not this format

    def __init__(self, block_bytes: int = DEFAULT_BLOCK_BYTES, max_bad_examples: int = MAX_BAD_EXAMPLES) -> None:
        super().__init__(block_bytes, max_bad_examples)
        self._buf = bytearray()
        self._next_line = 1  # number of the first line in the buffer
        self.fatal: str | None = None  # set when the file cannot be read on from some point (refused as a whole)
        self.instances = ActiveInstances()  # the active threads/VUs/users the file states, if it does
        self._started = False

    # ── input ───────────────────────────────────────────────────────────────────────────────────────────────
    def feed(self, data: bytes | bytearray | memoryview) -> list[PhoutBatch]:
        if self.fatal:
            return []
        if not self._started and data:
            self._started = True
            self.fatal = self._refuse_start(bytes(data[:64]))
            if self.fatal:
                return []
        self._buf += data
        batches: list[PhoutBatch] = []
        while len(self._buf) >= self.block_bytes and (batch := self._parse_complete(final=False)) is not None:
            batches += batch
        if len(self._buf) > max(MAX_RECORD_BLOCKS * self.block_bytes, MAX_RECORD_BYTES):
            self.fatal = f"line {self._next_line} is longer than {len(self._buf)} bytes: this is not {self.title}"
            self._buf.clear()
        return batches

    def parse_buffered(self) -> list[PhoutBatch]:
        """The batches of every whole record fed so far, without waiting for a full block (a file that is still
        being written, followed as it grows: tankodrom_cli/follow.py)."""
        if self.fatal or not self._buf:
            return []
        return self._parse_complete(final=False) or []

    def read_from(self, stream: SupportsReadinto, early_verdict_lines: int | None = None) -> Iterator[PhoutBatch]:
        """Parse a whole binary stream; with `early_verdict_lines`, raise NotThisFormat as soon as that many
        records are in and most are bad."""
        piece = bytearray(self.block_bytes)
        with memoryview(piece) as view:
            while True:
                n = stream.readinto(view)
                if not n:
                    break
                yield from self.feed(view[:n])
                judged = early_verdict_lines is not None and self.stats.lines_total >= early_verdict_lines
                if (judged and self.refusal()) or self.fatal:
                    raise NotThisFormat(self.refusal() or str(self.fatal))
        yield from self.finish()

    def finish(self) -> list[PhoutBatch]:
        """The end of the input: parse what is left, a last record without its line end included."""
        if self.fatal:
            return []
        batches = self._parse_complete(final=True) or []
        batches += self._parse_end()
        return batches

    def refusal(self) -> str | None:
        """Why the file is refused as a whole (None if it is accepted)."""
        if self.fatal:
            return self.fatal
        if self.stats.lines_total == 0:
            return f"the file holds no {self.title} records"
        if self.stats.lines_bad * 2 > self.stats.lines_total:
            first = "; ".join(f"line {b.line}: {b.reason}" for b in self.stats.bad_examples[:3])
            return (
                f"this does not look like {self.title}: {self.stats.lines_bad} of {self.stats.lines_total} "
                f"records are not {self.shape}; {first}"
            )
        return None

    # ── cases and bad records ───────────────────────────────────────────────────────────────────────────────
    def no_case_code(self) -> int:
        return self.case_code(NO_CASE)

    # ── blocks ──────────────────────────────────────────────────────────────────────────────────────────────
    def _parse_complete(self, *, final: bool) -> list[PhoutBatch] | None:
        end = len(self._buf) if final else self._record_end(self._buf)
        if end <= 0:
            return None
        with memoryview(self._buf) as view:
            block = bytes(view[:end])  # one copy (a slice of the bytearray, then bytes of it, made two)
        del self._buf[:end]
        first_line = self._next_line
        self._next_line += block.count(b"\n")
        batch = self._parse_records(block, first_line, final=final)
        return [] if batch is None else [batch]

    def _refuse_start(self, head: bytes) -> str | None:
        """Why the first bytes of the input show at once that it cannot be read (None: go on)."""
        return None

    def _record_end(self, buf: bytearray) -> int:
        """Bytes of whole records at the start of `buf` (0: none yet)."""
        return buf.rfind(b"\n") + 1

    def _parse_records(self, block: bytes, first_line: int, *, final: bool) -> PhoutBatch | None:
        raise NotImplementedError

    def _parse_end(self) -> list[PhoutBatch]:
        """Requests a format holds back across blocks (k6's siblings), released at the end of the input."""
        return []


class BadCsv(ValueError):
    """A line the csv module cannot read (a stray carriage return or quote); the message says why."""


def csv_record(text: str, delimiter: str = ",") -> list[str]:
    """The fields of one CSV line; BadCsv instead of the csv module's own error, which no caller expects."""
    try:
        return next(csv.reader([text], delimiter=delimiter), [])
    except csv.Error as exc:
        raise BadCsv(f"not CSV: {exc}") from None


def split_lines(block: bytes, first_line: int) -> Iterator[tuple[int, bytes]]:
    """(line number, line without its line end) of each non-blank line of a block."""
    line_no = first_line - 1
    for raw in block.split(b"\n"):
        line_no += 1
        line = raw[:-1] if raw.endswith(b"\r") else raw
        if line.strip():
            yield line_no, line
