"""Streaming phout parser: bytes in (any chunking), numpy column batches out, bad lines counted with numbers.

phout is the per-request log of phantom, pandora and BFG (tank-protocol.md §7): 12 tab-separated columns, no
header, no quoting. The parser is fed the file's bytes in pieces of any size (the caller does the reading and the
gunzipping) and yields `PhoutBatch`es of numpy columns, so memory is bounded by the batch size, never by the file.

Three paths, each block of complete lines (16 MB) taking the first that accepts it whole:
1. analytics/_phout_fast.c, one pass in C over the bytes straight into the batch's columns, for lines in the plain
   shape every generator writes (digits, one tab between fields). It refuses a block rather than judge a line.
2. pyarrow's CSV reader with strict types, for valid lines in other spellings (spaces around numbers, exponents).
3. If anything in the block is off (a field count, a non-number, an empty number, a time out of range, a value
   that does not fit its column in `samples`: see VALUE_RANGES), that block alone is re-parsed line by line in
   Python to find and report the bad lines with their numbers; the good lines of the block are kept.
Real files are clean almost everywhere, so the slower paths cost nothing in practice. Paths 1 and 2 give the same
values for the same line (a test compares them on generated blocks).

Quirks of real files, each with a golden file under analytics/tests/golden/phout/:
- tags are cut at the last '#' (`tag#123` → `tag`), as the tank does; a tag that becomes empty by the cut (`#3`) is
  the tank's `__NOTAG__` case, while a request with an empty tag belongs to no case (overall only). `cases` holds
  the case name per code, with '' for "no case", which is also what we store in `samples.tag`;
- out-of-order lines (pandora writes on completion): nothing here assumes order;
- pandora's ±9223372036854775 sentinels in connect/latency/receive on timeouts: those columns are signed 64-bit;
- all-zero `discarded` rows with net code 777: parsed as they are (the aggregator keeps them out of timings);
- BFG files with only interval_real and the HTTP code: ordinary rows with zeros;
- a truncated last line (no line end): kept if it still parses as a full line, otherwise reported as bad;
- a value that does not fit its column in `samples` (an interval_real over ~71 min, a size over 4 GiB, a code
  outside Int16, a negative size): a bad line naming the field and its range, never a wrapped value;
- CRLF line ends: the '\r' is dropped; blank lines are skipped (the tank's reader skips them too).

What a file may cost (each one's work is bounded by its useful lines, whatever it holds; see `not_phout_error`):
- a send time before 2000-01-01 (MIN_SEND_TS) or a response second beyond UInt32 (MAX_RECEIVE_SEC, year 2106) is a
  bad line: no generator writes one, and one such line stretched a report over 56 years;
- blank lines beyond BLANK_LINES_FREE that outnumber the phout lines refuse the file: 1 GiB of line ends in a 1 MB
  gzip would keep a worker busy for minutes;
- a line longer than MAX_LINE_BYTES refuses the file (a phout line is ~100 bytes; the buffer would grow with it);
- a bad line's text is kept with control characters escaped (a NUL as `\\x00`): PostgreSQL's text cannot hold a NUL.
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.csv as pacsv

from analytics import kernels
from analytics.cases import CUT_MARK as CUT_MARK
from analytics.cases import NO_CASE as NO_CASE
from analytics.cases import OTHER_CASES as OTHER_CASES
from analytics.cases import CaseNames
from analytics.cases import cut_label as cut_label
from analytics.numbers import NotANumber, parse_float, parse_int
from analytics.schema.samples import (
    COLUMNS,
    INTEGER_COLUMNS,
    MAX_RECEIVE_SEC,
    MIN_SEND_TS,
    MIN_SEND_TS_US,
    VALUE_RANGES,
    PhoutBatch,
)

# yandex-tank's `phout_columns`, in its order.
PHOUT_COLUMNS = tuple(c.phout for c in COLUMNS if c.phout)
INT_COLUMNS = PHOUT_COLUMNS[2:]
FIELD_COUNT = len(PHOUT_COLUMNS)

# A value that does not fit its column of `samples` (VALUE_RANGES, analytics/schema/samples.py) makes its line bad
# here, like any other bad line: never stored wrapped. The columns narrower than int64 are checked per block by the
# fast path (a min and a max per column).
_NARROW_RANGES = tuple((c.phout, c.range) for c in INTEGER_COLUMNS if c.dtype != np.int64)

NOTAG_CASE = "__NOTAG__"  # the tank's name for a tag that is empty after the cut at the last '#'

# The integer fields' ranges, in phout's order, for the C parser (analytics/_phout_fast.c).
_NATIVE_RANGES = tuple(VALUE_RANGES[name] for name in INT_COLUMNS)
# The shortest line the C parser accepts: "1", an empty tag, ten one-digit integers, tabs and the LF.
MIN_NATIVE_LINE_BYTES = len("1\t\t" + "\t".join("0" * 10) + "\n")

# Blank lines cost the slow path's work but hold nothing: this many are free, more must not outnumber phout lines.
BLANK_LINES_FREE = 100_000
# No phout line comes near this; the parser's buffer would have to grow to hold a longer one.
MAX_LINE_BYTES = 1024 * 1024
# How often (in lines) the slow path re-judges a file it was asked to judge early (`read_from`).
_VERDICT_EVERY_LINES = 16_384
# Bytes of complete lines handed to pyarrow per call: big enough for its threads, small enough to bound memory.
DEFAULT_BLOCK_BYTES = 16 * 1024 * 1024
MAX_CACHED_RAW_TAGS = 100_000
MAX_BAD_EXAMPLES = 10
MAX_EXAMPLE_TEXT = 200

I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]


def case_of_tag(raw_tag: str) -> str:
    """The case a phout tag belongs to, as the tank names it ('' = no case: overall only)."""
    if raw_tag == "":
        return NO_CASE
    cut = raw_tag.rsplit("#", 1)[0]
    return cut if cut else NOTAG_CASE


@dataclass(frozen=True)
class BadLine:
    line: int  # 1-based line number in the (decompressed) file
    reason: str
    text: str  # the start of the line, for the report


@dataclass(frozen=True)
class NativeColumns:
    """The columns the C parser fills (analytics/_phout_fast.c), `outputs()` in its order: a case key index per
    row instead of the case code, which `batch` is then given."""

    send_ts_us: I64
    receive_sec: I64
    case_key: I32
    ints: tuple[npt.NDArray[np.integer[Any]], ...]  # interval_real .. proto_code, at their stored widths

    @staticmethod
    def for_block(block_bytes: int) -> NativeColumns:
        """Room for every line a block of this size can hold (lines are not counted first: that would be one more
        pass over every block)."""
        return NativeColumns.empty(block_bytes // MIN_NATIVE_LINE_BYTES + 1)

    @staticmethod
    def empty(rows: int) -> NativeColumns:
        ints = tuple(np.empty(rows, dtype=c.dtype) for c in INTEGER_COLUMNS)
        return NativeColumns(
            np.empty(rows, dtype=np.int64), np.empty(rows, dtype=np.int64), np.empty(rows, np.int32), ints
        )

    def outputs(self) -> tuple[npt.NDArray[np.integer[Any]], ...]:
        return (self.send_ts_us, self.receive_sec, self.case_key, *self.ints)

    def batch(self, rows: int, case_code_of_key: I32) -> PhoutBatch:
        """The first `rows` rows as a batch, each case key replaced by its case code."""
        ints = {name: column[:rows] for name, column in zip(INT_COLUMNS, self.ints, strict=True)}
        return _batch(self.send_ts_us[:rows], self.receive_sec[:rows], case_code_of_key[self.case_key[:rows]], ints)


@dataclass
class ParseStats:
    lines_total: int = 0  # non-blank lines seen, good and bad
    lines_bad: int = 0
    lines_blank: int = 0
    bad_examples: list[BadLine] = field(default_factory=list)
    labels_cut: int = 0  # distinct case names longer than the parser's label_max_chars, stored cut
    cases_folded: int = 0  # distinct cases past the parser's cases_max, counted under OTHER_CASES

    @property
    def lines_good(self) -> int:
        return self.lines_total - self.lines_bad


def not_phout_error(stats: ParseStats) -> str | None:
    """Why the input is refused as a whole (None if it is phout): no lines at all, mostly lines that are not, or
    mostly blank lines."""
    if error := blank_lines_error(stats):
        return error
    if stats.lines_total == 0:
        return "the file holds no phout lines"
    if stats.lines_bad * 2 > stats.lines_total:
        first = "; ".join(f"line {b.line}: {b.reason}" for b in stats.bad_examples[:3])
        return (
            f"this does not look like phout: {stats.lines_bad} of {stats.lines_total} lines are not phout "
            f"(12 tab-separated columns: time, tag, 8 times/sizes, net code, HTTP code); {first}"
        )
    return None


def blank_lines_error(stats: ParseStats) -> str | None:
    """Why the input is refused for its blank lines: more than BLANK_LINES_FREE, and more than its phout lines
    (so far, when judged early: they cost work and hold nothing)."""
    if stats.lines_blank > BLANK_LINES_FREE and stats.lines_blank > stats.lines_good:
        return (
            f"the file holds {stats.lines_blank} blank lines for {stats.lines_good} phout lines: refused "
            f"(more than {BLANK_LINES_FREE} blank lines, and more than the phout lines)"
        )
    return None


_ARROW_TYPES = {"send_ts": pa.float64(), "tag": pa.binary(), **{name: pa.int64() for name in INT_COLUMNS}}


class NotPhout(ValueError):
    """The input is refused as a whole (see not_phout_error)."""


class SupportsReadinto(Protocol):
    def readinto(self, buffer: memoryview, /) -> int | None: ...


class _BlockInvalid(Exception):
    """The fast path refused a block; it is re-parsed line by line."""


class _CaseNamesLimit:
    """A limit of the parser's CaseNames (None: none), read and set as the parser's attribute of the same name."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, parser: BatchParser, owner: type | None = None) -> int | None:
        limit: int | None = getattr(parser._case_names, self.name)
        return limit

    def __set__(self, parser: BatchParser, value: int | None) -> None:
        setattr(parser._case_names, self.name, value)


class BatchParser:
    """What every result-file parser keeps as it reads (this one, analytics.formats.base.RecordParser): its line
    counts with the first bad lines named, and the code of each case name its batches' `case_codes` index."""

    def __init__(self, block_bytes: int = DEFAULT_BLOCK_BYTES, max_bad_examples: int = MAX_BAD_EXAMPLES) -> None:
        self.block_bytes = block_bytes
        self.max_bad_examples = max_bad_examples
        self.stats = ParseStats()
        # The case names and their cardinality limits (analytics.cases, the rule the tank's stream applies too),
        # set by the caller (backend: settings.TANKODROM_LABEL_MAX_CHARS and TANKODROM_CASES_MAX); counted in
        # stats.labels_cut and stats.cases_folded.
        self._case_names = CaseNames(counts=self.stats)

    @property
    def cases(self) -> list[str]:
        """The case names as stored; a batch's `case_codes` index them."""
        return self._case_names.cases

    label_max_chars = _CaseNamesLimit()
    cases_max = _CaseNamesLimit()

    def case_code(self, case: str) -> int:
        """The code of a case name (its index in `cases`); a new name is cut and, past cases_max, folded."""
        return self._case_names.code(case)

    def bad(self, line_no: int, reason: str, text: bytes | str) -> None:
        """Count a bad line; the first few are kept with their number, the reason and the start of the text."""
        self.stats.lines_bad += 1
        if len(self.stats.bad_examples) < self.max_bad_examples:
            if isinstance(text, bytes):
                text = text[:MAX_EXAMPLE_TEXT].decode("utf-8", errors="replace")
            self.stats.bad_examples.append(
                BadLine(line=line_no, reason=reason, text=_printable(text[:MAX_EXAMPLE_TEXT]))
            )


class PhoutParser(BatchParser):
    """Feed bytes with `feed()`, then call `finish()`; each returns the batches completed so far."""

    def __init__(self, block_bytes: int = DEFAULT_BLOCK_BYTES, max_bad_examples: int = MAX_BAD_EXAMPLES) -> None:
        super().__init__(block_bytes, max_bad_examples)
        self._raw_tag_codes: dict[bytes, int] = {}
        # Bytes not parsed yet live at the start of one reused buffer: a file is read straight into it
        # (`read_from`), blocks go to pyarrow as views of it, and only the partial line after a block's last
        # '\n' moves: no block is copied.
        self._buf = bytearray(block_bytes)
        self._filled = 0
        self._next_line = 1  # number of the first line in the buffer
        self._bytes_per_line = float(MIN_NATIVE_LINE_BYTES)  # of the last block the C parser took
        self._verdict_lines: int | None = None  # judge the input early, from this many lines on (`read_from`)

    # ── public ──────────────────────────────────────────────────────────────────────────────────────────────
    def feed(self, data: bytes) -> list[PhoutBatch]:
        """Take the next bytes of the input (any chunking); returns the batches of the blocks completed."""
        end = self._filled + len(data)
        if end > len(self._buf):
            self._resize(max(end, self.block_bytes))
        self._buf[self._filled : end] = data
        self._filled = end
        batches: list[PhoutBatch] = []
        while self._filled >= self.block_bytes and (batch := self._parse_through_last_line()) is not None:
            batches += batch
        return batches

    def parse_buffered(self) -> list[PhoutBatch]:
        """The batches of every whole line fed so far, without waiting for a full block (a file that is still being
        written, followed as it grows: tankodrom_cli/follow.py)."""
        return self._parse_through_last_line() or []

    def read_from(self, stream: SupportsReadinto, early_verdict_lines: int | None = None) -> Iterator[PhoutBatch]:
        """Parse a whole binary stream (a file, a GzipFile), then `finish()`; yields batches as blocks complete.

        With `early_verdict_lines`, raises NotPhout as soon as that many lines are in and most are not phout,
        instead of reading gigabytes of something else line by line.
        """
        self._verdict_lines = early_verdict_lines
        while True:
            if self._filled == len(self._buf):
                # A full buffer is one block; if it holds no line end at all, the line is longer than a block.
                batch = self._parse_through_last_line()
                if batch is None:
                    self._grow_for_a_long_line()
                else:
                    yield from batch
                self._judge_early()
                continue
            with memoryview(self._buf) as view:
                n = stream.readinto(view[self._filled :])
            if not n:
                break
            self._filled += n
        yield from self.finish()

    def _judge_early(self) -> None:
        """With an early verdict asked for (`read_from`), refuse the input as soon as the lines seen show it."""
        if self._verdict_lines is None:
            return
        error = blank_lines_error(self.stats)
        if error is None and self.stats.lines_total >= self._verdict_lines:
            error = not_phout_error(self.stats)
        if error:
            raise NotPhout(error)

    def _grow_for_a_long_line(self) -> None:
        if len(self._buf) >= max(self.block_bytes, MAX_LINE_BYTES):
            raise NotPhout(f"line {self._next_line} is longer than {MAX_LINE_BYTES} bytes: this is not phout")
        self._resize(2 * len(self._buf))

    def finish(self) -> list[PhoutBatch]:
        """The end of the input: parse what is left, including a last line without its line end."""
        batches: list[PhoutBatch] = []
        if self._buf.rfind(b"\n", 0, self._filled) >= 0:
            batches += self._parse_through_last_line() or []
        tail = bytes(self._buf[: self._filled])
        self._filled = 0
        if tail.strip():
            # No line end after it: the writer was cut off. Keep it only if it is still a whole line.
            batch = self._parse_lines_slowly(tail, truncated=True)
            if batch is not None:
                batches.append(batch)
        return batches

    def _parse_through_last_line(self) -> list[PhoutBatch] | None:
        """Parse the buffer up to its last line end and keep the rest; None when it holds no line end."""
        cut = self._buf.rfind(b"\n", 0, self._filled)
        if cut < 0:
            return None
        # Not released by hand: pyarrow keeps its own export of the view until its reader is collected. The
        # buffer is only ever written in place (same-length slices) while views of it may live; `_resize`
        # makes a new one.
        batches = self._parse_block(memoryview(self._buf)[: cut + 1])
        rest = self._filled - (cut + 1)
        self._buf[:rest] = self._buf[cut + 1 : self._filled]  # same length: the buffer never moves
        self._filled = rest
        return batches

    def _resize(self, size: int) -> None:
        # A new buffer rather than a resize: pyarrow may still hold a view of the old one.
        bigger = bytearray(size)
        bigger[: self._filled] = self._buf[: self._filled]
        self._buf = bigger

    # ── blocks ──────────────────────────────────────────────────────────────────────────────────────────────
    def _parse_block(self, block: memoryview) -> list[PhoutBatch]:
        """Complete lines (the block ends with '\n'): pyarrow at once, or line by line when anything is off."""
        first_line = self._next_line
        try:
            batch = self._parse_fast(block)
        except _BlockInvalid:
            data = bytes(block)
            lines = data.count(b"\n")
            if not data.strip():  # only blank lines: nothing to parse, nothing to name
                self.stats.lines_blank += lines
                self._next_line = first_line + lines
                return []
            slow = self._parse_lines_slowly(data, truncated=False)
            self._next_line = first_line + lines
            return [] if slow is None else [slow]
        # Blank lines fail the fast path, so here every line is a row: no need to count line ends.
        self._next_line = first_line + (0 if batch is None else batch.rows)
        return [] if batch is None else [batch]

    def _parse_fast(self, block: memoryview) -> PhoutBatch | None:
        native = self._parse_native(block)
        if native is not None:
            return native
        if _too_many_lines_for_arrow(block):
            raise _BlockInvalid("blank or short lines")
        try:
            table = pacsv.read_csv(
                pa.BufferReader(pa.py_buffer(block)),
                read_options=pacsv.ReadOptions(column_names=list(PHOUT_COLUMNS), block_size=8 * 1024 * 1024),
                parse_options=pacsv.ParseOptions(
                    delimiter="\t", quote_char=False, double_quote=False, escape_char=False, ignore_empty_lines=False
                ),
                convert_options=pacsv.ConvertOptions(
                    column_types=_ARROW_TYPES,
                    null_values=[],
                    strings_can_be_null=False,
                    quoted_strings_can_be_null=False,
                    check_utf8=False,
                ),
            )
        except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            raise _BlockInvalid(str(exc)) from exc
        rows = table.num_rows
        if rows == 0:
            return None
        send_ts = table.column("send_ts").to_numpy()
        interval_real = table.column("interval_real").to_numpy()
        receive_sec = _receive_sec(send_ts, interval_real)
        if _out_of_range(send_ts, receive_sec).any():
            raise _BlockInvalid("a time is out of range")
        tags = table.column("tag").combine_chunks().dictionary_encode()
        raw_codes = tags.indices.to_numpy(zero_copy_only=False).astype(np.int32)
        mapping = np.array([self._code_of_raw_tag(t) for t in tags.dictionary.to_pylist()], dtype=np.int32)
        cols = {name: table.column(name).to_numpy() for name in INT_COLUMNS}
        for name, (low, high) in _NARROW_RANGES:
            if cols[name].min() < low or cols[name].max() > high:
                raise _BlockInvalid(f"{name} out of range")
        self.stats.lines_total += rows
        case_codes = mapping[raw_codes] if mapping.size else np.zeros(rows, dtype=np.int32)
        return _batch(np.rint(send_ts * 1e6).astype(np.int64), receive_sec, case_codes, cols)

    def _parse_native(self, block: memoryview) -> PhoutBatch | None:
        """Path 1 (the C parser); None when it refuses the block. Every line is a row: blank ones are refused."""
        fast = kernels.fast
        if fast is None:  # built without a compiler: path 2 gives the same results
            return None
        # Room for the lines the block likely holds (as long on average as the last block's, with a margin), not
        # for the shortest possible lines, which would triple the columns' memory. A block of shorter lines is
        # parsed again with room for any.
        columns = NativeColumns.empty(int(len(block) / self._bytes_per_line * 1.1) + 1024)
        while True:
            parsed = fast.parse_block(block, columns.outputs(), _NATIVE_RANGES, MAX_RECEIVE_SEC)
            if parsed is None:
                return None
            rows, case_keys = parsed
            if rows >= 0:
                break
            columns = NativeColumns.for_block(len(block))
        if rows and int(columns.send_ts_us[:rows].min()) < MIN_SEND_TS_US:
            return None  # the C parser checks the upper bound only; the other paths name the line
        self._bytes_per_line = max(len(block) / max(rows, 1), float(MIN_NATIVE_LINE_BYTES))
        # A case key is a tag cut just after its last '#', which case_of_tag maps like the whole tag.
        mapping = np.array([self._code_of_raw_tag(key) for key in case_keys], dtype=np.int32)
        self.stats.lines_total += rows
        return columns.batch(rows, mapping)

    def _code_of_raw_tag(self, raw: bytes) -> int:
        code = self._raw_tag_codes.get(raw)
        if code is None:
            code = self.case_code(case_of_tag(raw.decode("utf-8", errors="replace")))
            if len(self._raw_tag_codes) >= MAX_CACHED_RAW_TAGS:
                # `tag#<request number>` makes every raw tag unique: the cache must not grow with the file.
                self._raw_tag_codes.clear()
            self._raw_tag_codes[raw] = code
        return code

    # ── slow path: one line at a time, to name the bad ones ─────────────────────────────────────────────────
    def _parse_lines_slowly(self, block: bytes, *, truncated: bool) -> PhoutBatch | None:
        good: list[tuple[float, int, list[int]]] = []
        line_no = self._next_line - 1
        judge = self._verdict_lines is not None
        # Line by line from a stream, not a list of every line: a block of short lines would be millions of them.
        for raw_line in io.BytesIO(block):
            line_no += 1
            if judge and line_no % _VERDICT_EVERY_LINES == 0:
                self._judge_early()
            line = raw_line.rstrip(b"\n")
            line = line[:-1] if line.endswith(b"\r") else line
            if not line.strip():
                self.stats.lines_blank += 1
                continue
            self.stats.lines_total += 1
            parsed = _parse_line(line)
            if isinstance(parsed, str):
                self.bad(line_no, f"truncated last line: {parsed}" if truncated else parsed, line)
                continue
            send_ts, raw_tag, ints = parsed
            good.append((send_ts, self._code_of_raw_tag(raw_tag), ints))
        if not good:
            return None
        send = np.array([g[0] for g in good], dtype=np.float64)
        ints_arr = np.array([g[2] for g in good], dtype=np.int64).reshape(len(good), len(INT_COLUMNS))
        columns = {name: ints_arr[:, i] for i, name in enumerate(INT_COLUMNS)}
        receive_sec = _receive_sec(send, np.ascontiguousarray(ints_arr[:, 0]))
        case_codes = np.array([g[1] for g in good], dtype=np.int32)
        return _batch(np.rint(send * 1e6).astype(np.int64), receive_sec, case_codes, columns)


# Control characters (tab aside) as `\xNN`: a NUL cannot be stored in PostgreSQL text, the others garble a page.
_CONTROL_ESCAPES = {c: f"\\x{c:02x}" for c in (*range(0x20), 0x7F) if c != 0x09}


def _printable(text: str) -> str:
    return text.translate(_CONTROL_ESCAPES)


def _too_many_lines_for_arrow(block: memoryview) -> bool:
    """Whether the block holds a blank line, or more lines than phout lines of its size could be. pyarrow converts
    every row of a block before it reports the first bad one: a block of line ends would cost it seconds and
    many times the block's memory."""
    data = bytes(block)  # only blocks the C parser refused get here: rare, and cheap beside the slow path
    if data.startswith(b"\n") or b"\n\n" in data or b"\n\r\n" in data:
        return True
    return data.count(b"\n") > len(data) // MIN_NATIVE_LINE_BYTES + 1


def _batch(
    send_ts_us: I64, receive_sec: I64, case_codes: I32, ints: Mapping[str, npt.NDArray[np.integer[Any]]]
) -> PhoutBatch:
    """A batch from its columns, the integer ones by phout's name (values within VALUE_RANGES) made their stored
    widths: no copy of a column that has its width already."""
    narrowed = {c.name: np.ascontiguousarray(ints[c.phout], dtype=c.dtype) for c in INTEGER_COLUMNS}
    return PhoutBatch(send_ts_us=send_ts_us, receive_sec=receive_sec, case_codes=case_codes, **narrowed)


def _parse_line(line: bytes) -> tuple[float, bytes, list[int]] | str:
    """One phout line → (send_ts, raw tag, the 10 integers), or the reason it is not phout."""
    fields = line.split(b"\t")
    if len(fields) != FIELD_COUNT:
        return f"expected {FIELD_COUNT} tab-separated fields, found {len(fields)}"
    try:
        send_ts = parse_float(fields[0], "send time", -math.inf, math.inf)  # finite; its range is judged below
        ints = [parse_int(raw, name, *VALUE_RANGES[name]) for name, raw in zip(INT_COLUMNS, fields[2:], strict=True)]
    except NotANumber as exc:
        return str(exc)
    receive = _receive_sec(np.array([send_ts]), np.array([ints[0]], dtype=np.int64))
    if _out_of_range(np.array([send_ts]), receive)[0]:
        if send_ts < MIN_SEND_TS:
            return f"send time {send_ts!r} is before 2000-01-01: phout times are unix seconds"
        return f"send time {send_ts!r} with interval_real {ints[0]} µs is not a plausible unix time"
    return send_ts, fields[1], ints


def _receive_sec(send_ts: npt.NDArray[np.float64], interval_real_us: I64) -> I64:
    # Exactly the tank's arithmetic (float seconds, then truncation), so seconds match the tank's stream.
    with np.errstate(invalid="ignore", over="ignore"):
        receive = send_ts + interval_real_us / 1e6
        return np.where(np.isfinite(receive) & (receive >= 0) & (receive < 2**62), receive, -1).astype(np.int64)


def _out_of_range(send_ts: npt.NDArray[np.float64], receive_sec: I64) -> npt.NDArray[np.bool_]:
    with np.errstate(invalid="ignore"):
        return np.asarray(~(send_ts >= MIN_SEND_TS) | (receive_sec < 0) | (receive_sec > MAX_RECEIVE_SEC))


def parse_stream(chunks: Iterable[bytes], parser: PhoutParser | None = None) -> Iterator[PhoutBatch]:
    """Parse an iterable of byte chunks; the parser (with its stats and cases) may be passed in to read later."""
    parser = parser or PhoutParser()
    for chunk in chunks:
        yield from parser.feed(chunk)
    yield from parser.finish()
