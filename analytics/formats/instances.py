"""Active instances per second (threads, VUs, users) of a generator's file, from what it says along the way.

The tank's stream carries its active instances per second (`threads`); other generators say it differently, and
a parser here gathers what its file says into one `ActiveInstances`:
- levels: a count the generator reports now and then (JMeter's `allThreads` on every sample, or `grpThreads` per
  thread group; k6's `vus` metric). The largest level reported in a second is that second's; a source's level
  holds between its reports, from its first report to its last, and sources (thread groups) add up;
- user events: Gatling's USER START and END records. A user is active in every second from its start's to its
  end's, both included (a user that never ends stays active): starts up to the second minus ends before it.

Memory is one entry per second (per thread group), bounded by the test's length, never by the file's size.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import numpy.typing as npt

UInt32Array = npt.NDArray[np.uint32]
MAX_INSTANCES = 2**32 - 1  # the stored column is UInt32
MAX_DENSE_CELLS = 1 << 20  # (source, second) cells of a block gathered on a grid rather than sorted
MAX_SECOND = 2**32 - 1  # the stored second is UInt32: a report about a later one (a hostile file's) says nothing


class ActiveInstances:
    def __init__(self) -> None:
        self._levels: dict[int, dict[int, int]] = {}  # source → second → largest level reported in it
        self._starts: Counter[int] = Counter()
        self._ends: Counter[int] = Counter()

    def __bool__(self) -> bool:
        return bool(self._levels or self._starts)

    # ── what parsers report ─────────────────────────────────────────────────────────────────────────────────
    def level(self, second: int, count: int, source: int = 0) -> None:
        """`count` instances were active at `second` (in thread group `source`)."""
        if not (0 <= count <= MAX_INSTANCES and 0 <= second <= MAX_SECOND):
            return  # a hostile or broken file's count or time: it says nothing (the parsers name such fields)
        by_second = self._levels.setdefault(source, {})
        if count > by_second.get(second, -1):
            by_second[second] = count

    def levels(self, seconds: npt.ArrayLike, counts: npt.ArrayLike, sources: npt.ArrayLike | None = None) -> None:
        """Many reports at once (a block's columns): the largest per (source, second) is kept."""
        sec = np.asarray(seconds, dtype=np.int64)
        cnt = np.asarray(counts, dtype=np.int64)
        if sec.size == 0:
            return
        src = None if sources is None else np.asarray(sources, dtype=np.int64)
        low, high = int(sec.min()), int(sec.max())
        span, groups = high - low + 1, 1 if src is None else int(src.max()) + 1
        if span * groups <= MAX_DENSE_CELLS:
            # A block's samples span a few seconds: the largest per cell of a small (source, second) grid, so no
            # block is sorted.
            largest = np.full(span * groups, -1, dtype=np.int64)
            np.maximum.at(largest, sec - low if src is None else src * span + (sec - low), cnt)
            cells = np.flatnonzero(largest >= 0)
            keys = zip((cells // span).tolist(), (cells % span + low).tolist(), largest[cells].tolist(), strict=True)
        else:
            # Sorted by (source, second, count): the last entry of each (source, second) run is its largest count.
            if src is None:
                src = np.zeros(sec.size, dtype=np.int64)
            order = np.lexsort((cnt, sec, src))
            sec, cnt, src = sec[order], cnt[order], src[order]
            last = np.ones(sec.size, dtype=np.bool_)
            last[:-1] = (sec[1:] != sec[:-1]) | (src[1:] != src[:-1])
            keys = zip(src[last].tolist(), sec[last].tolist(), cnt[last].tolist(), strict=True)
        for source, second, count in keys:
            self.level(second, count, source)

    def user_started(self, second: int) -> None:
        if 0 <= second <= MAX_SECOND:
            self._starts[second] += 1

    def user_ended(self, second: int) -> None:
        if 0 <= second <= MAX_SECOND:
            self._ends[second] += 1

    # ── per second ──────────────────────────────────────────────────────────────────────────────────────────
    def at(self, seconds: npt.ArrayLike) -> UInt32Array:
        """Active instances at each of `seconds` (0 where the file says nothing)."""
        query = np.asarray(seconds, dtype=np.int64)
        total = np.zeros(query.size, dtype=np.int64)
        for by_second in self._levels.values():
            known = np.array(sorted(by_second), dtype=np.int64)
            counts = np.array([by_second[s] for s in known.tolist()], dtype=np.int64)
            # The latest report at or before each second, inside the source's first..last report.
            index = np.searchsorted(known, query, side="right") - 1
            inside = (index >= 0) & (query <= known[-1])
            total[inside] += counts[index[inside]]
        if self._starts:
            total += _count_up_to(self._starts, query, inclusive=True)
            total -= _count_up_to(self._ends, query, inclusive=False)
        return np.clip(total, 0, MAX_INSTANCES).astype(np.uint32)

    def span(self) -> tuple[int, int] | None:
        """First and last second the file says anything about (None: nothing)."""
        seconds = [s for by_second in self._levels.values() for s in (min(by_second), max(by_second))]
        seconds += [*self._starts, *self._ends]
        return (min(seconds), max(seconds)) if seconds else None


def _count_up_to(events: Counter[int], query: npt.NDArray[np.int64], *, inclusive: bool) -> npt.NDArray[np.int64]:
    """How many events happened at or before (`inclusive`) or before each second of `query`."""
    if not events:
        return np.zeros(query.size, dtype=np.int64)
    known = np.array(sorted(events), dtype=np.int64)
    cumulative = np.cumsum(np.array([events[s] for s in known.tolist()], dtype=np.int64))
    index = np.searchsorted(known, query, side="right" if inclusive else "left") - 1
    return np.where(index >= 0, cumulative[np.maximum(index, 0)], 0)
