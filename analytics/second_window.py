"""Samples released second by second, in response-second order, once the stream has moved past their second.

phout is written in completion order, not by response second: pandora writes a line when its request completes,
and the response second is computed from the send time plus the response time, so lines of one second arrive
spread over a stretch of the file. Both consumers of an upload want whole seconds in order:
- the per-second aggregation, which must see every sample of a second at once;
- ClickHouse, whose `samples` table is sorted by response second: a block that arrives sorted is written as it
  is, while an unsorted one is sorted on the server first (a large share of the server's insert work:
  bench/phout_upload/README.md). Released pieces follow each other in
  second order too, so the server's squashing of consecutive blocks into one part keeps them sorted.

Rows come out sorted by (response second, case code): within a second the rows of one case are adjacent, so the tag
column of a released piece is a few runs of equal values (cheap to encode for ClickHouse, see
backend/clickhouse/native.py). Each batch's row order is found once as it arrives (a radix argsort of a small key),
and the batch itself stays as parsed (the parser hands out fresh columns for every batch, never a buffer it fills
again: analytics/tests/test_phout_native.py holds it to that). A release gathers the due prefix of each pending
batch's order straight into the released piece's columns, side by side: each row is copied once on its way through
the window (sorting each batch, then putting the sorted parts side by side, would copy it twice). Then only the
stretch where the parts overlap (usually the second at a batch boundary) is sorted in place, instead of a second
gather of every row (bench/phout_upload/README.md has what each saves).

A second is released once the stream has reached `lag_s` seconds past it. Rows that arrive later than that for a
second already released ("late") are handed back separately and their seconds listed in `late_seconds`: they are
stored like any other row, and the caller recomputes those seconds' aggregates from the stored samples.
Memory is bounded by the rows of `lag_s` seconds plus one batch, whatever the length of the file.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from analytics.schema.samples import FIELDS, PhoutBatch

DEFAULT_LAG_S = 20


@dataclass(frozen=True)
class Released:
    in_order: PhoutBatch | None  # rows of the seconds completed now, sorted by (response second, case code)
    late: PhoutBatch | None  # rows of seconds released before: stored, then re-aggregated by the caller


@dataclass(frozen=True)
class _Pending:
    """A batch as parsed, with the rows of it not yet released: their numbers and seconds, in (second, case) order."""

    batch: PhoutBatch
    order: npt.NDArray[np.intp]
    seconds: npt.NDArray[np.int64]  # batch.receive_sec[order], for finding what a release takes


class SecondWindow:
    def __init__(self, lag_s: int = DEFAULT_LAG_S) -> None:
        self.lag_s = lag_s
        self.late_seconds: set[int] = set()
        self._pending: list[_Pending] = []
        self._released_through = -1  # every second <= this one has been released
        self._max_sec = -1

    def add(self, batch: PhoutBatch) -> Released:
        late_rows: PhoutBatch | None = None
        if batch.rows == 0:
            return Released(None, None)
        late = batch.receive_sec <= self._released_through
        if late.any():
            late_rows = batch.take(late)
            self.late_seconds.update(int(s) for s in np.unique(late_rows.receive_sec))
            batch = batch.take(~late)
        if batch.rows:
            order = _order(batch)
            self._pending.append(_Pending(batch, order, batch.receive_sec[order]))
            self._max_sec = max(self._max_sec, int(batch.receive_sec.max()))
        return Released(self._release_through(self._max_sec - self.lag_s), late_rows)

    def finish(self) -> Released:
        return Released(self._release_through(self._max_sec), None)

    def _release_through(self, cutoff: int) -> PhoutBatch | None:
        if cutoff <= self._released_through or not self._pending:
            return None
        self._released_through = cutoff
        ready: list[tuple[PhoutBatch, npt.NDArray[np.intp]]] = []
        rest: list[_Pending] = []
        for pending in self._pending:
            end = int(np.searchsorted(pending.seconds, cutoff, side="right"))
            if end:
                ready.append((pending.batch, pending.order[:end]))
            if end < pending.order.size:
                rest.append(_Pending(pending.batch, pending.order[end:], pending.seconds[end:]))
        self._pending = rest
        if not ready:
            return None
        gathered = _gathered(ready)
        return gathered if len(ready) == 1 else _merged_in_order(gathered)


def _gathered(parts: list[tuple[PhoutBatch, npt.NDArray[np.intp]]]) -> PhoutBatch:
    """The rows `index` of each batch, the parts side by side in fresh columns: one gather per column and part."""
    rows = sum(index.size for _, index in parts)
    columns = {}
    for name in FIELDS:
        out = np.empty(rows, dtype=getattr(parts[0][0], name).dtype)
        start = 0
        for batch, index in parts:
            # mode="clip": the indexes are in range, and numpy buffers an `out` only under the default "raise".
            np.take(getattr(batch, name), index, out=out[start : start + index.size], mode="clip")
            start += index.size
        columns[name] = out
    return PhoutBatch(**columns)


def _merged_in_order(merged: PhoutBatch) -> PhoutBatch:
    """`merged` (fresh columns: pieces that are each in order, side by side), stably sorted in place.

    Rows before `lo` are no greater than any row after them, rows from `hi` on no smaller than any before them, so
    only rows lo..hi-1 move; that equals a stable sort of the whole, because equal keys keep their order.
    """
    packed = _key(merged)
    if packed is None:
        return merged.take(_order(merged))
    key, _ = packed
    descents = np.flatnonzero(key[1:] < key[:-1])
    if descents.size == 0:
        return merged
    first, last = int(descents[0]) + 1, int(descents[-1]) + 1  # key[:first] and key[last:] are in order
    lo = int(np.searchsorted(key[:first], key[first:].min(), side="right"))
    hi = last + int(np.searchsorted(key[last:], key[:last].max(), side="left"))
    local = np.argsort(key[lo:hi], kind="stable")
    for name in FIELDS:
        column = getattr(merged, name)
        column[lo:hi] = column[lo:hi][local]
    return merged


def _key(batch: PhoutBatch) -> tuple[npt.NDArray[np.int64], int] | None:
    """(response second, case code) packed into one int64 per row, and the span of the packed values; None when
    that span is too wide for an int64."""
    sec, codes = batch.receive_sec, batch.case_codes
    low = int(sec.min())
    width = int(codes.max()) + 1
    span = (int(sec.max()) - low + 1) * width
    if span >= 1 << 62:
        return None
    return np.asarray((sec - low) * width + codes, dtype=np.int64), span


def _order(batch: PhoutBatch) -> npt.NDArray[np.intp]:
    """Row order by (response second, case code), stable."""
    packed = _key(batch)
    if packed is None:
        return np.lexsort((batch.case_codes, batch.receive_sec))
    key, span = packed
    if span <= 1 << 16:
        # A stable sort of a 16-bit key is a radix sort in numpy: linear, several times cheaper than comparing.
        return np.argsort(key.astype(np.uint16), kind="stable")
    return np.argsort(key, kind="stable")
