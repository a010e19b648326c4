"""Locust's `--csv` stats history (`<prefix>_stats_history.csv`): per-second aggregates, no single request.

Locust writes a row every CSV_STATS_INTERVAL_SEC (1 s) per endpoint (with `--csv-full-history`) and one for all,
named `Aggregated` (locust/stats.py, StatsCSVFileWriter._stats_history_data_rows, locust 2.47.0):
`Timestamp, User Count, Type, Name, Requests/s, Failures/s, <percentiles: 50%, 66%, ... 100%>, Total Request Count,
Total Failure Count, Total Median Response Time, Total Average Response Time, Total Min Response Time, Total Max
Response Time, Total Average Content Size`. The totals are cumulative; the percentiles are over the last ~10 s
(CURRENT_RESPONSE_TIME_PERCENTILE_WINDOW) with `--csv-full-history`, since the start without it; 0 or N/A while
Locust has too few requests to say.

Nothing here is a request, so the test is stored as per-second rows only, like a tank's stream, and its report is
not exact (`exact: false`). Each row becomes one row of `second_aggregates`:
- `Aggregated` → the overall row (case ''), every other row → the case `Type Name` (`GET /items`);
- responses = the growth of Total Request Count since the name's previous row; failures likewise;
- mean = from the growth of count × Total Average Response Time; received bytes from Total Average Content Size;
- quantiles = the row's percentiles, interpolated at our levels; the histogram is the distribution those
  percentiles describe (piecewise linear between Locust's points, from Total Min Response Time), so windows merge;
- User Count → instances (`threads`); successes count as HTTP 200, failures as net code 999 (Locust's history
  does not say which code a failure had).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from analytics.aggregate import SecondTable, _Sparse
from analytics.formats.base import BadCsv, NotThisFormat, RecordParser, csv_record, split_lines
from analytics.histogram import bin_indexes_for_values_us
from analytics.numbers import NotANumber, parse_float, parse_int
from analytics.phout import NO_CASE, SupportsReadinto, cut_label
from analytics.schema.codes import UNKNOWN_NET_CODE
from analytics.schema.seconds import QUANTILE_LEVELS

HEADER_START = ("Timestamp", "User Count", "Type", "Name", "Requests/s", "Failures/s")
TOTALS = (
    "Total Request Count",
    "Total Failure Count",
    "Total Median Response Time",
    "Total Average Response Time",
    "Total Min Response Time",
    "Total Max Response Time",
    "Total Average Content Size",
)
OVERALL_NAME = "Aggregated"
# Representative response times per row: the histogram of a row is made from at most this many points of the
# distribution its percentiles describe, each carrying its share of the row's responses.
POINTS_PER_ROW = 200
OK_HTTP_CODE = 200
US_PER_MS = 1000
# Ranges of the history's columns (analytics/numbers.py): times as the stored response times allow (UInt32 µs of
# interval_real would be 71 minutes; Locust's ms are kept up to a day), counts and sizes of 2^40.
MAX_TIME_MS = 86_400_000.0
MAX_COUNT = 2**40
MAX_USERS = 2**32 - 1
MAX_BYTES = 2**62


@dataclass
class _Previous:
    ts: int = -1
    count: int = 0
    failures: int = 0
    mean_ms: float = 0.0
    content_bytes: float = 0.0


@dataclass
class _Row:
    ts: int
    case: str
    users: int
    resps: int
    failures: int
    mean_ms: float
    input_bytes: int
    points_ms: npt.NDArray[np.float64]  # response times at `fractions`
    fractions: npt.NDArray[np.float64]


@dataclass
class AggregateBlock:
    """Per-second rows of a block of the file, and the users (instances) per second."""

    table: SecondTable
    users_by_second: dict[int, int] = field(default_factory=dict)


class LocustParser(RecordParser):
    """Gives `AggregateBlock`s (read_tables), not sample batches: the per-request pipeline does not apply."""

    name: ClassVar[str] = "locust"
    title: ClassVar[str] = "a Locust stats history"
    shape: ClassVar[str] = "Locust stats history rows (Timestamp, User Count, Type, Name, ...)"
    aggregates_only: ClassVar[bool] = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._names: list[str] | None = None
        self._fractions = np.zeros(0)
        self._percentile_columns: list[int] = []
        self._previous: dict[str, _Previous] = {}
        self._rows: list[_Row] = []

    def read_tables(self, stream: SupportsReadinto, early_verdict_lines: int | None = None) -> Iterator[AggregateBlock]:
        for _ in self.read_from(stream, early_verdict_lines):
            pass  # no sample batches: the rows gathered per block are taken below
        # The history of a long test is small (a row per second and endpoint): it is one table.
        yield self.take_block()

    def feed(self, data: bytes | bytearray | memoryview) -> list[Any]:
        super().feed(data)
        return []

    def take_block(self) -> AggregateBlock:
        rows, self._rows = self._rows, []
        return AggregateBlock(_table(rows), {row.ts: row.users for row in rows if row.case == NO_CASE})

    def _parse_records(self, block: bytes, first_line: int, *, final: bool) -> None:
        lines = split_lines(block, first_line)
        if self._names is None:
            first = next(lines, None)
            if first is None:
                return None
            self._header(first[1].decode("utf-8", errors="replace").lstrip("\ufeff"))
        for line_no, line in lines:
            self.stats.lines_total += 1
            text = line.decode("utf-8", errors="replace")
            try:
                reason = self._record(csv_record(text))
            except BadCsv as exc:
                reason = str(exc)
            if reason is not None:
                self.bad(line_no, reason, line)
        return None

    def _header(self, line: str) -> None:
        try:
            names = csv_record(line)
        except BadCsv:
            names = []
        if tuple(names[: len(HEADER_START)]) != HEADER_START or names[-len(TOTALS) :] != list(TOTALS):
            if names[:2] == ["Type", "Name"]:
                self.fatal = (
                    "this is Locust's summary (_stats.csv), which holds totals only: upload the stats history, "
                    "<prefix>_stats_history.csv"
                )
            else:
                self.fatal = f"this does not look like a Locust stats history: its header is not {HEADER_START}..."
            raise NotThisFormat(self.fatal)
        self._names = names
        percentiles = names[len(HEADER_START) : -len(TOTALS)]
        try:
            self._fractions = np.array([parse_float(p.rstrip("%"), "percentile", 0, 100) / 100 for p in percentiles])
        except NotANumber:
            self.fatal = f"the header's percentile columns {percentiles} are not percentages"
            raise NotThisFormat(self.fatal) from None
        self._percentile_columns = list(range(len(HEADER_START), len(HEADER_START) + len(percentiles)))

    def _record(self, record: list[str]) -> str | None:
        assert self._names is not None
        if len(record) != len(self._names):
            return f"expected {len(self._names)} fields as the header names, found {len(record)}"
        totals = dict(zip(TOTALS, record[-len(TOTALS) :], strict=True))
        try:
            ts = parse_int(record[0], "Timestamp", 0, 2**63 - 1)
            users = parse_int(record[1], "User Count", 0, MAX_USERS)
            count = parse_int(totals["Total Request Count"], "Total Request Count", 0, MAX_COUNT)
            failures = parse_int(totals["Total Failure Count"], "Total Failure Count", 0, MAX_COUNT)
            mean_ms = parse_float(totals["Total Average Response Time"], "Total Average Response Time", 0, MAX_TIME_MS)
            minimum = parse_float(totals["Total Min Response Time"] or "0", "Total Min Response Time", 0, MAX_TIME_MS)
            content = parse_float(totals["Total Average Content Size"], "Total Average Content Size", 0, MAX_COUNT)
            points = [
                parse_float(record[i], self._names[i], 0, MAX_TIME_MS) if record[i] not in ("N/A", "") else 0.0
                for i in self._percentile_columns
            ]
        except NotANumber as exc:
            return str(exc)
        if not 946_684_800 <= ts < 2**32 or users < 0 or count < 0 or failures < 0:
            return f"Timestamp {ts}, User Count {users} or a count is out of range"
        name = record[3]
        case = NO_CASE if name == OVERALL_NAME and not record[2] else f"{record[2]} {name}".strip()
        if self.label_max_chars is not None and len(case) > self.label_max_chars:
            # Only cut: rows are per-second aggregates, which cannot be folded into one case (README "Limits").
            case = cut_label(case, self.label_max_chars)
            if case not in self._previous:
                self.stats.labels_cut += 1
        previous = self._previous.setdefault(case, _Previous())
        if ts <= previous.ts:
            return None if ts == previous.ts else f"Timestamp {ts} is before the previous row's {previous.ts}"
        resps = count - previous.count
        if resps < 0:
            return f"Total Request Count {count} fell (it was {previous.count})"
        if resps > 0:
            interval_mean = max((mean_ms * count - previous.mean_ms * previous.count) / resps, 0.0)
            interval_bytes = min(max(round(content * count - previous.content_bytes * previous.count), 0), MAX_BYTES)
            if max(points, default=0.0) <= 0:
                points = [interval_mean] * len(points)  # Locust had too few requests for percentiles
            fractions = np.r_[0.0, self._fractions]
            values = np.maximum.accumulate(np.r_[min(minimum, points[0]) if points else minimum, points])
            self._rows.append(
                _Row(ts, case, users, resps, max(failures - previous.failures, 0), interval_mean, interval_bytes,
                     values.astype(np.float64), fractions)
            )  # fmt: skip
        self._previous[case] = _Previous(ts, count, failures, mean_ms, content)
        return None


def _table(rows: list[_Row]) -> SecondTable:
    """The rows as `second_aggregates` columns: per second its cases by name, the overall row last."""
    rows = sorted(rows, key=lambda r: (r.ts, r.case == NO_CASE, r.case))
    n = len(rows)
    levels = np.array(QUANTILE_LEVELS, dtype=np.float64) / 100
    quantiles = np.array([np.interp(levels, r.fractions, r.points_ms) for r in rows]).reshape(n, len(levels))
    hist_rows: list[npt.NDArray[np.int64]] = []
    hist_bins: list[npt.NDArray[np.int64]] = []
    hist_counts: list[npt.NDArray[np.int64]] = []
    for index, row in enumerate(rows):
        bins, counts = _histogram(row)
        hist_rows.append(np.full(bins.size, index, dtype=np.int64))
        hist_bins.append(bins)
        hist_counts.append(counts)
    empty = np.zeros(0, dtype=np.int64)
    resps = np.array([r.resps for r in rows], dtype=np.int64)
    failures = np.array([r.failures for r in rows], dtype=np.int64)
    zeros = np.zeros(n, dtype=np.float64)

    def codes(ok_code: int, failed_code: int) -> _Sparse:
        ok, failed = resps - failures, failures
        index = np.arange(n, dtype=np.int64)
        group = np.r_[index, index]
        code = np.r_[np.full(n, ok_code), np.full(n, failed_code)].astype(np.int64)
        count = np.r_[ok, failed]
        order = np.lexsort((code, group))
        kept = order[count[order] > 0]
        return _Sparse(group[kept], code[kept], count[kept])

    return SecondTable(
        ts=np.array([r.ts for r in rows], dtype=np.int64),
        case=[r.case for r in rows],
        resps=resps,
        expect_ms=np.array([r.mean_ms for r in rows], dtype=np.float64),
        phases_ms=[zeros, zeros.copy(), zeros.copy(), zeros.copy()],
        input_bytes=np.array([r.input_bytes for r in rows], dtype=np.int64),
        output_bytes=np.zeros(n, dtype=np.int64),
        quantiles_ms=quantiles,
        nets=codes(0, UNKNOWN_NET_CODE),
        https=codes(OK_HTTP_CODE, 0),
        hist=_Sparse(
            np.concatenate([empty, *hist_rows]),
            np.concatenate([empty, *hist_bins]),
            np.concatenate([empty, *hist_counts]),
        ),
    )


def _histogram(row: _Row) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Bins and counts of the row's responses, spread over the distribution its percentiles describe."""
    points = min(row.resps, POINTS_PER_ROW)
    positions = (np.arange(points) + 0.5) / points
    values_us = np.rint(np.interp(positions, row.fractions, row.points_ms) * US_PER_MS).astype(np.int64)
    shares = np.diff(np.floor(np.linspace(0, row.resps, points + 1))).astype(np.int64)
    bins = bin_indexes_for_values_us(values_us)
    kept = bins >= 0
    unique, inverse = np.unique(bins[kept], return_inverse=True)
    return unique.astype(np.int64), np.bincount(inverse, weights=shares[kept]).astype(np.int64)
