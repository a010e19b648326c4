"""Tests of the reports API, on the real PostgreSQL, ClickHouse and Redis."""
