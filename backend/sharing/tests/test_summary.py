"""The one-line summary's wording (pure formatting, by analytics.definitions' formatters: the pages' rules)."""

from __future__ import annotations

from backend.sharing.summary import TestSummary, summary_line


def test_the_line_of_the_issue() -> None:
    summary = TestSummary(responses=50_000, q99_ms=1045.2, max_rps=5000, error_share=0.001)
    assert summary_line(summary) == "q99 1045.200 ms · 5\u2009000 rps · 0.10 % errors"


def test_formats() -> None:
    assert summary_line(None) == "no results yet"
    line = summary_line(TestSummary(responses=1, q99_ms=None, max_rps=2.5, error_share=1.0))
    assert line == "2.5 rps · 100.00 % errors"
    assert summary_line(TestSummary(responses=9, q99_ms=1.0, max_rps=1, error_share=0.00001)).endswith("<0.01 % errors")
