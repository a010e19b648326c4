"""What the fast paths assume of other libraries, checked against what is installed: the versions pinned in
pyproject.toml (the ones backend/fastpaths/README.md and the modules name), and the private internals each module
reaches for. A library upgrade that breaks one fails here by name, with the module to re-check; the modules' own tests
then say whether the fast path still does its job, and the fallback each module documents is what production gets
meanwhile (the slower ordinary path, never a wrong answer).

No service is needed: nothing here connects to anything but a server started in this process.
"""

from __future__ import annotations

import ast
import asyncio
import importlib.metadata
import inspect
import io
import platform
import re
import socket
import textwrap
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from backend.fastpaths import live_direct, socket_body

PACKAGE = Path(__file__).resolve().parents[1]
ROOT = PACKAGE.parents[1]

# Library (as pyproject.toml names it) -> the fast-path modules that rely on it.
RELIED_ON = {
    "uvicorn": ("socket_body.py", "live_direct.py", "asgi_door.py"),
    "httptools": ("socket_body.py", "live_direct.py"),
    "uvicorn-worker": ("socket_body.py", "live_direct.py"),
    "a2wsgi": ("asgi_door.py", "socket_body.py"),
    "clickhouse-driver": ("driver_internals.py",),
    "redis": ("buffer_async.py",),
    "Django": ("asgi_door.py", "shared_answers.py"),
}


def _pins() -> dict[str, str]:
    text = (ROOT / "pyproject.toml").read_text()
    return {name.lower(): version for name, version in re.findall(r'"([A-Za-z0-9_.-]+)(?:\[[^\]]*\])?==([^"]+)"', text)}


def _fail(module: str, what: str, recheck: str) -> str:
    return f"backend/fastpaths/{module}: {what}. Re-check: {recheck}"


# ── Versions: installed = pinned = named ─────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize("library", sorted(RELIED_ON))
def test_the_installed_version_is_the_pinned_one_the_readme_names(library: str) -> None:
    pinned = _pins()[library.lower()]
    installed = importlib.metadata.version(library)
    modules = ", ".join(RELIED_ON[library])
    assert installed == pinned, (
        f"{library} {installed} is installed, pyproject.toml pins {pinned}: {modules} rely on its internals. "
        f"Run this file against the new version, re-check what backend/fastpaths/README.md lists for it, then "
        f"raise the pin and the README's version together."
    )
    readme = (PACKAGE / "README.md").read_text()
    assert f"{library}=={pinned}" in readme, (
        f"backend/fastpaths/README.md does not name {library}=={pinned} (pyproject.toml's pin): "
        f"update its table of versions after re-checking {modules}"
    )


def test_the_versions_the_modules_name_are_the_pinned_ones() -> None:
    pins = _pins()
    named = [
        (path.name, library, version)
        for path in sorted(PACKAGE.glob("*.py"))
        for library, version in re.findall(r"checked against ([A-Za-z0-9_-]+) (\d+(?:\.\d+)+)", path.read_text())
    ]
    assert named, "the modules no longer say which versions they were checked against"
    for module, library, version in named:
        assert pins.get(library.lower()) == version, _fail(
            module,
            f"says it was checked against {library} {version}, pyproject.toml pins {pins.get(library.lower())}",
            "the module against the pinned version, then its docstring",
        )


# ── uvicorn (httptools protocol): socket_body.py, live_direct.py ────────────────────────────────────────────


def _assigned_attributes(cls: type) -> set[str]:
    """The `self.<name> = ...` of the class's __init__ (they are instance attributes: not on the class)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls.__init__)))  # type: ignore[misc]
    names = set()
    for node in ast.walk(tree):
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        for target in targets:
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                names.add(target.attr)
    return names


def test_uvicorns_request_cycle_has_what_the_socket_hand_off_and_the_live_writes_use() -> None:
    from uvicorn.protocols.http import httptools_impl
    from uvicorn.protocols.http.flow_control import FlowControl

    cycle = getattr(httptools_impl, "RequestResponseCycle", None)
    assert cycle is not None, _fail(
        "socket_body.py, live_direct.py",
        "uvicorn's httptools_impl has no RequestResponseCycle",
        "where the connection's transport and flow control now live; live_direct._CYCLE_MODULE",
    )
    assert f"{cycle.__module__}" == live_direct._CYCLE_MODULE
    attributes = _assigned_attributes(cycle)
    for module, names in (
        ("socket_body.py", {"transport", "flow", "body", "more_body", "waiting_for_100_continue", "keep_alive"}),
        ("live_direct.py", {"transport", "response_started", "response_complete", "chunked_encoding", "disconnected"}),
    ):
        missing = names - attributes
        assert not missing, _fail(
            module, f"uvicorn's RequestResponseCycle no longer sets {sorted(missing)}", "take_over / reach"
        )
    for method in ("receive", "send"):
        assert inspect.iscoroutinefunction(getattr(cycle, method, None)), _fail(
            "socket_body.py, live_direct.py",
            f"RequestResponseCycle.{method} is not a coroutine method",
            "that the app's receive/send are still the cycle's bound methods (`__self__`)",
        )
    assert callable(getattr(FlowControl, "pause_reading", None)), _fail(
        "socket_body.py", "uvicorn's FlowControl has no pause_reading", "how take_over stops the loop reading"
    )
    send_source = inspect.getsource(cycle.send)
    assert 'b"%x\\r\\n" % len(body), body, b"\\r\\n"' in send_source, _fail(
        "live_direct.py", "uvicorn's send no longer frames a body chunk as `%x\\r\\n<body>\\r\\n`", "live_direct.chunk"
    )


def test_gunicorns_uvicorn_worker_serves_with_the_httptools_protocol() -> None:
    from uvicorn.protocols.http.auto import AutoHTTPProtocol
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    from uvicorn_worker import UvicornWorker  # type: ignore[import-untyped]

    assert UvicornWorker.CONFIG_KWARGS.get("http", "auto") == "auto", _fail(
        "socket_body.py, live_direct.py",
        "uvicorn-worker no longer leaves the HTTP protocol to uvicorn's 'auto'",
        "which protocol the worker runs (the hand-off and the live writes need httptools')",
    )
    assert AutoHTTPProtocol is HttpToolsProtocol, _fail(
        "socket_body.py, live_direct.py",
        "uvicorn's 'auto' HTTP protocol is not httptools' (is httptools installed?)",
        "that production runs the httptools protocol, else both fast paths fall back to the loop",
    )


def test_through_a_real_uvicorn_a_big_body_is_taken_over_and_a_stream_reached(monkeypatch: pytest.MonkeyPatch) -> None:
    """The functional side of the two checks above, on uvicorn as installed: socket_body.take_over gets the
    connection of a body still arriving, live_direct.reach the transport of a chunked response."""
    import uvicorn

    monkeypatch.setattr(socket_body, "MIN_BYTES", 10)
    seen: dict[str, Any] = {}

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        taken = socket_body.take_over(scope, receive)
        seen["taken_over"] = taken is not None
        body = b""
        if taken is not None:
            body = await asyncio.to_thread(taken.read)  # in a thread, as Django's is: the socket blocks
            taken.close()
        seen["body"] = body
        await send({"type": "http.response.start", "status": 200, "headers": []})
        seen["reached"] = live_direct.reach(send) is not None
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def run() -> None:
        config = uvicorn.Config(
            app, http="httptools", loop="asyncio", lifespan="off", log_config=None, access_log=False
        )
        server = uvicorn.Server(config)
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        serving = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started:
            await asyncio.sleep(0.01)
        reader, writer = await asyncio.open_connection(*sock.getsockname())
        writer.write(b"PUT /x HTTP/1.1\r\nHost: t\r\nContent-Length: 26\r\n\r\nabc")
        await writer.drain()
        await asyncio.sleep(0.1)  # the head and the first bytes parsed before the rest arrives
        writer.write(b"defghijklmnopqrstuvwxyz")
        await writer.drain()
        await asyncio.wait_for(reader.read(), 10)  # the answer, then uvicorn closes (Connection: close)
        writer.close()
        server.should_exit = True
        await serving

    asyncio.run(run())
    assert seen.get("taken_over"), _fail(
        "socket_body.py",
        "take_over returned None under uvicorn's httptools protocol",
        "the RequestResponseCycle's "
        "transport, flow, body and more_body (bodies now come through the loop: slower, still right)",
    )
    assert seen["body"] == b"abcdefghijklmnopqrstuvwxyz", _fail(
        "socket_body.py", f"the body read from the socket was {seen['body']!r}", "SocketBody: what the parser had"
    )
    assert seen.get("reached"), _fail(
        "live_direct.py",
        "reach returned None for a chunked response under uvicorn's httptools protocol",
        "the RequestResponseCycle's response state (events now go through send: slower, still right)",
    )


# ── a2wsgi: asgi_door.py, socket_body.py ─────────────────────────────────────────────────────────────────────


def test_a2wsgi_hands_the_scope_to_the_wsgi_side_and_takes_a_thread_count() -> None:
    from a2wsgi import WSGIMiddleware
    from a2wsgi.wsgi import build_environ

    scope = {
        "type": "http",
        "method": "PUT",
        "path": "/x",
        "query_string": b"",
        "http_version": "1.1",
        "headers": [],
        "root_path": "",
        "server": ("t", 80),
        "client": ("c", 1),
        "scheme": "http",
    }
    environ = build_environ(scope, io.BytesIO())  # type: ignore[arg-type]
    assert environ.get("asgi.scope") is scope, _fail(
        "socket_body.py",
        "a2wsgi no longer puts the ASGI scope into environ['asgi.scope']",
        "with_socket_body: how the taken-over body reaches Django's thread (else uploads hang on an empty body)",
    )
    assert "workers" in inspect.signature(WSGIMiddleware).parameters, _fail(
        "asgi_door.py", "a2wsgi's WSGIMiddleware takes no `workers`", "TankPushASGI's thread pool for Django"
    )


# ── clickhouse-driver: driver_internals.py ───────────────────────────────────────────────────────────────────


def test_clickhouse_drivers_client_and_connection_have_the_steps_of_an_insert() -> None:
    from clickhouse_driver import Client
    from clickhouse_driver.connection import Connection, ServerInfo
    from clickhouse_driver.numpy.result import NumpyQueryResult  # noqa: F401  (imported by the module)
    from clickhouse_driver.result import QueryResult

    for cls, methods in (
        (
            Client,
            ("establish_connection", "receive_sample_block", "receive_profile_events", "receive_end_of_insert_query"),
        ),
        (Connection, ("send_query", "send_external_tables", "send_data")),
    ):
        for method in methods:
            assert callable(getattr(cls, method, None)), _fail(
                "driver_internals.py",
                f"clickhouse-driver's {cls.__name__}.{method} is gone",
                "open_insert / end_insert",
            )
    assert list(inspect.signature(Client.establish_connection).parameters)[1:2] == ["settings"]
    assert list(inspect.signature(Connection.send_query).parameters)[1:2] == ["query"]
    assert list(inspect.signature(Connection.send_data).parameters)[1:2] == ["block"]
    client = Client("127.0.0.1")  # (connects at its first query only)
    assert client.query_result_cls is QueryResult, _fail(
        "driver_internals.py", "Client.query_result_cls is not the result class", "numpy_results"
    )
    connection = client.connection
    for name in ("fout", "socket", "server_info", "block_out"):
        assert name in _assigned_attributes(Connection) or hasattr(connection, name), _fail(
            "driver_internals.py", f"clickhouse-driver's Connection has no `{name}`", "send_block"
        )
    assert "used_revision" in inspect.signature(ServerInfo).parameters, _fail(
        "driver_internals.py", "ServerInfo has no used_revision", "send_block's revision checks"
    )


class _Wire:
    """The socket a Data packet is written to (the driver's buffered writer flushes into it; send_block also sends
    column bytes to it directly)."""

    def __init__(self) -> None:
        self.bytes = bytearray()

    def sendall(self, data: bytes | memoryview) -> None:
        self.bytes += data


def _offline_client(wire: _Wire) -> Any:
    """A clickhouse-driver Client whose connection writes to `wire`, as if connected to a server of the driver's own
    revision."""
    from clickhouse_driver import Client, defines
    from clickhouse_driver.bufferedwriter import BufferedSocketWriter
    from clickhouse_driver.streams.native import BlockOutputStream

    client = Client("127.0.0.1")
    connection = client.connection
    connection.server_info = SimpleNamespace(used_revision=defines.CLIENT_REVISION)
    connection.context.server_info = connection.server_info
    connection.fout = BufferedSocketWriter(wire, defines.BUFFER_SIZE)  # as Connection.connect makes it
    connection.socket = wire
    connection.block_out = BlockOutputStream(connection.fout, connection.context)
    client.receive_profile_events = lambda: None
    return client


def test_a_data_packet_is_the_bytes_the_driver_writes_for_the_same_block() -> None:
    import numpy as np
    from clickhouse_driver.block import ColumnOrientedBlock

    from backend.clickhouse.native import encode_column
    from backend.fastpaths.driver_internals import send_block

    types = {"ts": "UInt32", "case": "String", "ms": "Float64"}
    columns = {
        "ts": np.array([1, 2, 3], dtype=np.uint32),
        "case": np.array(["a", "bb", ""]),
        "ms": np.array([0.5, 1.0, 2.5]),
    }
    by_driver, by_us = _Wire(), _Wire()
    block = ColumnOrientedBlock(
        columns_with_types=list(types.items()), data=[columns[name].tolist() for name in types], types_check=False
    )
    driver = _offline_client(by_driver)
    driver.connection.send_data(block)
    driver.connection.fout.flush()
    send_block(_offline_client(by_us), list(types), types, 3, iter(encode_column(types[n], columns[n]) for n in types))
    assert bytes(by_us.bytes) == bytes(by_driver.bytes), _fail(
        "driver_internals.py",
        "send_block no longer writes the Data packet clickhouse-driver writes for the same block",
        "send_block against the driver's Connection.send_data and BlockOutputStream.write",
    )


# ── redis-py: buffer_async.py (through tankapi.buffer) ──────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("redis://u:p@h:6380/2", {"host": "h", "port": 6380, "db": 2, "username": "u", "password": "p"}),
        ("unix:///run/redis.sock?db=3", {"path": "/run/redis.sock", "db": 3}),
    ],
)
def test_redis_pys_url_parser_gives_what_the_appender_connects_with(url: str, expected: dict[str, Any]) -> None:
    from redis.connection import SSLConnection, UnixDomainSocketConnection, parse_url

    options = parse_url(url)
    assert {key: options.get(key) for key in expected} == expected, _fail(
        "buffer_async.py", f"redis-py's parse_url({url!r}) gives {options}", "_connect and buffer.setup_commands"
    )
    assert (options.get("connection_class") is UnixDomainSocketConnection) == url.startswith("unix:")
    assert parse_url("rediss://h:1/0").get("connection_class") is SSLConnection, _fail(
        "buffer_async.py", "a rediss:// URL is not SSLConnection", "buffer.speaks_plain_resp (TLS must go to redis-py)"
    )


# ── Django: asgi_door.py ─────────────────────────────────────────────────────────────────────────────────────


def test_djangos_handler_builds_its_middleware_chain_around_get_response() -> None:
    from django.core.handlers.asgi import ASGIRequest
    from django.core.handlers.base import BaseHandler

    source = inspect.getsource(BaseHandler.load_middleware)
    assert "self._get_response" in source, _fail(
        "asgi_door.py",
        "BaseHandler.load_middleware no longer wraps self._get_response",
        "_MiddlewareProbe: the door's headers would not come from the middleware chain",
    )
    assert list(inspect.signature(vars(BaseHandler)["_get_response"]).parameters) == ["self", "request"]
    assert list(inspect.signature(ASGIRequest).parameters) == ["scope", "body_file"], _fail(
        "asgi_door.py", "ASGIRequest's constructor changed", "request_of"
    )


# ── The kernel and libc: memory.py, direct_io.py ────────────────────────────────────────────────────────────


@pytest.mark.skipif(platform.system() != "Linux" or platform.libc_ver()[0] != "glibc", reason="glibc only")
def test_glibcs_malloc_options_are_reachable() -> None:
    from backend.fastpaths import memory

    assert memory._libc() is not None, _fail(
        "memory.py",
        "glibc's mallopt / malloc_trim are not found through ctypes",
        "_libc (ingestion then runs with malloc's defaults: slower, still right)",
    )


@pytest.mark.skipif(platform.system() != "Linux", reason="Linux only")
def test_the_kernel_offers_direct_io() -> None:
    import os

    assert hasattr(os, "O_DIRECT"), _fail(
        "direct_io.py", "os.O_DIRECT is missing", "_O_DIRECT (staging files then use the cache)"
    )
