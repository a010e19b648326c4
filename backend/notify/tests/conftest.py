"""Fixtures of the notify suite: a component with a baseline and a threshold, and tests of it in ClickHouse."""

from __future__ import annotations

from backend.regressions.tests.conftest import upload_test  # noqa: F401  (fixture)
