"""Issue 29: the local ClickHouse had its HTTP interface open (on loopback, without a password), and a webhook URL
ran SQL through it. The project's server config (deploy/clickhouse/config.xml.in, which make run, make test, the
local cluster and the spare servers of the tests use) has no HTTP port: a spare server started from it answers the
native protocol and nothing listens where its HTTP port would be."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from backend.testing import ROOT, SpareClickHouse, port_answers

pytestmark = pytest.mark.probe


def test_the_config_has_no_http_port() -> None:
    config = (ROOT / "deploy" / "clickhouse" / "config.xml.in").read_text()
    assert "<http_port>" not in config and "<https_port>" not in config


@pytest.mark.slow
def test_a_server_from_the_config_speaks_native_only(tmp_path: Path) -> None:
    spare = SpareClickHouse(tmp_path / "spare")
    spare.start()
    try:
        assert port_answers(spare.tcp_port)
        with pytest.raises(OSError), socket.create_connection(("127.0.0.1", spare.http_port), timeout=2):
            pass
    finally:
        spare.stop()
