"""Samples released second by second, in response-second order, once the stream has moved past their second.

phout is written in completion order, not by response second: pandora writes a line when its request completes,
and the response second is computed from the send time plus the response time, so lines of one second arrive
spread over a stretch of the file. Both consumers of an upload want whole seconds in order:
- the per-second aggregation, which must see every sample of a second at once;
- ClickHouse, whose `samples` table is sorted by response second: a block that arrives sorted is written as it
  is, while an unsorted one is sorted on the server first (on 18.16 that was about 40% of the server's insert
  work for a 10M-line file, measured in bench/phout_upload/README.md). Released pieces follow each other in
  second order too, so the server's squashing of consecutive blocks into one part keeps them sorted.

A second is released once the stream has reached `lag_s` seconds past it. Rows that arrive later than that for a
second already released ("late") are handed back separately and their seconds listed in `late_seconds`: they are
stored like any other row, and the caller recomputes those seconds' aggregates from the stored samples.
Memory is bounded by the rows of `lag_s` seconds plus one batch, whatever the length of the file.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from analytics.phout import PhoutBatch

DEFAULT_LAG_S = 20


@dataclass(frozen=True)
class Released:
    in_order: PhoutBatch | None  # rows of the seconds completed now, sorted by response second (stable)
    late: PhoutBatch | None  # rows of seconds released before: stored, then re-aggregated by the caller


class SecondWindow:
    def __init__(self, lag_s: int = DEFAULT_LAG_S) -> None:
        self.lag_s = lag_s
        self.late_seconds: set[int] = set()
        self._pending: list[PhoutBatch] = []
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
            self._pending.append(batch)
            self._max_sec = max(self._max_sec, int(batch.receive_sec.max()))
        return Released(self._release_through(self._max_sec - self.lag_s), late_rows)

    def finish(self) -> Released:
        return Released(self._release_through(self._max_sec), None)

    def _release_through(self, cutoff: int) -> PhoutBatch | None:
        if cutoff <= self._released_through or not self._pending:
            return None
        pending = PhoutBatch.concat(self._pending)
        self._released_through = cutoff
        ready = pending.receive_sec <= cutoff
        if ready.all():
            self._pending = []
            index = np.argsort(pending.receive_sec, kind="stable")
        else:
            self._pending = [pending.take(~ready)]
            rows = np.flatnonzero(ready)
            # One gather for both the selection and the order: the rows come out sorted, copied once.
            index = rows[np.argsort(pending.receive_sec[rows], kind="stable")]
        return pending.take(index) if index.size else None
