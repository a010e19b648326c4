"""Per-second, per-case aggregation of phout samples into the shape the tank streams (tank-protocol.md §4.4, §6).

`aggregate_table()` turns a set of samples (numpy columns) into one row (analytics.schema.seconds) per (response
second, case) plus one overall row per second (case ''), as columns (`SecondTable`), exactly as yandex-tank's
aggregator and `second_data_to_push_item` would:
means in ms from µs totals, quantiles by numpy's linear interpolation, the histogram on the tank's grid
(analytics.histogram), net and HTTP code counts. Requests whose tag is empty count in the overall row only.

Two deliberate differences from the tank, both about values that are not response times:
- pandora's `discarded` rows (net code 777, every time zero: requests never sent) count in `resps` and in the
  code counts, but not in means, quantiles or the histogram;
- pandora's ±9223372036854775 sentinels (a phase not measured on timeouts) are left out of that phase's mean
  instead of turning it into nonsense.

Over a stream, analytics.second_window hands `aggregate_table()` whole seconds in bounded memory; seconds that get
rows after they were aggregated are recomputed by the caller from the stored samples.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from analytics import kernels
from analytics.histogram import bin_indexes_for_values_us, native_grid
from analytics.phout import NO_CASE
from analytics.schema.codes import DISCARDED_NET_CODE
from analytics.schema.samples import SampleColumns
from analytics.schema.seconds import CODE_COUNTS, FIELD, QUANTILE_COLUMNS, QUANTILE_LEVELS

SENTINEL_ABS_US = 9223372036854775  # pandora's "not measured" value in connect/latency/receive

I64 = npt.NDArray[np.int64]


Ints = npt.NDArray[np.integer[Any]]


def is_discarded(cols: SampleColumns) -> npt.NDArray[np.bool_]:
    """Pandora's requests never sent: net code 777 with every time zero."""
    return np.asarray(
        (cols.net_code == DISCARDED_NET_CODE)
        & (cols.interval_real_us == 0)
        & (cols.connect_time_us == 0)
        & (cols.latency_us == 0)
        & (cols.receive_time_us == 0)
    )


def aggregate_table(cols: SampleColumns, cases: Sequence[str]) -> SecondTable:
    """Every (second, case) row and every overall row for these samples, sorted by second, overall last; as columns,
    what a columnar INSERT sends without a Python row each.

    The samples are grouped once, by (second, case) with the no-case requests as a group of their own; the
    overall row of a second is then summed from its groups (sums of integers, so exactly what summing the
    samples gives), except its quantiles, which need the second's samples in order.

    The figures of each group come from the C kernel (`_aggregated_native`: each group in one pass over its rows,
    the quantiles selected from a bucket count of the times), or where the package was built without it from numpy
    (`_aggregated`: one pass per figure over the whole piece, then sorts of packed (group, time) keys). Both give the
    same figures, bit for bit (bench/aggregate_pieces.py compares their costs).
    """
    if cols.rows == 0:
        return SecondTable.empty()
    # Cases sorted by name within a second, as the tank sends them ('' = no case sorts first).
    order_of_code = np.argsort(np.argsort(np.array(cases, dtype=object))).astype(np.int64)
    code_of_order = np.argsort(order_of_code)
    width = len(cases) + 1
    first_second = int(cols.receive_sec.min())
    key = (cols.receive_sec - first_second) * width + order_of_code[cols.case_codes]
    group_keys, group = _dense(key)
    group_seconds = group_keys // width + first_second
    group_cases = code_of_order[group_keys % width]

    # Overall rows: the groups of a second are adjacent, so their sums reduce at the second's first group.
    second_starts = np.flatnonzero(np.r_[True, group_seconds[1:] != group_seconds[:-1]])
    second_of_group = np.repeat(np.arange(second_starts.size), np.diff(np.r_[second_starts, group_seconds.size]))
    aggregated = _aggregated_native if kernels.fast is not None else _aggregated
    groups, case_quantiles, overall_quantiles = aggregated(cols, group, group_keys.size, second_starts, second_of_group)
    overall = groups.summed(second_starts, second_of_group)

    # Rows: per second its case groups (requests without a case count in the overall row only), then the overall
    # row. The case groups come in (second, case) order, so a stable sort on (second, overall last) interleaves.
    no_case = np.array([c == NO_CASE for c in cases], dtype=np.bool_)
    kept = np.flatnonzero(~no_case[group_cases])
    seconds = second_starts.size
    order = np.argsort(np.r_[second_of_group[kept] * 2, np.arange(seconds) * 2 + 1], kind="stable")
    row_of = np.empty(order.size, dtype=np.int64)
    row_of[order] = np.arange(order.size)
    case_row_of_group = np.full(group_keys.size, -1, dtype=np.int64)
    case_row_of_group[kept] = row_of[: kept.size]
    overall_row = row_of[kept.size :]

    def rows_of(per_group: npt.NDArray[Any], per_second: npt.NDArray[Any]) -> npt.NDArray[Any]:
        return np.concatenate([per_group[kept], per_second])[order]

    def sparse(per_group: _Sparse, per_second: _Sparse) -> _Sparse:
        return _Sparse.placed([(per_group, case_row_of_group), (per_second, overall_row)])

    names = [cases[c] for c in group_cases[kept].tolist()] + [NO_CASE] * seconds
    return SecondTable(
        ts=rows_of(group_seconds, group_seconds[second_starts]),
        case=[names[i] for i in order.tolist()],
        resps=rows_of(groups.counts, overall.counts),
        expect_ms=rows_of(groups.expect_ms(), overall.expect_ms()),
        phases_ms=[rows_of(g, o) for g, o in zip(groups.phases_ms(), overall.phases_ms(), strict=True)],
        input_bytes=rows_of(groups.size_in, overall.size_in),
        output_bytes=rows_of(groups.size_out, overall.size_out),
        quantiles_ms=rows_of(case_quantiles, overall_quantiles),
        nets=sparse(groups.nets, overall.nets),
        https=sparse(groups.https, overall.https),
        hist=sparse(groups.hist, overall.hist),
    )


# Per group its sums and counts, the quantiles of each group and those of each second (rows x QUANTILE_LEVELS).
_Aggregated = tuple["_Groups", npt.NDArray[np.float64], npt.NDArray[np.float64]]


def _aggregated(
    cols: SampleColumns, group: I64, groups: int, second_starts: npt.NDArray[np.intp], second_of_group: I64
) -> _Aggregated:
    """The numpy path: masks, bins and sums over the whole piece, then two sorts of packed (group, time) keys."""
    cols = cols.widened()
    timed = ~is_discarded(cols)
    bins = bin_indexes_for_values_us(cols.interval_real_us)
    stats = _group_stats(cols, group, groups, timed, bins)
    timed_values = cols.interval_real_us[timed]
    case_quantiles = _group_quantiles_ms(_sorted_within(group[timed], timed_values), stats.timed_counts)
    second_timed_counts = np.add.reduceat(stats.timed_counts, second_starts)
    overall_quantiles = _group_quantiles_ms(
        _sorted_within(second_of_group[group[timed]], timed_values), second_timed_counts
    )
    return stats, case_quantiles, overall_quantiles


def _aggregated_native(
    cols: SampleColumns, group: I64, groups: int, second_starts: npt.NDArray[np.intp], second_of_group: I64
) -> _Aggregated:
    """What `_aggregated` computes, bit for bit, by the C kernel: each group in one pass over its rows."""
    fast = kernels.fast
    assert fast is not None

    def typed(values: Ints, dtype: type[np.integer[Any]]) -> Ints:
        if values.dtype == dtype:  # the parser's columns: no copy
            return np.ascontiguousarray(values)
        limits = np.iinfo(dtype)
        if values.size and (int(values.min()) < limits.min or int(values.max()) > limits.max):
            name = np.dtype(dtype).name
            raise ValueError(f"a sample value does not fit {name} (analytics.schema.samples.VALUE_RANGES)")
        return np.ascontiguousarray(values, dtype=dtype)

    levels = len(QUANTILE_LEVELS)
    counts, timed_counts, size_in, size_out = (np.empty(groups, dtype=np.int64) for _ in range(4))
    interval_sum = np.empty(groups, dtype=np.float64)
    phase_sums = [np.empty(groups, dtype=np.float64) for _ in range(4)]
    phase_counts = [np.empty(groups, dtype=np.int64) for _ in range(4)]
    case_quantiles = np.empty((groups, levels), dtype=np.float64)
    overall_quantiles = np.empty((second_starts.size, levels), dtype=np.float64)
    sparse = [np.empty(cols.rows, dtype=np.int64) for _ in range(9)]  # (group, code, count) x hist, net, http
    bounds = np.r_[second_starts, groups].astype(np.int64)
    phases = (cols.connect_time_us, cols.send_time_us, cols.latency_us, cols.receive_time_us)
    filled = fast.group_aggregate(
        (typed(group, np.int64), typed(cols.interval_real_us, np.uint32), typed(phases[0], np.int64),
         typed(phases[1], np.int32), typed(phases[2], np.int64), typed(phases[3], np.int64),
         typed(cols.size_in_bytes, np.uint32), typed(cols.size_out_bytes, np.uint32), typed(cols.net_code, np.int16),
         typed(cols.proto_code, np.int16)),
        (counts, timed_counts, interval_sum, *phase_sums, *phase_counts, size_in, size_out, case_quantiles),
        (bounds, overall_quantiles),
        tuple(sparse),
        native_grid(),
        _LEVEL_FRACTIONS,
        SENTINEL_ABS_US,
        DISCARDED_NET_CODE,
    )  # fmt: skip
    hist, nets, https = (_Sparse(*(a[:n] for a in sparse[3 * k : 3 * k + 3])) for k, n in enumerate(filled))
    totals: _Totals = (counts, timed_counts, interval_sum, phase_sums, phase_counts, size_in, size_out)
    return _Groups(*totals, hist=hist, nets=nets, https=https), case_quantiles, overall_quantiles


_LEVEL_FRACTIONS = np.array(QUANTILE_LEVELS, dtype=np.int64) / 100  # level / 100, as _group_quantiles_ms takes it


@dataclass(frozen=True)
class SecondTable:
    """Rows (analytics.schema.seconds) as columns, one entry per row; code counts as sparse (row, code, n).

    It holds what samples give; `scalars()` and `code_counts()` name its columns by the row's fields."""

    ts: I64
    case: list[str]  # '' = overall
    resps: I64
    expect_ms: npt.NDArray[np.float64]
    phases_ms: list[npt.NDArray[np.float64]]  # connect, send, latency, receive
    input_bytes: I64
    output_bytes: I64
    quantiles_ms: npt.NDArray[np.float64]  # (rows, len(QUANTILE_LEVELS))
    nets: _Sparse
    https: _Sparse
    hist: _Sparse

    @property
    def size(self) -> int:
        return int(self.ts.size)

    @staticmethod
    def empty() -> SecondTable:
        return SecondTable.concat([])

    @staticmethod
    def concat(tables: Sequence[SecondTable]) -> SecondTable:
        offsets = np.cumsum([0, *(t.size for t in tables)])[:-1].astype(np.int64)

        def cat(name: str, empty: npt.NDArray[Any]) -> npt.NDArray[Any]:
            return np.concatenate([empty, *(getattr(t, name) for t in tables)])

        def sparse(name: str) -> _Sparse:
            parts = [
                (getattr(t, name), np.arange(t.size, dtype=np.int64) + o) for t, o in zip(tables, offsets, strict=True)
            ]
            return _Sparse.placed(parts)

        i64, f64 = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
        return SecondTable(
            ts=cat("ts", i64),
            case=[c for t in tables for c in t.case],
            resps=cat("resps", i64),
            expect_ms=cat("expect_ms", f64),
            phases_ms=[np.concatenate([f64, *(t.phases_ms[k] for t in tables)]) for k in range(4)],
            input_bytes=cat("input_bytes", i64),
            output_bytes=cat("output_bytes", i64),
            quantiles_ms=np.concatenate([np.zeros((0, len(QUANTILE_LEVELS))), *(t.quantiles_ms for t in tables)]),
            nets=sparse("nets"),
            https=sparse("https"),
            hist=sparse("hist"),
        )

    def scalars(self) -> dict[str, npt.NDArray[Any] | list[str]]:
        """Each field of the row that is not an array, by name in row order, one entry per row. `reqps` and
        `threads` are the generator's figures (planned RPS, instances), which samples do not carry: 0."""
        n = self.size
        connect, send, latency, receive = self.phases_ms
        return {
            "ts": self.ts,
            "case": self.case,
            "reqps": np.zeros(n, dtype=FIELD["reqps"].dtype),
            "threads": np.zeros(n, dtype=FIELD["threads"].dtype),
            "resps": self.resps,
            "expect_ms": self.expect_ms,
            "connect_time_ms": connect,
            "send_time_ms": send,
            "latency_ms": latency,
            "receive_time_ms": receive,
            "input_bytes": self.input_bytes,
            "output_bytes": self.output_bytes,
            **{column: self.quantiles_ms[:, i] for i, column in enumerate(QUANTILE_COLUMNS)},
        }

    def code_counts(self) -> dict[tuple[str, str], _Sparse]:
        """The row's array fields, per (codes, counts) pair (analytics.schema.seconds.CODE_COUNTS)."""
        return dict(zip(CODE_COUNTS, (self.nets, self.https, self.hist), strict=True))


def _dense(key: I64) -> tuple[I64, I64]:
    """The distinct keys, ascending, and each row's number among them (no sort when the keys span little)."""
    span = int(key.max()) + 1  # keys are >= 0
    if span <= _BINCOUNT_LIMIT:
        present = np.bincount(key, minlength=span) > 0
        number = np.cumsum(present) - 1
        return np.flatnonzero(present).astype(np.int64), number[key]
    distinct, inverse = np.unique(key, return_inverse=True)
    return distinct.astype(np.int64), inverse.reshape(-1).astype(np.int64)


@dataclass
class _Groups:
    """Per-group sums and counts; code counts as sparse (group, code, n)."""

    counts: I64
    timed_counts: I64
    interval_sum: npt.NDArray[np.float64]
    phase_sums: list[npt.NDArray[np.float64]]
    phase_counts: list[I64]
    size_in: I64
    size_out: I64
    hist: _Sparse
    nets: _Sparse
    https: _Sparse

    def summed(self, starts: npt.NDArray[np.intp], group_of: I64) -> _Groups:
        """Groups merged: consecutive groups from each of `starts` on; `group_of` names each one's new group."""

        def add(values: npt.NDArray[Any]) -> npt.NDArray[Any]:
            return np.add.reduceat(values, starts)

        return _Groups(
            counts=add(self.counts),
            timed_counts=add(self.timed_counts),
            interval_sum=add(self.interval_sum),
            phase_sums=[add(v) for v in self.phase_sums],
            phase_counts=[add(v) for v in self.phase_counts],
            size_in=add(self.size_in),
            size_out=add(self.size_out),
            hist=self.hist.regrouped(group_of),
            nets=self.nets.regrouped(group_of),
            https=self.https.regrouped(group_of),
        )

    def expect_ms(self) -> npt.NDArray[np.float64]:
        return _mean_ms(self.interval_sum, self.timed_counts)

    def phases_ms(self) -> list[npt.NDArray[np.float64]]:
        return [_mean_ms(s, c) for s, c in zip(self.phase_sums, self.phase_counts, strict=True)]


def _mean_ms(total_us: npt.NDArray[np.float64], count: I64) -> npt.NDArray[np.float64]:
    out: npt.NDArray[np.float64] = np.divide(total_us, 1000.0 * count, out=np.zeros_like(total_us), where=count > 0)
    return out


def _group_stats(cols: SampleColumns, group: I64, groups: int, timed: npt.NDArray[np.bool_], bins: I64) -> _Groups:
    """Sums and counts of the rows of each group (`group` numbers each row's, in 0 .. groups - 1), in row order."""
    group = np.ascontiguousarray(group, dtype=np.int64)
    return _Groups(
        *_totals(cols, group, groups, timed),
        hist=_Sparse.counted(group, np.ascontiguousarray(bins, dtype=np.int64), groups, mask=timed & (bins >= 0)),
        nets=_Sparse.counted(group, cols.net_code.astype(np.int64), groups),
        https=_Sparse.counted(group, cols.proto_code.astype(np.int64), groups),
    )


# Per group: counts, timed counts, response time sums, the 4 phases' sums and counts, size_in and size_out sums.
_Totals = tuple[I64, I64, npt.NDArray[np.float64], list[npt.NDArray[np.float64]], list[I64], I64, I64]


def _totals(cols: SampleColumns, group: I64, groups: int, timed: npt.NDArray[np.bool_]) -> _Totals:
    counts = np.bincount(group, minlength=groups)

    def total(values: Ints, mask: npt.NDArray[np.bool_]) -> tuple[npt.NDArray[np.float64], I64]:
        # Integer µs summed in float64 stay exact below 2**53 (285 years of response time per second).
        if mask.all():  # the usual case: no discarded requests, no sentinels
            return np.bincount(group, weights=values, minlength=groups).astype(np.float64, copy=False), counts
        sums = np.bincount(group, weights=np.where(mask, values, 0), minlength=groups).astype(np.float64, copy=False)
        # Rows outside the mask are counted in one extra group, then dropped: no compaction of `group`.
        return sums, np.bincount(np.where(mask, group, groups), minlength=groups + 1)[:groups]

    interval_sum, timed_counts = total(cols.interval_real_us, timed)
    phase_sums, phase_counts = [], []
    for phase in (cols.connect_time_us, cols.send_time_us, cols.latency_us, cols.receive_time_us):
        s, n = total(phase, timed & (np.abs(phase) < SENTINEL_ABS_US))
        phase_sums.append(s)
        phase_counts.append(n)
    size_in = _integer_sums(group, cols.size_in_bytes, groups)
    size_out = _integer_sums(group, cols.size_out_bytes, groups)
    return counts, timed_counts, interval_sum, phase_sums, phase_counts, size_in, size_out


def _integer_sums(group: I64, values: Ints, groups: int) -> I64:
    """Exact int64 sums per group: through float64 (bincount) when no partial sum can reach 2**53."""
    if values.size == 0:
        return np.zeros(groups, dtype=np.int64)
    bound = max(abs(int(values.min())), abs(int(values.max()))) * values.size
    if bound < 2**53:
        return np.bincount(group, weights=values, minlength=groups).astype(np.int64)
    order = np.argsort(group, kind="stable")
    sums = np.zeros(groups, dtype=np.int64)
    present, starts = np.unique(group[order], return_index=True)
    sums[present] = np.add.reduceat(values[order], starts)
    return sums


def _sorted_within(group: I64, values: Ints) -> Ints:
    """`values` sorted by (group, value): one sort of packed int64 keys when both fit beside each other."""
    if values.size == 0:
        return values
    low, high = int(values.min()), int(values.max())
    value_bits = max((high - low).bit_length(), 1)
    if int(group.max()).bit_length() + value_bits <= 63:
        packed = (group << value_bits) | (values - low)
        packed.sort()
        packed &= (1 << value_bits) - 1
        packed += low
        return packed
    return values[np.lexsort((values, group))]


def _group_quantiles_ms(sorted_values: Ints, counts: I64) -> npt.NDArray[np.float64]:
    """np.percentile(values, QUANTILE_LEVELS) / 1000 for each group of `counts` consecutive values of an array
    sorted within each group, vectorized.

    The same virtual index and the same lerp as numpy's default ('linear') method, so results equal the tank's.
    """
    hi = np.cumsum(counts)
    lo = hi - counts
    n = counts.astype(np.float64)
    out = np.zeros((lo.size, len(QUANTILE_LEVELS)), dtype=np.float64)
    has = n > 0
    if not has.any():
        return out
    v = sorted_values.astype(np.float64)
    for j, level in enumerate(QUANTILE_LEVELS):
        virtual = (n[has] - 1) * (level / 100)
        below = np.floor(virtual)
        t = virtual - below
        i_below = lo[has] + below.astype(np.int64)
        i_above = np.minimum(i_below + 1, hi[has] - 1)
        a, b = v[i_below], v[i_above]
        diff = b - a
        lerp = np.where(t >= 0.5, b - diff * (1 - t), a + diff * t)
        out[has, j] = lerp / 1000.0
    return out


@dataclass(frozen=True)
class _Sparse:
    """Counts of (group, code) pairs, sorted by group then code, zero counts left out."""

    group: I64
    code: I64
    count: I64

    @staticmethod
    def counted(group: I64, code: I64, groups: int, mask: npt.NDArray[np.bool_] | None = None) -> _Sparse:
        """How often each code occurs in each group (`group` in any order), over the rows of `mask` if given."""
        if mask is not None:
            group, code = group[mask], code[mask]
        if group.size == 0:
            empty = np.zeros(0, dtype=np.int64)
            return _Sparse(empty, empty, empty)
        code_min, code_max = int(code.min()), int(code.max())
        span = code_max - code_min + 1
        if groups * span <= _BINCOUNT_LIMIT:
            # Codes within a narrow range (HTTP, net, histogram bins): count into a (group, code) table, no sort.
            table = np.bincount(group * span + (code - code_min), minlength=groups * span).reshape(groups, span)
            g_of, c_of = np.nonzero(table)
            return _Sparse(g_of.astype(np.int64), c_of.astype(np.int64) + code_min, table[g_of, c_of])
        rel = code - code_min
        distinct = np.flatnonzero(np.bincount(rel)) if span <= _BINCOUNT_LIMIT else None
        if distinct is not None and groups * distinct.size <= _BINCOUNT_LIMIT:
            # Few distinct codes over a wide range: number them densely first.
            dense = np.zeros(span, dtype=np.int64)
            dense[distinct] = np.arange(distinct.size)
            width = distinct.size
            table = np.bincount(group * width + dense[rel], minlength=groups * width).reshape(groups, width)
            g_of, c_of = np.nonzero(table)
            return _Sparse(g_of.astype(np.int64), distinct[c_of] + code_min, table[g_of, c_of])
        combined = group * span + rel
        if not (np.diff(combined) >= 0).all():
            combined = np.sort(combined)
        # Runs of equal (group, code) in sorted order: the histogram arrives sorted by value within a group.
        run_starts = np.flatnonzero(np.r_[True, combined[1:] != combined[:-1]])
        uniq = combined[run_starts]
        return _Sparse(uniq // span, uniq % span + code_min, np.diff(np.r_[run_starts, combined.size]))

    def regrouped(self, group_of: I64) -> _Sparse:
        """The same counts with group g renamed group_of[g] (non-decreasing), equal pairs summed."""
        if self.group.size == 0:
            return self
        group = group_of[self.group]
        code_min = int(self.code.min())
        span = int(self.code.max()) - code_min + 1
        combined = group * span + (self.code - code_min)
        order = np.argsort(combined, kind="stable")
        combined = combined[order]
        run_starts = np.flatnonzero(np.r_[True, combined[1:] != combined[:-1]])
        uniq = combined[run_starts]
        return _Sparse(uniq // span, uniq % span + code_min, np.add.reduceat(self.count[order], run_starts))

    @staticmethod
    def placed(parts: Sequence[tuple[_Sparse, I64]]) -> _Sparse:
        """The counts of several sparse sets on rows of one table: group g of a part goes to row `row_of[g]` (or
        nowhere where it is -1). Each row takes one part's group, whose codes stay in order."""
        groups, codes, counts = [], [], []
        for sparse, row_of in parts:
            rows = row_of[sparse.group] if sparse.group.size else sparse.group
            keep = rows >= 0
            groups.append(rows[keep])
            codes.append(sparse.code[keep])
            counts.append(sparse.count[keep])
        empty = np.zeros(0, dtype=np.int64)
        group, code, count = (np.concatenate([empty, *p]).astype(np.int64) for p in (groups, codes, counts))
        order = np.argsort(group, kind="stable")
        return _Sparse(group[order], code[order], count[order])

    def ends(self, rows: int) -> npt.NDArray[np.uint64]:
        """Where each row's entries end (cumulative), as a ClickHouse Array column's offsets."""
        return np.cumsum(np.bincount(self.group, minlength=rows)).astype(np.uint64)


_BINCOUNT_LIMIT = 4_000_000
