"""One sample (a phout line, or another generator's request record) as columns: the one description of its layout.

`SampleColumns` names each column once, with what it holds: its numpy width in a parsed batch, its type in the
ClickHouse table `samples`, the range of values it may hold, its unit, and the phout column it comes from. The
other views derive from it: `PhoutBatch` (what every parser yields, each column at exactly its stored width),
the parsers' range checks (`VALUE_RANGES`), the table's column list and DDL (backend/clickhouse/tables/samples.py),
the INSERT's columns and the SELECT of stored samples (backend/clickhouse/queries/uploads.py).

A value outside its column's range is a bad line for the parsers, never a wrapped value: the widths are the
table's, so no value is ever cut by the INSERT's cast. Response time and sizes are UInt32 (71 min, 4 GiB), the send
and interval_event phases Int32, codes Int16; connect, latency and receive stay Int64 for pandora's
±9223372036854775 sentinels.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Self

import numpy as np
import numpy.typing as npt

I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
Ints = npt.NDArray[np.integer[Any]]

# Response seconds must fit the UInt32 `receive_sec` and be a plausible unix time: a send time before 2000-01-01
# (`1.0`, a relative time, a time in ms or µs read as s would be after 2106) is a bad line.
MIN_SEND_TS = 946_684_800  # 2000-01-01T00:00:00Z, in s
MIN_SEND_TS_US = MIN_SEND_TS * 1_000_000
MAX_RECEIVE_SEC = 2**32 - 1

_CLICKHOUSE_OF_DTYPE = {np.dtype(t): t.__name__.capitalize() for t in (np.int16, np.int32, np.int64)}
_CLICKHOUSE_OF_DTYPE[np.dtype(np.uint32)] = "UInt32"


def _column(
    dtype: type[np.integer[Any]],
    unit: str,
    *,
    phout: str = "",
    clickhouse: str | None = None,
    stored_as: str | None = None,
    low: int | None = None,
    high: int | None = None,
) -> dict[str, Any]:
    """A column's description (its dataclass field's metadata). By default its ClickHouse type is its numpy width's
    and its range that width's whole range."""
    info = np.iinfo(dtype)
    return {
        "dtype": np.dtype(dtype),
        "unit": unit,
        "phout": phout,
        "clickhouse": clickhouse or _CLICKHOUSE_OF_DTYPE[np.dtype(dtype)],
        "stored_as": stored_as,
        "range": (int(info.min) if low is None else low, int(info.max) if high is None else high),
    }


@dataclass(frozen=True)
class SampleColumns:
    """Samples as columns, one entry per sample, in the order of `samples`' columns (after the test and upload ids):
    the response second, then phout's fields in phout's order (yandex-tank's `phout_columns`).

    `case_codes` index the parser's `cases` list ('' = no case); `samples` stores the case name (`tag`). The integer
    columns may have any width whose values fit their range (aggregation also takes them widened, or read back from
    ClickHouse); `PhoutBatch` is the same columns at exactly their stored widths.
    """

    receive_sec: I64 = field(metadata=_column(np.int64, "s", clickhouse="UInt32", high=MAX_RECEIVE_SEC, low=0))
    send_ts_us: I64 = field(metadata=_column(np.int64, "µs", phout="send_ts", clickhouse="UInt64", low=MIN_SEND_TS_US))
    case_codes: I32 = field(metadata=_column(np.int32, "case", phout="tag", clickhouse="String", stored_as="tag"))
    # up to ~71 min
    interval_real_us: Ints = field(metadata=_column(np.uint32, "µs", phout="interval_real"))
    # connect, latency and receive hold pandora's ±9223372036854775 sentinels (a phase not measured on a timeout)
    connect_time_us: Ints = field(metadata=_column(np.int64, "µs", phout="connect_time"))
    # signed: a negative phase is kept (±35 min)
    send_time_us: Ints = field(metadata=_column(np.int32, "µs", phout="send_time"))
    latency_us: Ints = field(metadata=_column(np.int64, "µs", phout="latency"))
    receive_time_us: Ints = field(metadata=_column(np.int64, "µs", phout="receive_time"))
    interval_event_us: Ints = field(metadata=_column(np.int32, "µs", phout="interval_event"))
    # up to 4 GiB
    size_out_bytes: Ints = field(metadata=_column(np.uint32, "bytes", phout="size_out"))
    size_in_bytes: Ints = field(metadata=_column(np.uint32, "bytes", phout="size_in"))
    net_code: Ints = field(metadata=_column(np.int16, "code", phout="net_code"))  # errno, as phantom writes it
    proto_code: Ints = field(metadata=_column(np.int16, "code", phout="proto_code"))  # the HTTP status

    @property
    def rows(self) -> int:
        return int(self.receive_sec.size)

    @classmethod
    def of(cls, columns: Mapping[str, npt.NDArray[Any]]) -> Self:
        """From columns by name (every field), each made its stored width (no copy of one that has it already)."""
        typed: dict[str, Any] = {name: np.ascontiguousarray(columns[name], dtype=DTYPES[name]) for name in FIELDS}
        return cls(**typed)

    @classmethod
    def of_response_times(
        cls, receive_sec: Ints, case_codes: Ints, interval_real_us: Ints, net_code: Ints, proto_code: Ints
    ) -> Self:
        """Samples that carry only response times and codes (phases and sizes zero), as BFG writes them; each send
        time is its response second's start less its response time (the seconds are all such a sample says)."""
        zeros = np.zeros(receive_sec.size, dtype=np.int64)
        send_ts_us = np.asarray(receive_sec, dtype=np.int64) * 1_000_000 - np.asarray(interval_real_us, dtype=np.int64)
        given = {"receive_sec": receive_sec, "send_ts_us": send_ts_us.clip(min=0), "case_codes": case_codes}
        given |= {"interval_real_us": interval_real_us}
        given |= {"net_code": net_code, "proto_code": proto_code}
        columns: dict[str, Any] = {name: np.asarray(given.get(name, zeros), dtype=_WIDE[name]) for name in FIELDS}
        return cls(**columns)

    def widened(self) -> SampleColumns:
        """The same values as int64 (codes int32), what the numpy path computes with (no copy where they are)."""
        columns: dict[str, Any] = {name: np.asarray(getattr(self, name), dtype=_WIDE[name]) for name in FIELDS}
        return SampleColumns(**columns)

    def take(self, index: npt.NDArray[np.intp] | npt.NDArray[np.bool_]) -> Self:
        return type(self)(**{name: getattr(self, name)[index] for name in FIELDS})

    def slice(self, start: int, stop: int) -> Self:
        """Rows start..stop-1, as views of these columns (no copy)."""
        return type(self)(**{name: getattr(self, name)[start:stop] for name in FIELDS})

    @classmethod
    def concat(cls, parts: Sequence[Self]) -> Self:
        if len(parts) == 1:
            return parts[0]
        return cls(**{name: np.concatenate([getattr(p, name) for p in parts]) for name in FIELDS})


class PhoutBatch(SampleColumns):
    """Parsed rows of consecutive records, every column at exactly its stored width (`DTYPES`): what the parsers
    yield, which the samples INSERT and the C kernels take as they are, with no narrowing copy."""


@dataclass(frozen=True)
class Column:
    """One column of a sample, as `SampleColumns` describes it."""

    name: str  # in SampleColumns
    stored_as: str  # in the table `samples`
    phout: str  # phout's name of the field it comes from ('' = computed: the response second)
    dtype: np.dtype[Any]  # width in a PhoutBatch
    clickhouse: str  # type in `samples`
    range: tuple[int, int]  # the values it may hold, both ends included
    unit: str


COLUMNS = tuple(
    Column(f.name, m["stored_as"] or f.name, m["phout"], m["dtype"], m["clickhouse"], m["range"], m["unit"])
    for f in fields(SampleColumns)
    for m in (f.metadata,)
)
FIELDS = tuple(c.name for c in COLUMNS)
DTYPES: dict[str, np.dtype[Any]] = {c.name: c.dtype for c in COLUMNS}
# The columns of phout's ten integer fields (interval_real .. proto_code), in its order.
INTEGER_COLUMNS = tuple(c for c in COLUMNS if c.phout not in ("", "send_ts", "tag"))
# What each of phout's integer fields may hold, by phout's name: a value outside makes its line bad.
VALUE_RANGES: dict[str, tuple[int, int]] = {c.phout: c.range for c in INTEGER_COLUMNS}
_WIDE = {c.name: np.dtype(np.int32) if c.unit in ("code", "case") else np.dtype(np.int64) for c in COLUMNS}
