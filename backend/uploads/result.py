"""What an upload's ingestion yields, and the error whose text the uploader is shown."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from analytics.definitions import MAX_TEST_SPAN_S
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
        """Widen the seconds the upload covers to include low..high; IngestError past the longest a test may last
        (before the rows that would widen it are stored)."""
        first = low if self.first_ts is None else min(self.first_ts, low)
        last = high if self.last_ts is None else max(self.last_ts, high)
        if last - first > MAX_TEST_SPAN_S:
            raise IngestError(
                f"the file's times run from {_utc(first)} to {_utc(last)}, longer than a test may last "
                f"({MAX_TEST_SPAN_S // 86400} days): a line's time is wrong, or the file holds several tests"
            )
        self.first_ts, self.last_ts = first, last


def _utc(ts: int) -> str:
    try:
        return datetime.fromtimestamp(ts, tz=UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    except (OverflowError, OSError, ValueError):
        return f"unix second {ts}"


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
