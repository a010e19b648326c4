"""What the bench scripts share: the app's environment pointed at a bench's own databases, a fresh PostgreSQL
database for it. Scripts import it as `bench.support` (the repository's root on sys.path)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def app_env(database: str, clickhouse_database: str, redis_url: str, var_dir: Path, **extra: str) -> dict[str, str]:
    """This process's environment for the app (manage.py, gunicorn, a worker) on the bench's own PostgreSQL database
    `database`, ClickHouse database and Redis, its files under `var_dir`; `extra` adds or overrides variables."""
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="backend.settings",
        DATABASE_URL=f"postgres://postgres@127.0.0.1:5432/{database}",
        CLICKHOUSE_DATABASE=clickhouse_database,
        REDIS_URL=redis_url,
        TANKODROM_VAR_DIR=str(var_dir),
        PYTHONPATH=str(ROOT),
    )
    env.update(extra)
    return env


def recreate_postgres_database(name: str) -> None:
    """Drop the local PostgreSQL database `name` if it exists and create it empty."""
    subprocess.run(["dropdb", "-h", "127.0.0.1", "-U", "postgres", "--if-exists", name], check=True)
    subprocess.run(["createdb", "-h", "127.0.0.1", "-U", "postgres", name], check=True)
