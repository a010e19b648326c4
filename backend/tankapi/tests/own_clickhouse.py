"""A private clickhouse-server for fault tests: its own config, data dir under var/ and free ports.

The shared ClickHouse on :9000 serves every engineer's tests and must never be stopped; a fault test that stops
ClickHouse mid-stream stops this one instead. The config is deploy/clickhouse/config.xml.in rendered the way
deploy/stack.sh renders it, with this instance's directory and ports.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

from clickhouse_driver import Client

ROOT = Path(__file__).resolve().parents[3]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class OwnClickHouse:
    def __init__(self, base: Path) -> None:
        self.base = base
        self.tcp_port = _free_port()
        self.http_port = _free_port()
        self.process: subprocess.Popen[bytes] | None = None
        home = base / "clickhouse"
        for sub in ("data", "tmp", "log", "user_files", "format_schemas"):
            (home / sub).mkdir(parents=True, exist_ok=True)
        template = (ROOT / "deploy" / "clickhouse" / "config.xml.in").read_text()
        config = (
            template.replace("@VAR@", str(base))
            .replace("@TCP_PORT@", str(self.tcp_port))
            .replace("@HTTP_PORT@", str(self.http_port))
        )
        self.config_path = home / "config.xml"
        self.config_path.write_text(config)
        shutil.copy(ROOT / "deploy" / "clickhouse" / "users.xml", home / "users.xml")

    def answers(self) -> bool:
        client = Client("127.0.0.1", port=self.tcp_port, connect_timeout=1)
        try:
            client.execute("SELECT 1")
            return True
        except Exception:
            return False
        finally:
            client.disconnect()

    def start(self, timeout_s: float = 60) -> None:
        log = open(self.base / "clickhouse" / "log" / "stdout.log", "ab")  # noqa: SIM115 (kept for the process)
        self.process = subprocess.Popen(
            ["clickhouse-server", f"--config-file={self.config_path}"],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            cwd=self.base,
        )
        deadline = time.monotonic() + timeout_s
        while not self.answers():
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"clickhouse-server exited {self.process.returncode}; see {self.base}/clickhouse/log"
                )
            if time.monotonic() > deadline:
                raise RuntimeError("clickhouse-server did not answer in time")
            time.sleep(0.2)

    def stop(self) -> None:
        """Stop this instance (and only this one: the process we started, by its handle)."""
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
        self.process = None
