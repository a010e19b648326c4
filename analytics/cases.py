"""The one rule for case names at ingest (README "Limits"): a long name is cut, and a test keeps its first N
distinct cases, every later case counted under OTHER_CASES.

Every way in uses it: the result-file parsers (analytics.phout.BatchParser.case_code) and the tank's live stream
(backend/tankapi/flush.py, which keeps a test's kept names between flushes). NO_CASE ('', a request without a case,
or the stream's overall row) is never cut, counted or folded.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

NO_CASE = ""  # stored tag of a request whose phout tag is empty: it counts in the overall row only
OTHER_CASES = "(other cases)"  # the case of every case past the cases_max (README "Limits")
CUT_MARK = "…"  # ends a case name cut to label_max_chars


class CaseCounts(Protocol):
    """Where the rule counts what it changed (analytics.phout.ParseStats for a parser)."""

    labels_cut: int  # distinct case names longer than label_max_chars, stored cut
    cases_folded: int  # distinct cases past cases_max, counted under OTHER_CASES


@dataclass
class CaseTally:
    labels_cut: int = 0
    cases_folded: int = 0


def cut_label(case: str, max_chars: int | None) -> str:
    """A case name as stored: at most `max_chars` characters, a longer one cut and ending in CUT_MARK."""
    if max_chars is None or len(case) <= max_chars:
        return case
    return case[: max(max_chars - 1, 0)] + CUT_MARK


class CaseNames:
    """The code of each case name as read (its index in `cases`, the names as stored), first come first kept.

    `kept` seeds the names a test already keeps (the stream's earlier flushes): they count toward cases_max.
    The limits (None: none) may be set after construction, before the first name is coded."""

    def __init__(
        self,
        label_max_chars: int | None = None,
        cases_max: int | None = None,
        counts: CaseCounts | None = None,
        kept: Iterable[str] = (),
    ) -> None:
        self.label_max_chars = label_max_chars
        self.cases_max = cases_max
        self.counts: CaseCounts = CaseTally() if counts is None else counts
        self.cases: list[str] = []
        self._index: dict[str, int] = {}
        self._kept_cases = 0
        for name in kept:
            if name not in self._index and name != NO_CASE:
                self._kept_cases += 1
                self._add(name)

    def code(self, case: str) -> int:
        """The code of a case name; a new name is cut and, past cases_max, folded into OTHER_CASES."""
        code = self._index.get(case)
        if code is None:
            code = self._new_code(case)
            self._index[case] = code
        return code

    def name(self, case: str) -> str:
        """The case name as stored."""
        return self.cases[self.code(case)]

    def _new_code(self, case: str) -> int:
        name = cut_label(case, self.label_max_chars)
        if name != case:
            self.counts.labels_cut += 1
            known = self._index.get(name)
            if known is not None:
                return known
        if name != NO_CASE:
            if self.cases_max is not None and self._kept_cases >= self.cases_max:
                self.counts.cases_folded += 1
                name = OTHER_CASES
                known = self._index.get(name)
                if known is not None:
                    return known
            else:
                self._kept_cases += 1
        return self._add(name)

    def _add(self, name: str) -> int:
        code = len(self.cases)
        self.cases.append(name)
        self._index[name] = code
        return code
