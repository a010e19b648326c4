"""What an upload's ingestion yields, and the error whose text the uploader is shown."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from analytics.phout import CUT_MARK, OTHER_CASES, BatchParser


class IngestError(Exception):
    """The upload cannot be ingested for a reason the uploader must be told (shown as the upload's error)."""


@dataclass
class IngestResult:
    lines_total: int = 0
    lines_bad: int = 0
    bad_examples: list[dict[str, Any]] = field(default_factory=list)
    rows: int = 0
    note: str = ""  # what the cardinality limits changed (README "Limits"), shown as a ready upload's note
    first_ts: int | None = None
    last_ts: int | None = None

    def count(self, parser: BatchParser) -> None:
        """Take the parser's line counts and first bad lines (analytics.phout.BatchParser.stats)."""
        self.lines_total = parser.stats.lines_total
        self.lines_bad = parser.stats.lines_bad
        self.bad_examples = [{"line": b.line, "reason": b.reason, "text": b.text} for b in parser.stats.bad_examples]
        self.note = limits_note(parser)

    def cover(self, low: int, high: int) -> None:
        """Widen the seconds the upload covers to include low..high."""
        self.first_ts = low if self.first_ts is None else min(self.first_ts, low)
        self.last_ts = high if self.last_ts is None else max(self.last_ts, high)


def limits_note(parser: BatchParser) -> str:
    """What the cardinality limits changed in this file ("" if nothing), for the upload's note."""
    stats = parser.stats
    parts = []
    if stats.labels_cut:
        parts.append(
            f"{stats.labels_cut} case names longer than {parser.label_max_chars} characters were cut "
            f"(they end in {CUT_MARK})"
        )
    if stats.cases_folded:
        parts.append(
            f"{stats.cases_folded} cases past the first {parser.cases_max} were counted under the case {OTHER_CASES!r}"
        )
    return "; ".join(parts)
