"""The egress policy against a loopback listener that must see no connection at all, whatever the spelling of a local
address; pinning (one lookup), no redirects, the answer's size and time caps."""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from backend.core import egress
from backend.core.tests.ssrf import Listener, spellings

pytestmark = pytest.mark.probe


@pytest.fixture
def listener() -> Iterator[Listener]:
    with Listener() as it:
        yield it


@pytest.mark.parametrize("index", range(len(spellings(1))))
def test_no_spelling_of_a_local_address_reaches_the_loopback_listener(
    listener: Listener, settings: Any, index: int
) -> None:
    settings.TANKODROM_EGRESS_ALLOW = ""
    url = spellings(listener.port)[index]
    with pytest.raises(egress.Refused) as refused:
        egress.post(url, b"{}", {"Content-Type": "application/json"}, timeout_s=2)
    assert refused.value.reason == egress.REFUSED_ADDRESS
    time.sleep(0.3)
    assert listener.connections == 0, url


def test_a_name_resolving_to_loopback_is_refused(
    listener: Listener, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.TANKODROM_EGRESS_ALLOW = ""
    monkeypatch.setattr(egress, "resolve", lambda host, port: [ipaddress.ip_address("127.0.0.1")])
    with pytest.raises(egress.Refused):
        egress.post(f"http://hooks.example.com:{listener.port}/x", b"{}", {}, timeout_s=2)
    # One public and one private answer: refused too (the connection could go to either).
    monkeypatch.setattr(
        egress, "resolve", lambda host, port: [ipaddress.ip_address("8.8.8.8"), ipaddress.ip_address("10.0.0.1")]
    )
    with pytest.raises(egress.Refused):
        egress.check("http://hooks.example.com/x")
    time.sleep(0.3)
    assert listener.connections == 0


@pytest.mark.parametrize(
    "address",
    [
        "10.1.2.3",
        "172.16.0.1",
        "192.168.1.1",
        "169.254.169.254",
        "169.254.1.1",
        "100.64.0.1",
        "224.0.0.1",
        "239.1.1.1",
        "240.0.0.1",
        "255.255.255.255",
        "0.1.2.3",
        "fd00:ec2::254",
        "fe80::1",
        "fc00::1",
        "ff02::1",
        "::",
        "::ffff:10.0.0.1",
        "::ffff:169.254.169.254",
        "2002:7f00:1::",
        "64:ff9b::7f00:1",
        "2001:db8::1",
        "::ffff:8.8.8.8",  # an IPv4-mapped address is refused whatever it maps: DNS answers none
    ],
)
def test_inside_addresses_are_not_public(address: str) -> None:
    assert not egress.is_public(ipaddress.ip_address(address))


@pytest.mark.parametrize("address", ["8.8.8.8", "1.1.1.1", "2a00:1450:4001:80b::200e"])
def test_internet_addresses_are_public(address: str) -> None:
    assert egress.is_public(ipaddress.ip_address(address))


def test_the_allow_list_opens_named_hosts_and_networks_but_never_metadata() -> None:
    allow = egress.Allow(frozenset({"chat.corp"}), (ipaddress.ip_network("10.20.0.0/16"),))
    assert egress.allowed(ipaddress.ip_address("10.1.1.1"), "chat.corp", allow)
    assert egress.allowed(ipaddress.ip_address("10.20.3.4"), "other.corp", allow)
    assert egress.allowed(ipaddress.ip_address("::ffff:10.20.3.4"), "other.corp", allow)
    assert not egress.allowed(ipaddress.ip_address("10.21.3.4"), "other.corp", allow)
    everything = egress.Allow(frozenset({"meta"}), (ipaddress.ip_network("0.0.0.0/0"), ipaddress.ip_network("::/0")))
    assert not egress.allowed(ipaddress.ip_address("169.254.169.254"), "meta", everything)
    assert not egress.allowed(ipaddress.ip_address("fd00:ec2::254"), "meta", everything)


class Recorder(BaseHTTPRequestHandler):
    """An allowed test server on 127.0.0.2: answers as its class attributes say."""

    status = 200
    location = ""
    body = b"ok"
    got: list[dict[str, str]] = []

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        type(self).got.append(dict(self.headers.items()))
        self.send_response(self.status)
        if self.location:
            self.send_header("Location", self.location)
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args: Any) -> None:
        pass


@contextlib.contextmanager
def allowed_server(handler: type[BaseHTTPRequestHandler]) -> Iterator[ThreadingHTTPServer]:
    """`handler` serving on 127.0.0.2 for the block's length."""
    server = ThreadingHTTPServer(("127.0.0.2", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def allowed_socket(*, listening: bool) -> socket.socket:
    """A socket on the allowed 127.0.0.2 (a free port), listening or not: nothing accepts unless the test does."""
    sock = socket.socket()
    sock.bind(("127.0.0.2", 0))
    if listening:
        sock.listen(1)
    return sock


def test_a_redirect_from_an_allowed_server_to_loopback_is_not_followed(listener: Listener, settings: Any) -> None:
    settings.TANKODROM_EGRESS_ALLOW = "127.0.0.2/32"

    class Redirect(Recorder):
        status = 302
        location = f"http://127.0.0.1:{listener.port}/?query=SELECT%201"
        got: list[dict[str, str]] = []

    with allowed_server(Redirect) as server:
        answer = egress.post(f"http://127.0.0.2:{server.server_port}/hook", b"{}", {}, timeout_s=2)
    assert answer.status == 302 and len(Redirect.got) == 1
    time.sleep(0.3)
    assert listener.connections == 0


def test_the_checked_address_is_the_one_connected_to_with_the_hosts_name(
    listener: Listener, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DNS rebinding: the first lookup says an allowed address, any later one loopback; only one lookup is made."""
    settings.TANKODROM_EGRESS_ALLOW = "127.0.0.2/32"
    answers = iter([ipaddress.ip_address("127.0.0.2")])
    monkeypatch.setattr(egress, "resolve", lambda host, port: [next(answers, ipaddress.ip_address("127.0.0.1"))])

    class Host(Recorder):
        got: list[dict[str, str]] = []

    with allowed_server(Host) as server:
        answer = egress.post(f"http://hooks.example.com:{server.server_port}/x", b"{}", {}, timeout_s=2)
    assert answer.status == 200
    assert Host.got[0]["Host"] == f"hooks.example.com:{server.server_port}"
    assert listener.connections == 0


def test_the_answer_read_is_capped_in_bytes(settings: Any) -> None:
    settings.TANKODROM_EGRESS_ALLOW = "127.0.0.2/32"
    settings.TANKODROM_EGRESS_MAX_BYTES = 1000

    class Big(Recorder):
        body = b"x" * 5_000_000
        got: list[dict[str, str]] = []

    with allowed_server(Big) as server:
        answer = egress.post(f"http://127.0.0.2:{server.server_port}/x", b"{}", {}, timeout_s=5)
    assert answer.status == 200 and len(answer.body) == 1000


def test_a_receiver_dripping_its_headers_is_cut_at_the_timeout(settings: Any) -> None:
    """Each byte comes before the socket's timeout, so only a deadline on the whole call ends it."""
    settings.TANKODROM_EGRESS_ALLOW = "127.0.0.2/32"
    server = allowed_socket(listening=True)
    stop = threading.Event()

    def drip() -> None:
        conn, _ = server.accept()
        try:
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\n")
            while not stop.is_set():
                conn.sendall(b"X")
                time.sleep(0.1)
        except OSError:
            pass
        finally:
            conn.close()

    threading.Thread(target=drip, daemon=True).start()
    started = time.monotonic()
    try:
        with pytest.raises(egress.Failed) as failed:
            egress.post(f"http://127.0.0.2:{server.getsockname()[1]}/x", b"{}", {}, timeout_s=1)
    finally:
        stop.set()
        server.close()
    assert failed.value.reason == egress.NO_ANSWER
    assert time.monotonic() - started < 5  # unbounded before: a dripping server held the worker for hours


def test_a_closed_port_and_a_silent_one_fail_alike(settings: Any) -> None:
    """No port scan through the delivery log: refused connections and silence give the same reason."""
    settings.TANKODROM_EGRESS_ALLOW = "127.0.0.2/32"
    silent = allowed_socket(listening=True)
    closed = allowed_socket(listening=False)
    closed_port = closed.getsockname()[1]
    closed.close()
    reasons = []
    for port in (silent.getsockname()[1], closed_port):
        with pytest.raises(egress.Failed) as failed:
            egress.post(f"http://127.0.0.2:{port}/x", b"{}", {}, timeout_s=0.5)
        reasons.append(failed.value.reason)
    silent.close()
    assert reasons == [egress.NO_ANSWER, egress.NO_ANSWER]
