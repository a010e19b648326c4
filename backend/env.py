"""The one reader of the process environment.

Every setting that comes from outside goes through here, so `deploy/env.example` can list them all and a
typo'd variable name fails loudly in one place. Defaults serve the local stack started by `deploy/stack.sh`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def get_str(name: str, default: str) -> str:
    # An empty value means "not set": a copied env.example with blank lines must not blank out defaults.
    return os.environ.get(name) or default


def get_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ValueError(f"{name}={raw!r}: expected one of {sorted(_TRUE | _FALSE)}")


def get_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise ValueError(f"{name}={raw!r}: expected an integer") from exc


def get_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


@dataclass(frozen=True)
class DatabaseUrl:
    host: str
    port: int
    name: str
    user: str
    password: str


def parse_database_url(url: str) -> DatabaseUrl:
    """postgres://user:password@host:port/name -> parts (no third-party parser needed for one URL form)."""
    parsed = urlparse(url)
    if parsed.scheme not in {"postgres", "postgresql"}:
        raise ValueError(f"DATABASE_URL must start with postgres://, got {url!r}")
    return DatabaseUrl(
        host=parsed.hostname or "127.0.0.1",
        port=parsed.port or 5432,
        name=unquote(parsed.path.lstrip("/")) or "tankodrom",
        user=unquote(parsed.username or "postgres"),
        password=unquote(parsed.password or ""),
    )


ROOT = Path(__file__).resolve().parent.parent


def var_dir() -> Path:
    """Where this checkout keeps its data, logs and generated secrets (TANKODROM_VAR_DIR, default ./var)."""
    return Path(get_str("TANKODROM_VAR_DIR", str(ROOT / "var")))


def local_clickhouse_password_file(var_dir: Path) -> Path:
    """Where the local ClickHouse's generated password is kept: CLICKHOUSE_PASSWORD_FILE, else
    <var dir>/clickhouse/password (the path deploy/lib.sh writes it to on first start; the two must agree)."""
    return Path(get_str("CLICKHOUSE_PASSWORD_FILE", str(var_dir / "clickhouse" / "password")))


def clickhouse_password(var_dir: Path) -> str:
    """The app user's ClickHouse password: CLICKHOUSE_PASSWORD, else the local ClickHouse's generated one, else
    empty (a server someone runs without a password). The file serves the processes started without deploy/lib.sh
    (a bare `.venv/bin/pytest` or `manage.py` after `make setup`), which then reach the same server with it."""
    explicit = get_str("CLICKHOUSE_PASSWORD", "")
    if explicit:
        return explicit
    try:
        return local_clickhouse_password_file(var_dir).read_text().strip()
    except FileNotFoundError:
        return ""
