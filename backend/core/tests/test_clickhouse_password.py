"""Issue 29: the local ClickHouse's `default` user (the app's) had no password, so anything that reached its port on
loopback ran SQL. Every ClickHouse the project runs now asks for one: the local server of `make run`/`make test`
(the suite's own), the spare servers of the fault tests and the local cluster (deploy/clickhouse/users.xml,
deploy/cluster/users.xml), and the servers of both compose files (CLICKHOUSE_PASSWORD, mandatory)."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from clickhouse_driver import Client
from clickhouse_driver.errors import ServerException
from django.conf import settings

from backend import env
from backend.testing import ROOT, SpareClickHouse

pytestmark = pytest.mark.probe

# ClickHouse's answers to a login without the password: REQUIRED_PASSWORD (18.16), AUTHENTICATION_FAILED (later).
REFUSED_LOGIN_CODES = {193, 194, 516}


def _login(port: int, password: str, host: str = "127.0.0.1") -> list[tuple[Any, ...]]:
    conn = Client(host, port=port, user="default", password=password, connect_timeout=3, database="default")
    try:
        return list(conn.execute("SELECT 1"))
    finally:
        conn.disconnect()


def test_the_suites_server_refuses_default_without_the_password(clickhouse: None) -> None:
    cfg: dict[str, Any] = settings.CLICKHOUSE
    assert cfg["password"], "the app connects without a password"
    with pytest.raises(ServerException) as refused:
        _login(int(cfg["port"]), "", host=str(cfg["host"]))
    assert refused.value.code in REFUSED_LOGIN_CODES
    assert _login(int(cfg["port"]), str(cfg["password"]), host=str(cfg["host"])) == [(1,)]


@pytest.mark.slow
def test_a_server_from_the_projects_config_asks_for_its_password(tmp_path: Path) -> None:
    spare = SpareClickHouse(tmp_path / "spare", password="a-password-of-its-own")
    spare.start()
    try:
        for wrong in ("", "not-it"):
            with pytest.raises(ServerException) as refused:
                _login(spare.tcp_port, wrong)
            assert refused.value.code in REFUSED_LOGIN_CODES
        assert _login(spare.tcp_port, "a-password-of-its-own") == [(1,)]
        users = spare.base_dir / "var" / "clickhouse" / "users.xml"
        assert stat.S_IMODE(users.stat().st_mode) == 0o600
        assert "a-password-of-its-own" not in users.read_text()  # its hash only
    finally:
        spare.stop()


def _lib_sh(var_dir: Path, **extra: str) -> dict[str, str]:
    """The variables deploy/lib.sh exports about the password, sourced with `var_dir` as the var dir."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("CLICKHOUSE_", "TANKODROM_"))}
    environ.update(TANKODROM_VAR_DIR=str(var_dir), **extra)
    out = subprocess.run(
        [
            "bash",
            "-c",
            'source "$1/deploy/lib.sh" && printf "%s\\n" "$CLICKHOUSE_PASSWORD_FILE" "$CLICKHOUSE_PASSWORD" '
            '"$CLICKHOUSE_CLIENT_CONFIG"',
            "_",
            str(ROOT),
        ],
        env=environ,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    return dict(zip(("file", "password", "client_config"), out, strict=True))


def test_lib_sh_generates_the_password_once_where_the_app_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CLICKHOUSE_PASSWORD", raising=False)
    monkeypatch.delenv("CLICKHOUSE_PASSWORD_FILE", raising=False)
    first = _lib_sh(tmp_path)
    # One place, as the shell and the settings see it.
    assert Path(first["file"]) == env.local_clickhouse_password_file(tmp_path)
    assert len(first["password"]) >= 32
    assert env.clickhouse_password(tmp_path) == first["password"]
    assert stat.S_IMODE(Path(first["file"]).stat().st_mode) == 0o600
    # The client config holds it, readable by its owner only; no command line carries it.
    client_config = Path(first["client_config"])
    assert first["password"] in client_config.read_text()
    assert stat.S_IMODE(client_config.stat().st_mode) == 0o600
    # Generated once: a second start keeps it.
    assert _lib_sh(tmp_path)["password"] == first["password"]
    # The variable wins over the file (production, or a server someone else runs).
    assert _lib_sh(tmp_path, CLICKHOUSE_PASSWORD="from-the-env")["password"] == "from-the-env"
    monkeypatch.setenv("CLICKHOUSE_PASSWORD", "from-the-env")
    assert env.clickhouse_password(tmp_path) == "from-the-env"


COMPOSE_FILES = [ROOT / "docker-compose.yml", ROOT / "deploy" / "docker-compose.cluster.yml"]


def _clickhouse_services(compose: dict[str, Any]) -> dict[str, Any]:
    return {
        name: service
        for name, service in compose["services"].items()
        if str(service.get("image", "")).startswith("clickhouse/clickhouse-server")
    }


@pytest.mark.parametrize("path", COMPOSE_FILES, ids=lambda p: p.name)
def test_compose_gives_every_clickhouse_and_the_app_the_mandatory_password(path: Path) -> None:
    compose = yaml.safe_load(path.read_text())
    servers = _clickhouse_services(compose)
    assert servers
    mandatory = "${CLICKHOUSE_PASSWORD:?set CLICKHOUSE_PASSWORD in .env}"
    for name, service in servers.items():
        environment = service.get("environment", {})
        assert environment.get("CLICKHOUSE_PASSWORD") == mandatory, name
        assert "CLICKHOUSE_SKIP_USER_SETUP" not in environment, name  # that leaves `default` open
        assert "--password" in str(service["healthcheck"]["test"]), name
        assert "ports" not in service, name  # reached by the app's network only
        # No HTTP interface for queries (nor MySQL/PostgreSQL): the config files mounted remove them.
        mounted = "".join(
            (path.parent / volume.split(":")[0]).read_text()
            for volume in service.get("volumes", [])
            if volume.split(":")[0].endswith(".xml")
        )
        for port in ("http_port", "https_port", "mysql_port", "postgresql_port"):
            assert f'<{port} remove="remove"/>' in mounted, (name, port)
    apps = [s for s in compose["services"].values() if s.get("image") == "tankodrom:latest"]
    assert apps and all(s["environment"].get("CLICKHOUSE_PASSWORD") == mandatory for s in apps)


@pytest.mark.skipif(shutil.which("docker-compose") is None, reason="docker-compose validates offline (make test)")
@pytest.mark.parametrize("path", COMPOSE_FILES, ids=lambda p: p.name)
def test_compose_refuses_to_start_without_a_password(path: Path) -> None:
    base = {k: v for k, v in os.environ.items() if not k.startswith("CLICKHOUSE_")}
    base.update(POSTGRES_PASSWORD="validate", DJANGO_SECRET_KEY="validate")
    command = ["docker-compose", "-f", str(path), "config", "-q"]
    missing = subprocess.run(command, env=base, capture_output=True, text=True, cwd=ROOT)
    assert missing.returncode != 0
    assert "set CLICKHOUSE_PASSWORD in .env" in missing.stderr
    given = subprocess.run(command, env={**base, "CLICKHOUSE_PASSWORD": "x"}, capture_output=True, text=True, cwd=ROOT)
    assert given.returncode == 0, given.stderr


def test_the_local_clusters_nodes_log_in_to_each_other_with_the_password() -> None:
    """A Distributed query and a replica's part fetch log in to the other nodes: both carry the password."""
    cluster = (ROOT / "deploy" / "cluster" / "cluster.xml.in").read_text()
    assert cluster.count("<password>@PASSWORD@</password>") == 5  # four replicas + the interserver credentials
    assert "<interserver_http_credentials>" in cluster
    for users in (ROOT / "deploy" / "clickhouse" / "users.xml", ROOT / "deploy" / "cluster" / "users.xml"):
        text = users.read_text()
        assert "<password_sha256_hex>@PASSWORD_SHA256_HEX@</password_sha256_hex>" in text
        assert "<password>" not in text
