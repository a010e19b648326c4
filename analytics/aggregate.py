"""Per-second, per-case aggregation of phout samples into the shape the tank streams (tank-protocol.md §4.4, §6).

`aggregate()` turns a set of samples (numpy columns) into one `SecondCase` per (response second, case) plus one
overall row per second (case ''), exactly as yandex-tank's aggregator and `second_data_to_push_item` would:
means in ms from µs totals, quantiles by numpy's linear interpolation, the histogram on the tank's grid
(analytics.histogram), net and HTTP code counts. Requests whose tag is empty count in the overall row only.

Two deliberate differences from the tank, both about values that are not response times:
- pandora's `discarded` rows (net code 777, every time zero: requests never sent) count in `resps` and in the
  code counts, but not in means, quantiles or the histogram;
- pandora's ±9223372036854775 sentinels (a phase not measured on timeouts) are left out of that phase's mean
  instead of turning it into nonsense.

Over a stream, analytics.second_window hands `aggregate()` whole seconds in bounded memory; seconds that get
rows after they were aggregated are recomputed by the caller from the stored samples.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from analytics.histogram import bin_indexes_for_values_us
from analytics.phout import NO_CASE

QUANTILE_LEVELS = (50, 75, 80, 85, 90, 95, 98, 99, 100)
DISCARDED_NET_CODE = 777
SENTINEL_ABS_US = 9223372036854775  # pandora's "not measured" value in connect/latency/receive

I64 = npt.NDArray[np.int64]
_NameOf = Callable[[int], tuple[int, str]]  # first row of a group → (second, case)


@dataclass(frozen=True)
class SampleColumns:
    """The columns aggregation needs, one entry per sample. `case_codes` index `cases` ('' = no case)."""

    receive_sec: I64
    case_codes: npt.NDArray[np.int32]
    interval_real_us: I64
    connect_time_us: I64
    send_time_us: I64
    latency_us: I64
    receive_time_us: I64
    size_out_bytes: I64
    size_in_bytes: I64
    net_code: npt.NDArray[np.int32]
    proto_code: npt.NDArray[np.int32]

    @property
    def rows(self) -> int:
        return int(self.receive_sec.size)

    def take(self, index: npt.NDArray[np.bool_] | npt.NDArray[np.intp]) -> SampleColumns:
        return SampleColumns(**{name: getattr(self, name)[index] for name in _FIELDS})

    @staticmethod
    def concat(parts: Sequence[SampleColumns]) -> SampleColumns:
        return SampleColumns(**{name: np.concatenate([getattr(p, name) for p in parts]) for name in _FIELDS})


_FIELDS = tuple(SampleColumns.__dataclass_fields__)


@dataclass(frozen=True)
class SecondCase:
    """One row of `second_aggregates`, in the tank's units (ms for times, bytes for sizes)."""

    ts: int
    case: str  # '' = overall
    resps: int
    expect_ms: float
    connect_time_ms: float
    send_time_ms: float
    latency_ms: float
    receive_time_ms: float
    input_bytes: int
    output_bytes: int
    quantiles_ms: tuple[float, ...]  # at QUANTILE_LEVELS
    net_codes: tuple[int, ...]
    net_counts: tuple[int, ...]
    http_codes: tuple[int, ...]
    http_counts: tuple[int, ...]
    hist_bins: tuple[int, ...]
    hist_counts: tuple[int, ...]


def is_discarded(cols: SampleColumns) -> npt.NDArray[np.bool_]:
    """Pandora's requests never sent: net code 777 with every time zero."""
    return np.asarray(
        (cols.net_code == DISCARDED_NET_CODE)
        & (cols.interval_real_us == 0)
        & (cols.connect_time_us == 0)
        & (cols.latency_us == 0)
        & (cols.receive_time_us == 0)
    )


def aggregate(cols: SampleColumns, cases: Sequence[str]) -> list[SecondCase]:
    """Every (second, case) row and every overall row for these samples, sorted by second, overall last."""
    if cols.rows == 0:
        return []
    discarded = is_discarded(cols)
    bins = bin_indexes_for_values_us(cols.interval_real_us)
    # One full sort, by (second, response time), discarded rows first; the per-case order is derived from it.
    overall_order = _group_then_value_order(cols.receive_sec, np.where(discarded, -1, cols.interval_real_us))
    overall = _aggregate_groups(
        cols, cols.receive_sec, overall_order, discarded, bins, lambda first: (int(cols.receive_sec[first]), "")
    )
    per_case: list[SecondCase] = []
    no_case = [code for code, name in enumerate(cases) if name == NO_CASE]
    case_order = overall_order
    if no_case:
        case_order = overall_order[~np.isin(cols.case_codes[overall_order], no_case)]
    if case_order.size:
        # Cases sorted by name within a second, as the tank sends them.
        order_of_code = np.argsort(np.argsort(np.array(cases, dtype=object))).astype(np.int64)
        key = cols.receive_sec * (len(cases) + 1) + order_of_code[cols.case_codes]
        per_case = _aggregate_groups(
            cols,
            key,
            _regroup(key, case_order),
            discarded,
            bins,
            lambda first: (int(cols.receive_sec[first]), cases[cols.case_codes[first]]),
        )
    rows = per_case + overall
    rows.sort(key=lambda r: (r.ts, r.case == "", r.case))
    return rows


def _regroup(key: I64, order: npt.NDArray[np.intp]) -> npt.NDArray[np.intp]:
    """`order` (sorted by response time within each second) regrouped by `key`, keeping that order in a group.

    A stable sort of a small key is a radix sort in numpy: linear, several times cheaper than sorting again.
    """
    k = key[order]
    rel = k - k.min()
    if int(rel.max()) < 1 << 16:
        return order[np.argsort(rel.astype(np.uint16), kind="stable")]
    return order[np.argsort(k, kind="stable")]


def _aggregate_groups(
    cols: SampleColumns,
    key: I64,
    order: npt.NDArray[np.intp],
    discarded: npt.NDArray[np.bool_],
    all_bins: I64,
    name_of: _NameOf,
) -> list[SecondCase]:
    """Stats of the groups of rows `order` lists, grouped by `key` and by response time inside each group."""
    timed = ~discarded
    key_s = key[order]
    starts = np.flatnonzero(np.r_[True, key_s[1:] != key_s[:-1]])
    ends = np.r_[starts[1:], key_s.size]
    counts = ends - starts
    group_of_row = np.repeat(np.arange(starts.size), counts)

    def total(values: I64, mask: npt.NDArray[np.bool_]) -> tuple[npt.NDArray[np.float64], I64]:
        v = np.where(mask, values, 0)[order]
        m = mask[order].astype(np.int64)
        return np.add.reduceat(v.astype(np.float64), starts), np.add.reduceat(m, starts)

    timed_s = timed[order]
    timed_counts = np.add.reduceat(timed_s.astype(np.int64), starts)
    ir_sum, _ = total(cols.interval_real_us, timed)
    phase_means = []
    for phase in (cols.connect_time_us, cols.send_time_us, cols.latency_us, cols.receive_time_us):
        s, n = total(phase, timed & (np.abs(phase) < SENTINEL_ABS_US))
        phase_means.append(np.divide(s, 1000.0 * n, out=np.zeros_like(s), where=n > 0))
    expect = np.divide(ir_sum, 1000.0 * timed_counts, out=np.zeros_like(ir_sum), where=timed_counts > 0)
    size_in = np.add.reduceat(cols.size_in_bytes[order], starts)
    size_out = np.add.reduceat(cols.size_out_bytes[order], starts)

    quantiles = _group_quantiles_ms(cols.interval_real_us[order], ends - timed_counts, ends)

    bins = all_bins[order]
    in_hist = timed_s & (bins >= 0)
    hist = _pairs(group_of_row[in_hist], bins[in_hist], starts.size)
    nets = _pairs(group_of_row, cols.net_code[order].astype(np.int64), starts.size)
    https = _pairs(group_of_row, cols.proto_code[order].astype(np.int64), starts.size)

    out: list[SecondCase] = []
    for g in range(starts.size):
        ts, case = name_of(int(order[starts[g]]))
        out.append(
            SecondCase(
                ts=ts,
                case=case,
                resps=int(counts[g]),
                expect_ms=float(expect[g]),
                connect_time_ms=float(phase_means[0][g]),
                send_time_ms=float(phase_means[1][g]),
                latency_ms=float(phase_means[2][g]),
                receive_time_ms=float(phase_means[3][g]),
                input_bytes=int(size_in[g]),
                output_bytes=int(size_out[g]),
                quantiles_ms=tuple(float(q) for q in quantiles[g]),
                net_codes=nets[g][0],
                net_counts=nets[g][1],
                http_codes=https[g][0],
                http_counts=https[g][1],
                hist_bins=hist[g][0],
                hist_counts=hist[g][1],
            )
        )
    return out


_VALUE_BITS = 32  # response times below 2**32 µs (71 min) fit beside the group key in one int64


def _group_then_value_order(key: I64, value: I64) -> npt.NDArray[np.intp]:
    """Row order by (key, value). One int64 argsort of a packed key when everything fits (4x faster than lexsort)."""
    if key.size == 0:
        return np.zeros(0, dtype=np.intp)
    rel = key - key.min()
    if (
        int(rel.max()) < (1 << (62 - _VALUE_BITS))
        and int(value.min()) >= -1
        and int(value.max()) < (1 << _VALUE_BITS) - 1
    ):
        packed = (rel << _VALUE_BITS) | (value + 1)
        return np.argsort(packed)
    return np.lexsort((value, key))


def _group_quantiles_ms(sorted_values: I64, lo: I64, hi: I64) -> npt.NDArray[np.float64]:
    """np.percentile(values, QUANTILE_LEVELS) / 1000 for each group [lo, hi) of an ascending array, vectorized.

    The same virtual index and the same lerp as numpy's default ('linear') method, so results equal the tank's.
    """
    n = (hi - lo).astype(np.float64)
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


def _pairs(group: I64, code: I64, groups: int) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Per group: (sorted distinct codes, their counts). `group` must be non-decreasing."""
    result: list[tuple[tuple[int, ...], tuple[int, ...]]] = [((), ())] * groups
    if group.size == 0:
        return result
    code_min = int(code.min())
    span = int(code.max()) - code_min + 1
    distinct = np.flatnonzero(np.bincount(code - code_min)) if span <= _BINCOUNT_LIMIT else None
    if distinct is not None and groups * distinct.size <= _BINCOUNT_LIMIT:
        # Few distinct codes (HTTP, net): number them densely, count into a (group, code) table, no sort.
        dense = np.zeros(span, dtype=np.int64)
        dense[distinct] = np.arange(distinct.size)
        width = distinct.size
        table = np.bincount(group * width + dense[code - code_min], minlength=groups * width).reshape(groups, width)
        g_of, c_of = np.nonzero(table)
        cnt = table[g_of, c_of]
        codes = distinct[c_of] + code_min
    else:
        combined = group * span + (code - code_min)
        if not (np.diff(combined) >= 0).all():
            combined = np.sort(combined)
        # Runs of equal (group, code) in sorted order: the histogram arrives sorted by value within a group.
        run_starts = np.flatnonzero(np.r_[True, combined[1:] != combined[:-1]])
        cnt = np.diff(np.r_[run_starts, combined.size])
        uniq = combined[run_starts]
        g_of = uniq // span
        codes = uniq % span + code_min
    bounds = np.flatnonzero(np.r_[True, g_of[1:] != g_of[:-1], True])
    code_list, count_list, group_list = codes.tolist(), cnt.tolist(), g_of.tolist()
    for a, b in itertools.pairwise(bounds.tolist()):
        result[group_list[a]] = (tuple(code_list[a:b]), tuple(count_list[a:b]))
    return result


_BINCOUNT_LIMIT = 4_000_000
