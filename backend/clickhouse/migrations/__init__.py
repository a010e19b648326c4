"""Numbered, idempotent ClickHouse migrations.

Each module `NNNN_name.py` has FORWARDS (statements, each safe to run twice: IF NOT EXISTS / IF EXISTS) and
BACKWARDS. They only import table modules' SQL. `backend.clickhouse.migrate.apply_all` runs the pending ones
and records them in `schema_migrations`.
"""
