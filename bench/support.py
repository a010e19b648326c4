"""What the bench scripts share: the app's environment pointed at a bench's own databases, a fresh PostgreSQL
database for it. Scripts import it as `bench.support` (the repository's root on sys.path)."""

from __future__ import annotations

import contextlib
import fcntl
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

from backend import env as env_module

ROOT = Path(__file__).resolve().parents[1]
# One file every timing bench locks, so that two of them never share the machine's cores while they measure.
LOCK = "/tmp/tankodrom-bench.lock"


def clickhouse_password() -> str:
    """The password of the app's ClickHouse user, as the app reads it (CLICKHOUSE_PASSWORD, else the local
    server's generated one in this checkout's var dir)."""
    return env_module.clickhouse_password(env_module.var_dir())


def clickhouse_client_args() -> list[str]:
    """clickhouse-client and its options to log in as the app's user: the password in a client config file readable
    by its owner only (the file deploy/lib.sh writes too), not on a command line that `ps` shows everyone."""
    config = env_module.var_dir() / "run" / "clickhouse-client.xml"
    config.parent.mkdir(parents=True, exist_ok=True)
    password = clickhouse_password().replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    fd = os.open(config, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(f"<config><user>default</user><password>{password}</password></config>\n")
    return ["clickhouse-client", "--config-file", str(config)]


def app_env(database: str, clickhouse_database: str, redis_url: str, var_dir: Path, **extra: str) -> dict[str, str]:
    """This process's environment for the app (manage.py, gunicorn, a worker) on the bench's own PostgreSQL database
    `database`, ClickHouse database and Redis, its files under `var_dir`; `extra` adds or overrides variables."""
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="backend.settings",
        DATABASE_URL=f"postgres://postgres@127.0.0.1:5432/{database}",
        CLICKHOUSE_DATABASE=clickhouse_database,
        # The password of this checkout's server: the bench's var dir has none of its own.
        CLICKHOUSE_PASSWORD=clickhouse_password(),
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


@contextlib.contextmanager
def exclusive_lock() -> Iterator[None]:
    """Hold the benches' lock file while timing: another bench waits for it instead of skewing the figures."""
    with open(LOCK, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
