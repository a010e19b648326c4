"""What a report read selects: one test, one source, a window of seconds and cases.

Shared by the report query modules so every area filters the same way: `[from_ts, to_ts)` on the response
second, cases by name ('' = the overall rows of second_aggregates; none selected = overall).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Case names are the same in both tables (analytics.phout.case_of_tag): a phout tag emptied by the cut at the
# last '#' is the tank's `__NOTAG__` case in both; a request with an empty tag is stored with tag '' in samples
# and belongs to no case (overall only), just as the tank leaves it out of its per-case items.


@dataclass(frozen=True)
class Selection:
    test_id: int
    source_id: int  # second_aggregates: 0 = tank stream, else the upload id
    upload_id: int | None  # samples: the active upload, None when the test has no raw samples
    from_ts: int | None = None
    to_ts: int | None = None
    cases: tuple[str, ...] = field(default=())

    def params(self) -> dict[str, Any]:
        return {
            "test_id": self.test_id,
            "source_id": self.source_id,
            "upload_id": self.upload_id or 0,
            "from_ts": self.from_ts or 0,
            "to_ts": self.to_ts or 0,
            "cases": tuple(self.cases) or ("",),
        }

    def aggregates_where(self, *, all_cases: bool = False) -> str:
        """WHERE clause for second_aggregates (no values inside: they are bound from params())."""
        parts = ["test_id = %(test_id)s", "source_id = %(source_id)s"]
        parts += self._window("ts")
        if not all_cases:
            parts.append("case IN %(cases)s")
        return " AND ".join(parts)

    def samples_where(self, *, all_tags: bool = False) -> str:
        """WHERE clause for samples of the active upload."""
        parts = ["test_id = %(test_id)s", "upload_id = %(upload_id)s"]
        parts += self._window("receive_sec")
        if self.cases and not all_tags:
            parts.append("tag IN %(cases)s")
        return " AND ".join(parts)

    def _window(self, column: str) -> list[str]:
        parts = []
        if self.from_ts is not None:
            parts.append(f"{column} >= %(from_ts)s")
        if self.to_ts is not None:
            parts.append(f"{column} < %(to_ts)s")
        return parts
