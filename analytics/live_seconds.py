"""The recent seconds of a result file still being written, aggregated per second as the tank streams them.

`tankodrom follow` (tankodrom_cli/follow.py) and the Locust listener parse a generator's file as it grows and push its
seconds through the tank's protocol, so the test is online as a tank's is. Generators write requests as they
complete, so a response second keeps gaining samples for a while after it ends (a slow request started before it,
an output flushed every second). Here the samples of every recent second are kept, and `due` aggregates each second
that gained samples since it was last given, with all of its samples (analytics.aggregate: the same rows an upload of
the file gets): a second is pushed as soon as it is over and pushed again, whole, if more of it arrives. A second
pushed again replaces the earlier push (second_aggregates is a ReplacingMergeTree, the newest push wins).

Memory is the samples of `keep_s` seconds behind the newest: a sample of an older second is counted in
`late_samples` and left to the exact upload of the whole file, which the follow sends beside its pushes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from analytics.aggregate import SecondTable, aggregate_table
from analytics.schema.samples import PhoutBatch

DEFAULT_KEEP_S = 30


class LiveSeconds:
    def __init__(self, keep_s: int = DEFAULT_KEEP_S) -> None:
        self.keep_s = keep_s
        self.late_samples = 0
        self._kept: list[PhoutBatch] = []
        self._changed: set[int] = set()  # seconds that gained samples since `due` last gave them
        self._forgotten_before = -1  # samples of seconds before this one are no longer kept
        self._newest = -1

    def add(self, batch: PhoutBatch) -> None:
        if batch.rows == 0:
            return
        kept = batch.receive_sec >= self._forgotten_before
        if not kept.all():
            self.late_samples += int((~kept).sum())
            batch = batch.take(kept)
            if batch.rows == 0:
                return
        self._kept.append(batch)
        self._changed.update(np.unique(batch.receive_sec).tolist())
        self._newest = max(self._newest, int(batch.receive_sec.max()))

    def due(self, before_s: int, cases: Sequence[str]) -> SecondTable:
        """Rows of every second before `before_s` that gained samples since it was last given (all its samples
        aggregated), in second order; `cases` names the batches' case codes."""
        seconds = sorted(s for s in self._changed if s < before_s)
        if not seconds:
            return SecondTable.empty()
        self._changed.difference_update(seconds)
        samples = PhoutBatch.concat(self._kept) if len(self._kept) > 1 else self._kept[0]
        wanted = np.isin(samples.receive_sec, np.array(seconds, dtype=np.int64))
        table = aggregate_table(samples.take(wanted), cases)
        self._forget(samples)
        return table

    def _forget(self, samples: PhoutBatch) -> None:
        """Keep only the samples of the last `keep_s` seconds (as one batch: the next `due` concatenates less)."""
        self._forgotten_before = max(self._forgotten_before, self._newest - self.keep_s)
        recent = samples.receive_sec >= self._forgotten_before
        self._kept = [samples if recent.all() else samples.take(recent)]
        self._changed = {s for s in self._changed if s >= self._forgotten_before}
