"""k6's per-sample outputs: `--out json` (NDJSON) and `--out csv`, assembled into one request per HTTP request.

k6 writes one line per metric sample, not per request: an HTTP request is the group of `http_req_*` samples its
tracer emits together (grafana/k6 lib/netext/httpext/tracer.go, Trail.SaveSamples: http_reqs,
http_req_duration, _blocked, _connecting, _tls_handshaking, _sending, _waiting, _receiving, and http_req_failed
from transport.go), all with the same time (the request's end, `Trail.EndTime`) and the same tags. Requests are
assembled from consecutive samples with equal (time, tags): a sample whose metric the request being assembled
already has starts the next one. Samples of other metrics (vus, iterations, checks, data_*, custom ones) are
valid lines that make no request.

JSON lines (grafana/k6 internal/output/json/wrapper.go): `{"type":"Metric","data":{...},"metric":NAME}` declares a
metric, `{"type":"Point","data":{"time":RFC3339 with ns,"value":V,"tags":{...}},"metric":NAME}` is a sample.
CSV (internal/output/csv/output.go, MakeHeader/SampleToRow): `metric_name,timestamp,metric_value,<system tags>,
extra_tags,metadata`, timestamp in unix seconds by default (`timeFormat`: unix, unix_milli, unix_micro, unix_nano,
rfc3339, rfc3339_nano).

Mapping (docs/formats.md): tag `name` (k6 sets it to the URL unless the script names it) → case; `status` → HTTP
code; `error_code` → net code (k6's codes, lib/netext/httpext/error_codes.go, mapped to errno where one fits, else
kept as they are); http_req_duration → interval_real (k6's duration: sending + waiting + receiving);
connecting + tls_handshaking → connect_time; sending → send_time; waiting → latency; receiving → receive_time;
the request's start = its end − duration; the `vus` metric's points (the active VUs, which k6 samples on a 1 s
ticker: execution/scheduler.go, emitVUsAndVUsMax) → the active instances of their second.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, ClassVar

import orjson

from analytics.formats.base import (
    US_PER_S,
    BadCsv,
    NotThisFormat,
    RecordParser,
    Rows,
    csv_record,
    request_ints,
    split_lines,
)
from analytics.formats.instances import ActiveInstances
from analytics.numbers import NotANumber, is_digits, json_number, parse_float, parse_int
from analytics.schema.codes import UNKNOWN_NET_CODE, Errno
from analytics.schema.samples import PhoutBatch

US_PER_MS = 1000
DURATION = "http_req_duration"
VUS = "vus"
PHASES = {
    "http_req_blocked": "blocked",
    "http_req_connecting": "connecting",
    "http_req_tls_handshaking": "tls",
    "http_req_sending": "sending",
    "http_req_waiting": "waiting",
    "http_req_receiving": "receiving",
}
# The samples the tracer saves for every request (Trail.SaveSamples); http_req_failed follows them when the script
# has a response callback (the default). A request's samples are written one after the other: the output writes each
# sample container whole (internal/output/json/json.go flushMetrics, csv/output.go).
TRACER_METRICS = frozenset({DURATION, "http_reqs", *PHASES})
REQUEST_METRICS = frozenset({*TRACER_METRICS, "http_req_failed"})
# k6 error codes (lib/netext/httpext/error_codes.go) that have an errno of their own; others stay k6's code.
NET_CODE_OF_K6: dict[int, int] = {
    1050: Errno.TIMEOUT,  # requestTimeoutErrorCode
    1211: Errno.TIMEOUT,  # tcpDialTimeoutErrorCode
    1212: Errno.REFUSED,  # tcpDialRefusedErrorCode
    1201: Errno.BROKEN_PIPE,  # tcpBrokenPipeErrorCode
    1220: Errno.RESET,  # tcpResetByPeerErrorCode
    1100: Errno.UNREACHABLE,  # defaultDNSErrorCode
    1101: Errno.UNREACHABLE,  # dnsNoSuchHostErrorCode
}
MAX_PENDING = 10_000  # requests assembled at once; the oldest is released beyond this
CSV_HEAD = ("metric_name", "timestamp", "metric_value")
# A metric's value: ms for the durations, counts for the others; beyond this it is no measurement (analytics/numbers).
VALUE_RANGE = (-1e12, 1e12)
MAX_VUS = 2**32 - 1


def net_code_of(error_code: str, status: int) -> int:
    if error_code:
        code = parse_int(error_code, "error_code", 0, 2**31 - 1)
        return NET_CODE_OF_K6.get(code, code if code < 2**15 else UNKNOWN_NET_CODE)
    return UNKNOWN_NET_CODE if status == 0 else 0


@dataclass
class _Request:
    line_no: int
    end_us: int
    tags: dict[str, str]
    values: dict[str, float] = field(default_factory=dict)


class _Assembler:
    """Groups samples into requests. A request is complete when a sample of another request follows its tracer's
    samples (all of them come together), or when the output has moved 10 s past it, or at the end; so a file
    followed as it grows gives each request as soon as the next one is written."""

    def __init__(self, parser: RecordParser) -> None:
        self._parser = parser
        self._pending: dict[tuple[int, str], _Request] = {}
        self._done: list[_Request] = []
        self._last: tuple[int, str] | None = None  # the request the previous sample belonged to

    def add(self, line_no: int, metric: str, end_us: int, value: float, tags: dict[str, str], key: str) -> None:
        if metric not in REQUEST_METRICS:
            return
        pending_key = (end_us, key)
        if self._last is not None and self._last != pending_key:
            last = self._pending.get(self._last)
            if last is not None and last.values.keys() >= TRACER_METRICS:
                self._done.append(self._pending.pop(self._last))
        self._last = pending_key
        request = self._pending.get(pending_key)
        if request is not None and metric in request.values:
            self._pending.pop(pending_key)
            self._done.append(request)
            request = None
        if request is None:
            request = _Request(line_no, end_us, tags)
            self._pending[pending_key] = request
            if len(self._pending) > MAX_PENDING:
                oldest = next(iter(self._pending))
                self._done.append(self._pending.pop(oldest))
        if metric == DURATION:
            request.line_no = line_no
        request.values[metric] = value

    def release(self, rows: Rows, *, everything: bool) -> None:
        """Store the complete requests; with `everything`, the ones still being assembled too."""
        if everything:
            self._done.extend(self._pending.values())
            self._pending.clear()
        else:
            # Requests of an older end time than the newest by more than a few seconds will get no more samples.
            newest = max((k[0] for k in self._pending), default=0)
            for k in [k for k in self._pending if k[0] < newest - 10_000_000]:
                self._done.append(self._pending.pop(k))
        done, self._done = self._done, []
        for request in done:
            reason = self._store(request, rows)
            if reason is not None:
                self._parser.bad(request.line_no, reason, f"{DURATION} with tags {request.tags}")

    def _store(self, request: _Request, rows: Rows) -> str | None:
        values = request.values
        if DURATION not in values:
            return f"an HTTP request's samples without its {DURATION}"
        self._parser.stats.lines_total += 1
        tags = request.tags
        try:
            status = parse_int(str(tags.get("status") or 0), "status", 0, 999)
            net = net_code_of(str(tags.get("error_code") or ""), status)
        except NotANumber as exc:
            return str(exc)

        def us(metric: str) -> int:
            return round(values.get(metric, 0.0) * US_PER_MS)

        duration_us = us(DURATION)
        if duration_us < 0:
            return f"{DURATION} {values[DURATION]} is negative"
        name = tags.get("name") or tags.get("url") or ""
        ints = request_ints(
            duration_us,
            connect_us=us("http_req_connecting") + us("http_req_tls_handshaking"),
            send_us=us("http_req_sending"),
            latency_us=us("http_req_waiting"),
            receive_us=us("http_req_receiving"),
            net_code=net,
            proto_code=status,
        )
        return rows.add(request.end_us - duration_us, self._parser.case_code(name), ints)


_EPOCH_OF_SECOND: dict[str, int] = {}


def rfc3339_us(text: str) -> int:
    """Unix µs of k6's RFC3339 time (Go's layout: fraction of up to 9 digits, 'Z' or ±hh:mm)."""
    if text.endswith("Z"):
        body, zone = text[:-1], "+00:00"
    else:
        body, zone = text[:-6], text[-6:]
    second, _, fraction = body.partition(".")
    key = second + zone
    epoch = _EPOCH_OF_SECOND.get(key)
    if epoch is None:
        epoch = int(datetime.fromisoformat(key).astimezone(UTC).timestamp())
        if len(_EPOCH_OF_SECOND) > 100_000:
            _EPOCH_OF_SECOND.clear()
        _EPOCH_OF_SECOND[key] = epoch
    if fraction and not is_digits(fraction):
        raise ValueError(f"bad fraction {fraction!r}")
    micros = int((fraction + "000000")[:6]) if fraction else 0
    return epoch * 1_000_000 + micros


class _K6Parser(RecordParser):
    """What both k6 outputs share: requests assembled from their metrics' points, released as their seconds end."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._assembler = _Assembler(self)

    def _parse_end(self) -> list[PhoutBatch]:
        rows = Rows()
        self._assembler.release(rows, everything=True)
        batch = rows.batch()
        return [] if batch is None else [batch]


class K6JsonParser(_K6Parser):
    name: ClassVar[str] = "k6-json"
    title: ClassVar[str] = "k6 JSON output"
    shape: ClassVar[str] = 'k6 JSON lines ({"type": "Metric"|"Point", "data": {...}, "metric": ...})'

    def _parse_records(self, block: bytes, first_line: int, *, final: bool) -> PhoutBatch | None:
        rows = Rows()
        for line_no, line in split_lines(block, first_line):
            reason = self._line(line_no, line)
            if reason is not None:
                self.stats.lines_total += 1
                self.bad(line_no, reason, line)
        self._assembler.release(rows, everything=False)
        return rows.batch()

    def _line(self, line_no: int, line: bytes) -> str | None:
        try:
            envelope = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            return f"not JSON: {exc}"
        if not isinstance(envelope, dict) or envelope.get("type") not in ("Metric", "Point"):
            return 'not a k6 envelope: {"type": "Metric"|"Point", ...}'
        if envelope["type"] == "Metric":
            return None
        metric, data = envelope.get("metric"), envelope.get("data")
        if not isinstance(metric, str) or not isinstance(data, dict):
            return "a Point without its metric or data"
        if metric == VUS:
            _vus(self.instances, lambda: rfc3339_us(str(data["time"])), lambda: data["value"])
            return None
        if metric not in REQUEST_METRICS:
            return None
        tags = data.get("tags") or {}
        try:
            end_us = rfc3339_us(str(data["time"]))
            value = json_number(data["value"], "value", *VALUE_RANGE)
        except (KeyError, ValueError, TypeError, OverflowError) as exc:
            return f"a {metric} Point without a valid time and value ({exc.__class__.__name__}: {exc})"
        if not isinstance(tags, dict):
            return "tags is not an object"
        key = orjson.dumps(tags, option=orjson.OPT_SORT_KEYS).decode()
        self._assembler.add(line_no, metric, end_us, value, {k: str(v) for k, v in tags.items()}, key)
        return None


def _vus(instances: ActiveInstances, time_us: Callable[[], int], value: Callable[[], Any]) -> None:
    """Record a `vus` point; one that cannot be read says nothing (it is no request, so no bad record either)."""
    try:
        raw = value()
        number = parse_float(raw, "vus", 0, MAX_VUS) if isinstance(raw, str) else json_number(raw, "vus", 0, MAX_VUS)
        second, count = time_us() // US_PER_S, round(number)
    except (KeyError, ValueError, TypeError, OverflowError):
        return
    if count >= 0:
        instances.level(second, count)


def timestamp_us(text: str) -> int:
    """Unix µs of a k6 CSV timestamp in any of its `timeFormat`s (digits: by magnitude)."""
    if is_digits(text):
        value = parse_int(text, "timestamp", 0, 10**19)
        for limit, scale in ((10**11, 1_000_000), (10**14, 1000), (10**17, 1)):
            if value < limit:
                return value * scale
        return value // 1000
    return rfc3339_us(text)


class K6CsvParser(_K6Parser):
    name: ClassVar[str] = "k6-csv"
    title: ClassVar[str] = "k6 CSV output"
    shape: ClassVar[str] = "k6 CSV rows (metric_name, timestamp, metric_value, tags...)"
    _names: list[str] | None = None  # the header's, set on the instance once the first line is read

    def _parse_records(self, block: bytes, first_line: int, *, final: bool) -> PhoutBatch | None:
        rows = Rows()
        lines = split_lines(block, first_line)
        if self._names is None:
            header = next(lines, None)
            if header is None:
                return None
            try:
                names = csv_record(header[1].decode("utf-8", errors="replace"))
            except BadCsv:
                names = []
            if tuple(names[:3]) != CSV_HEAD:
                self.fatal = f"this does not look like k6 CSV output: its header does not start with {CSV_HEAD}"
                raise NotThisFormat(self.fatal)
            self._names = names
        for line_no, line in lines:
            text = line.decode("utf-8", errors="replace")
            try:
                reason = self._record(line_no, csv_record(text))
            except BadCsv as exc:
                reason = str(exc)
            if reason is not None:
                self.stats.lines_total += 1
                self.bad(line_no, reason, line)
        self._assembler.release(rows, everything=False)
        return rows.batch()

    def _record(self, line_no: int, record: list[str]) -> str | None:
        assert self._names is not None
        if len(record) != len(self._names):
            return f"expected {len(self._names)} fields as the header names, found {len(record)}"
        metric = record[0]
        if metric == VUS:
            _vus(self.instances, lambda: timestamp_us(record[1]), lambda: record[2])
            return None
        if metric not in REQUEST_METRICS:
            return None
        try:
            end_us = timestamp_us(record[1])
        except (ValueError, OverflowError) as exc:
            return f"timestamp {record[1][:40]!r} is not valid: {exc}"
        try:
            value = parse_float(record[2], "metric_value", *VALUE_RANGE)
        except NotANumber as exc:
            return str(exc)
        tags = {name: value_ for name, value_ in zip(self._names[3:-2], record[3:-2], strict=True) if value_}
        self._assembler.add(line_no, metric, end_us, value, tags, "\x00".join(record[3:]))
        return None
