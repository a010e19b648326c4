"""JMeter JTL in CSV with a header line (`jmeter.save.saveservice.output_format=csv`, `print_field_names=true`).

Columns are found by the header's names (apache/jmeter CSVSaveService.java, the names of SampleSaveConfiguration's
fields), in any order and subset; `timeStamp` (ms, JMeter's default `timestamp_format=ms`) and `elapsed` are
required. The delimiter is the one the header uses (`default_delimiter`: ',' by default, '\\t' and ';' are common).
Values that hold the delimiter, a quote or a line end are quoted with '"', quotes doubled (CSVSaveService
.quoteDelimiters): so a block is cut only at a line end outside quotes.

Per block of 16 MB: pyarrow's CSV reader with strict types, the label and the response code dictionary-encoded
(their mapping to cases and codes is done once per distinct value); if anything in the block is off, that block
alone is read again record by record (Python's csv module) to name the bad records with their line numbers.

Mapping (docs/formats.md): label → case; responseCode → HTTP code, `Non HTTP response code: <exception>` → net code
(analytics/formats/jmeter_codes.py); timeStamp (the start: jmeter.properties sets sampleresult.timestamp.start=true)
→ send time; elapsed → interval_real; Connect → connect_time; Latency − Connect → latency; elapsed − Latency →
receive_time; bytes → size_in; sentBytes → size_out; allThreads (else grpThreads summed over the thread groups
named by threadName) → the active instances of the sample's end second (analytics/formats/instances.py).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.csv as pacsv

from analytics.formats.base import (
    US_PER_MS,
    US_PER_S,
    BadCsv,
    NotThisFormat,
    RecordParser,
    Rows,
    csv_record,
    request_ints,
)
from analytics.formats.instances import MAX_INSTANCES, ActiveInstances
from analytics.formats.jmeter_codes import codes_of
from analytics.numbers import NotANumber, parse_int
from analytics.phout import INT_COLUMNS, _batch
from analytics.schema.samples import MAX_RECEIVE_SEC, VALUE_RANGES, PhoutBatch


@dataclass(frozen=True)
class JtlFields:
    """The names a JTL gives a sample's fields: the CSV's columns, the XML's attributes (the same fields of
    JMeter's SampleSaveConfiguration under two spellings)."""

    time_stamp: str
    elapsed: str
    connect: str
    latency: str
    sent: str
    received: str
    response_code: str
    label: str
    all_threads: str
    group_threads: str
    thread_name: str

    @property
    def ints(self) -> tuple[str, ...]:
        return (self.time_stamp, self.elapsed, self.received, self.sent, self.latency, self.connect)

    @property
    def texts(self) -> tuple[str, ...]:
        return (self.label, self.response_code, self.thread_name, self.all_threads, self.group_threads)


FIELDS = JtlFields(
    time_stamp="timeStamp",
    elapsed="elapsed",
    connect="Connect",
    latency="Latency",
    sent="sentBytes",
    received="bytes",
    response_code="responseCode",
    label="label",
    all_threads="allThreads",
    group_threads="grpThreads",
    thread_name="threadName",
)
REQUIRED = (FIELDS.time_stamp, FIELDS.elapsed)
INT_FIELDS = FIELDS.ints
# Active threads at the sample's end (JMeterThread sets them after sampling): of all thread groups, of its own.
ALL_THREADS, GROUP_THREADS = FIELDS.all_threads, FIELDS.group_threads
THREAD_FIELDS = (ALL_THREADS, GROUP_THREADS)
USED = (*FIELDS.ints, *FIELDS.texts, "success")
# JMeter names a thread `<thread group's name> <group number>-<thread number>` (apache/jmeter ThreadGroup.java,
# startNewThread): what precedes the numbers names its group.
THREAD_NUMBERS = re.compile(r" \d+-\d+$")
DELIMITERS = (",", "\t", ";", "|")
QUOTE = b'"'
MAX_HEADER_BYTES = 64 * 1024
_NARROW = tuple((n, r) for n, r in VALUE_RANGES.items() if n in INT_COLUMNS)


class _BlockInvalid(Exception):
    pass


def thread_group(thread_name: str) -> str:
    """The thread group of a JMeter thread name (`Thread Group 1-5` → `Thread Group 1`)."""
    return THREAD_NUMBERS.sub("", thread_name, count=1)


class ThreadCounts:
    """A JTL's active threads (allThreads, else grpThreads per thread group) into `ActiveInstances`."""

    def __init__(self, instances: ActiveInstances) -> None:
        self.instances = instances
        self._groups: dict[str, int] = {}

    def group_code(self, thread_name: str) -> int:
        return self._groups.setdefault(thread_group(thread_name), len(self._groups))

    def sample(self, end_second: int, all_threads: int | None, group_threads: int | None, thread_name: str) -> None:
        if all_threads is not None:
            self.instances.level(end_second, all_threads)
        elif group_threads is not None:
            self.instances.level(end_second, group_threads, self.group_code(thread_name))


def add_sample(
    parser: RecordParser,
    rows: Rows,
    threads: ThreadCounts,
    fields: JtlFields,
    ints: Mapping[str, int],
    texts: Mapping[str, str],
    success: bool,
) -> str | None:
    """One JTL sample into `rows` and its thread counts into `threads`; or why it cannot be stored. `ints` holds the
    sample's integer fields (times in ms, as JMeter saves them; a latency of 0 means none was measured, time stamp and
    elapsed required), `texts` its text fields, both by the names `fields` gives."""
    codes = codes_of(texts.get(fields.response_code, ""), success)
    if isinstance(codes, str):
        return codes
    proto, net = codes
    label = texts.get(fields.label)
    case = parser.case_code(label) if label is not None else parser.no_case_code()
    time_stamp, elapsed = ints[fields.time_stamp], ints[fields.elapsed]
    connect = ints.get(fields.connect, 0)
    latency = ints.get(fields.latency, 0) or elapsed
    request = request_ints(
        elapsed * US_PER_MS,
        connect_us=connect * US_PER_MS,
        latency_us=max(latency - connect, 0) * US_PER_MS,
        receive_us=max(elapsed - latency, 0) * US_PER_MS,
        size_out=ints.get(fields.sent, 0),
        size_in=ints.get(fields.received, 0),
        net_code=net,
        proto_code=proto,
    )
    reason = rows.add(time_stamp * US_PER_MS, case, request)
    if reason is None:
        all_threads = texts.get(fields.all_threads)
        threads.sample(
            (time_stamp + elapsed) * US_PER_MS // US_PER_S,
            count_or_none(all_threads),
            None if all_threads is not None else count_or_none(texts.get(fields.group_threads)),
            texts.get(fields.thread_name, ""),
        )
    return reason


# JTL integers (ms, bytes) as JMeter writes them: a long; anything longer than 2^53 is no time or size of a sample.
JTL_INT_RANGE = (-(2**53), 2**53)


def jtl_int(raw: str, name: str) -> int:
    """An integer field of a sample (analytics/numbers.py's rule); NotANumber names it."""
    return parse_int(raw.strip(), name, *JTL_INT_RANGE)


def count_or_none(raw: str | None) -> int | None:
    """A thread count, or None when absent or not a count (it only feeds the instances, never fails a record)."""
    if raw is None:
        return None
    try:
        return parse_int(raw.strip(), "threads", 0, MAX_INSTANCES)
    except NotANumber:
        return None


def header_fields(line: str) -> tuple[list[str], str] | None:
    """The column names and the delimiter of a JTL CSV header line; None if it is not one."""
    line = line.strip().lstrip("\ufeff")
    for delimiter in DELIMITERS:
        try:
            names = csv_record(line, delimiter)
        except BadCsv:
            continue
        if all(name in names for name in REQUIRED):
            return names, delimiter
    return None


class JtlCsvParser(RecordParser):
    name: ClassVar[str] = "jmeter-csv"
    title: ClassVar[str] = "a JMeter CSV JTL"
    shape: ClassVar[str] = "JTL rows (timeStamp, elapsed, label, responseCode, ... as the header names them)"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._names: list[str] | None = None
        self._delimiter = ","
        self._index: dict[str, int] = {}
        self._threads = ThreadCounts(self.instances)

    # A record ends at a line end outside quotes: an even number of quote characters before it (doubled quotes
    # count twice). The buffer always starts at a record's start.
    def _record_end(self, buf: bytearray) -> int:
        cut = buf.rfind(b"\n")
        while cut >= 0 and buf.count(QUOTE, 0, cut) % 2:
            cut = buf.rfind(b"\n", 0, cut)
        return cut + 1

    def _parse_records(self, block: bytes, first_line: int, *, final: bool) -> PhoutBatch | None:
        if self._names is None:
            end = block.find(b"\n")
            header = block if end < 0 else block[:end]
            found = header_fields(header.decode("utf-8", errors="replace"))
            if found is None:
                self.fatal = (
                    "this does not look like a JMeter CSV JTL: its first line is not a header naming "
                    "timeStamp and elapsed (save the JTL with jmeter.save.saveservice.print_field_names=true)"
                )
                raise NotThisFormat(self.fatal)
            self._names, self._delimiter = found
            self._index = {name: i for i, name in enumerate(self._names)}
            if end < 0:
                return None
            block, first_line = block[end + 1 :], first_line + 1
        if not block or block.isspace():
            return None
        try:
            return self._parse_fast(block)
        except _BlockInvalid:
            return self._parse_slowly(block, first_line)

    # ── pyarrow ─────────────────────────────────────────────────────────────────────────────────────────────
    def _parse_fast(self, block: bytes) -> PhoutBatch | None:
        assert self._names is not None
        used = [name for name in USED if name in self._index]
        if ALL_THREADS in self._index or GROUP_THREADS not in self._index:
            used = [name for name in used if name != "threadName"]  # no thread groups to tell apart
        types: dict[str, pa.DataType] = {
            name: pa.int64() for name in (*INT_FIELDS, *THREAD_FIELDS) if name in self._index
        }
        types.update({name: pa.dictionary(pa.int32(), pa.binary()) for name in ("label", "responseCode", "threadName")})
        types["success"] = pa.bool_()
        try:
            table = pacsv.read_csv(
                pa.BufferReader(block),
                read_options=pacsv.ReadOptions(column_names=self._names, block_size=8 * 1024 * 1024),
                parse_options=pacsv.ParseOptions(
                    delimiter=self._delimiter, quote_char='"', double_quote=True, newlines_in_values=True
                ),
                convert_options=pacsv.ConvertOptions(
                    column_types={k: v for k, v in types.items() if k in used},
                    include_columns=used,
                    null_values=[],
                    strings_can_be_null=False,
                    true_values=["true"],
                    false_values=["false"],
                    check_utf8=False,
                ),
            )
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as exc:
            raise _BlockInvalid(str(exc)) from exc
        rows = table.num_rows
        if rows == 0:
            return None

        def ints(name: str) -> npt.NDArray[np.int64]:
            if name not in self._index:
                return np.zeros(rows, dtype=np.int64)
            values: npt.NDArray[np.int64] = table.column(name).to_numpy()
            return values

        elapsed = ints("elapsed")
        latency, connect = ints("Latency"), ints("Connect")
        latency = np.where(latency > 0, latency, elapsed) if "Latency" in self._index else elapsed
        send_ts_us = ints("timeStamp") * US_PER_MS
        success = (
            table.column("success").to_numpy(zero_copy_only=False).astype(np.bool_)
            if "success" in self._index
            else np.ones(rows, dtype=np.bool_)
        )
        case_codes = self._dictionary_codes(table, "label", rows, self._case_of_label)
        proto, net = self._codes(table, success, rows)
        columns: dict[str, npt.NDArray[Any]] = {
            "interval_real": elapsed * US_PER_MS,
            "connect_time": connect * US_PER_MS,
            "send_time": np.zeros(rows, dtype=np.int64),
            "latency": np.maximum(latency - connect, 0) * US_PER_MS,
            "receive_time": np.maximum(elapsed - latency, 0) * US_PER_MS,
            "interval_event": np.zeros(rows, dtype=np.int64),
            "size_out": ints("sentBytes"),
            "size_in": ints("bytes"),
            "net_code": net,
            "proto_code": proto,
        }
        for name in (*INT_FIELDS, *THREAD_FIELDS):
            if name in self._index:
                raw = table.column(name).to_numpy()
                if raw.size and (raw.min() < JTL_INT_RANGE[0] or raw.max() > JTL_INT_RANGE[1]):
                    raise _BlockInvalid(f"{name} out of range")  # before any product of it could wrap around
        for name, (low, high) in _NARROW:
            column = columns[name]
            if column.size and (column.min() < low or column.max() > high):
                raise _BlockInvalid(f"{name} out of range")
        receive_sec = (send_ts_us + columns["interval_real"]) // 1_000_000
        if (send_ts_us <= 0).any() or (receive_sec > MAX_RECEIVE_SEC).any() or (elapsed < 0).any():
            raise _BlockInvalid("a time is out of range")
        self._thread_counts(table, receive_sec, rows)
        self.stats.lines_total += rows
        return _batch(send_ts_us, receive_sec, case_codes, columns)

    def _thread_counts(self, table: pa.Table, receive_sec: npt.NDArray[np.int64], rows: int) -> None:
        if ALL_THREADS in self._index:
            self.instances.levels(receive_sec, table.column(ALL_THREADS).to_numpy())
        elif GROUP_THREADS in self._index:
            groups = self._dictionary_codes(table, "threadName", rows, self._group_of_thread, absent=0)
            self.instances.levels(receive_sec, table.column(GROUP_THREADS).to_numpy(), groups)

    def _group_of_thread(self, raw: bytes) -> int:
        return self._threads.group_code(raw.decode("utf-8", errors="replace"))

    def _case_of_label(self, raw: bytes) -> int:
        return self.case_code(raw.decode("utf-8", errors="replace"))

    def _dictionary_codes(
        self, table: pa.Table, name: str, rows: int, code_of: Any, absent: int | None = None
    ) -> npt.NDArray[np.int32]:
        if name not in self._index:
            return np.full(rows, self.no_case_code() if absent is None else absent, dtype=np.int32)
        column = table.column(name).combine_chunks()
        mapping = np.array([code_of(v) for v in column.dictionary.to_pylist()], dtype=np.int32)
        indices = column.indices.to_numpy(zero_copy_only=False)
        return mapping[indices] if mapping.size else np.zeros(rows, dtype=np.int32)

    def _codes(
        self, table: pa.Table, success: npt.NDArray[np.bool_], rows: int
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        if "responseCode" not in self._index:
            proto = np.zeros(rows, dtype=np.int64)
            return proto, np.where(success, 0, 999).astype(np.int64)
        column = table.column("responseCode").combine_chunks()
        entries = column.dictionary.to_pylist()
        indices = column.indices.to_numpy(zero_copy_only=False)
        # Each distinct code, as it maps when the sample succeeded and when it failed.
        table_ok = np.zeros((len(entries), 2), dtype=np.int64)
        table_failed = np.zeros((len(entries), 2), dtype=np.int64)
        for i, raw in enumerate(entries):
            text = raw.decode("utf-8", errors="replace")
            for target, ok in ((table_ok, True), (table_failed, False)):
                codes = codes_of(text, ok)
                if isinstance(codes, str):
                    raise _BlockInvalid(codes)
                target[i] = codes
        chosen = np.where(success[:, None], table_ok[indices], table_failed[indices])
        return chosen[:, 0], chosen[:, 1]

    # ── record by record, to name the bad ones ──────────────────────────────────────────────────────────────
    def _parse_slowly(self, block: bytes, first_line: int) -> PhoutBatch | None:
        assert self._names is not None
        rows = Rows()
        text = block.decode("utf-8", errors="replace")
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=self._delimiter)
        previous_end = 0
        while True:
            try:
                record = next(reader)
            except StopIteration:
                break
            except csv.Error as exc:
                line_no = first_line + previous_end
                self.stats.lines_total += 1
                self.bad(line_no, f"not CSV: {exc}", "")
                previous_end = reader.line_num
                continue
            line_no = first_line + previous_end
            previous_end = reader.line_num
            if not record or (len(record) == 1 and not record[0].strip()):
                continue
            self.stats.lines_total += 1
            reason = self._record(record, rows)
            if reason is not None:
                self.bad(line_no, reason, self._delimiter.join(record))
        return rows.batch()

    def _record(self, record: list[str], rows: Rows) -> str | None:
        if len(record) != len(self._index):
            return f"expected {len(self._index)} fields as the header names, found {len(record)}"
        values: dict[str, int] = {}
        for name in INT_FIELDS:
            if name in self._index:
                try:
                    values[name] = jtl_int(record[self._index[name]], name)
                except NotANumber as exc:
                    return str(exc)
        elapsed = values["elapsed"]
        if elapsed < 0:
            return f"elapsed {elapsed} is negative"
        success = True
        if "success" in self._index:
            flag = record[self._index["success"]].strip()
            if flag not in ("true", "false"):
                return f"success {flag[:40]!r} is neither true nor false"
            success = flag == "true"
        texts = {name: record[i] for name, i in self._index.items() if name in FIELDS.texts}
        return add_sample(self, rows, self._threads, FIELDS, values, texts, success)
