"""The tank stream's cardinality limits (README "Limits"), applied by the flusher with the uploads' rule.

A test keeps its first TANKODROM_CASES_MAX distinct cases (analytics.cases.CaseNames, the rule every result-file
parser applies); the rows of every later case are counted, per second, under OTHER_CASES
(analytics.seconds_merge.merge_rows); the overall row ('') is never counted or folded. Case names are cut to
TANKODROM_LABEL_MAX_CHARS already by the push (push.data_rows), and again here for entries buffered otherwise.

The names a test keeps live in Redis (one set per test, CASES_KEY_PREFIX + id), read for the tests of a batch
and added to once the batch is stored: flushes are serial (the flush lock), so the set is the one truth between
them and the processes that run them. The push path is not touched: it stays one Redis round trip.

A second's cases past the limit are merged within a flush batch; the tank sends each second once, all cases in
one push, so a retried push makes the same merged row again (the ReplacingMergeTree keeps one).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django.conf import settings

from analytics.cases import NO_CASE, OTHER_CASES, CaseNames
from analytics.schema.seconds import Row
from analytics.seconds_merge import merge_rows
from backend.tankapi import buffer

CASES_KEY_PREFIX = "tankapi:cases:"
# A test's set outlives its pushes by this long (refreshed at each flush of it): a test is closed long before.
CASES_TTL_S = 7 * 24 * 3600

# (test, second, case as pushed) -> (received_at_us, row): what a flush batch holds of the seconds.
Seconds = dict[tuple[int, int, str], tuple[int, Sequence[Any]]]


def _key(test_id: int) -> str:
    return f"{CASES_KEY_PREFIX}{test_id}"


def load(test_ids: Iterable[int]) -> dict[int, CaseNames]:
    """Each test's case names, seeded with the names it keeps (one Redis round trip for all)."""
    ids = sorted(set(test_ids))
    if not ids:
        return {}
    pipe = buffer.connection().pipeline(transaction=False)
    for test_id in ids:
        pipe.smembers(_key(test_id))
    answers = pipe.execute()
    label_max, cases_max = int(settings.TANKODROM_LABEL_MAX_CHARS), int(settings.TANKODROM_CASES_MAX)
    names: dict[int, CaseNames] = {}
    for test_id, kept in zip(ids, answers, strict=True):
        # Sorted: which names are kept is what matters, and a set has no order.
        seeded = sorted(name.decode() if isinstance(name, bytes) else str(name) for name in kept)
        names[test_id] = CaseNames(label_max, cases_max, kept=seeded)
    return names


def save(seconds: Seconds) -> None:
    """Note the cases a stored batch kept, per test (OTHER_CASES and the overall row are not cases kept)."""
    kept: dict[int, set[str]] = {}
    for test_id, _ts, case in seconds:
        kept.setdefault(test_id, set())
        if case not in (NO_CASE, OTHER_CASES):
            kept[test_id].add(case)
    if not kept:
        return
    pipe = buffer.connection().pipeline(transaction=False)
    for test_id, cases in kept.items():
        if cases:
            pipe.sadd(_key(test_id), *sorted(cases))
        pipe.expire(_key(test_id), CASES_TTL_S)
    pipe.execute()


def fold(seconds: Seconds, names: Mapping[int, CaseNames]) -> Seconds:
    """The batch's seconds with each case as the test stores it: a long name cut, a case past the test's limit
    counted under OTHER_CASES. Rows that land on one key are merged (merge_rows), the newest push's time kept."""
    groups: dict[tuple[int, int, str], list[tuple[int, Sequence[Any]]]] = {}
    for (test_id, ts, case), (received_at_us, row) in seconds.items():
        stored = names[test_id].name(case) if test_id in names and case != NO_CASE else case
        groups.setdefault((test_id, ts, stored), []).append((received_at_us, row))
    folded: Seconds = {}
    for (test_id, ts, case), parts in groups.items():
        if len(parts) == 1 and parts[0][1][1] == case:
            folded[(test_id, ts, case)] = parts[0]  # the common case: a kept name, as pushed
            continue
        rows: list[Row] = [tuple(row) for _at, row in parts]
        folded[(test_id, ts, case)] = (max(at for at, _row in parts), merge_rows(ts, case, rows))
    return folded
