"""The one door for calls to the outside (webhooks, chats, anything added later): an egress policy and a pinned POST.

A URL a user configures may name any host. Before a byte is sent its host is resolved once (`resolve`, the one
place that asks DNS), and every address it resolves to must be allowed: loopback, private, link-local, multicast,
unspecified, reserved and cloud metadata addresses are refused (IPv4 inside IPv6 too: ::ffff:127.0.0.1, 6to4,
NAT64), unless `TANKODROM_EGRESS_ALLOW` names the host or a network holding the address (teams that run chat
servers inside). The connection then goes to the address that was checked: no second lookup that a DNS server
could answer differently (the Host header and the TLS server name stay the URL's host). Redirects are never
followed, at most `TANKODROM_EGRESS_MAX_BYTES` of an answer are read, and a call takes at most the caller's
timeout from connect to the last byte (a watchdog closes the socket).

What a caller may show a user is `Refused.reason` / `Failed.reason`: a class ("refused: address not allowed",
"no answer"), never which step failed or how, so that a delivery log cannot be used as a port scanner.
"""

from __future__ import annotations

import contextlib
import http.client
import ipaddress
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

# Cloud metadata services: link-local already, named anyway so that an allow list of 169.254.0.0/16 or fd00::/8
# never opens them.
METADATA = frozenset({ipaddress.ip_address("169.254.169.254"), ipaddress.ip_address("fd00:ec2::254")})
NAT64 = ipaddress.ip_network("64:ff9b::/96")

REFUSED_ADDRESS = "refused: address not allowed"
NO_ANSWER = "no answer"


class Refused(Exception):
    """The policy refuses the URL; `reason` is what a user may see."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Failed(Exception):
    """The call was made and did not produce an answer (no connection, timeout, broken answer)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Target:
    """A URL whose host was resolved and checked: connect to `address`, say `host`."""

    scheme: str
    host: str
    port: int
    path: str
    address: IPAddress


@dataclass(frozen=True)
class Answer:
    status: int
    reason: str
    body: bytes


@dataclass(frozen=True)
class Allow:
    hosts: frozenset[str]
    networks: tuple[Network, ...]


def allow_list() -> Allow:
    """TANKODROM_EGRESS_ALLOW: comma-separated host names and networks (CIDR) that may be called although inside."""
    hosts: set[str] = set()
    networks: list[Network] = []
    for raw in str(settings.TANKODROM_EGRESS_ALLOW or "").split(","):
        item = raw.strip()
        if not item:
            continue
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            hosts.add(item.lower().rstrip("."))
    return Allow(frozenset(hosts), tuple(networks))


def _embedded_v4(address: IPAddress) -> ipaddress.IPv4Address | None:
    if not isinstance(address, ipaddress.IPv6Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if address in NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def is_public(address: IPAddress) -> bool:
    """An address on the internet proper: not loopback, private, link-local, multicast, reserved, metadata."""
    if address in METADATA:
        return False
    inner = _embedded_v4(address)
    if inner is not None and not is_public(inner):
        return False
    return address.is_global and not (
        address.is_multicast
        or address.is_loopback
        or address.is_link_local
        or address.is_private
        or address.is_reserved
        or address.is_unspecified
    )


def allowed(address: IPAddress, host: str, allow: Allow) -> bool:
    if address in METADATA:
        return False  # never, whatever the allow list says
    if host in allow.hosts:
        return True
    inner = _embedded_v4(address)
    for candidate in (address, inner):
        if candidate is not None and any(
            candidate in net for net in allow.networks if net.version == candidate.version
        ):
            return True
    return is_public(address)


def resolve(host: str, port: int) -> list[IPAddress]:
    """Every address `host` resolves to (the one DNS lookup of a call; tests replace it to play a DNS server)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in infos]


def check(url: str) -> Target:
    """The URL's host resolved and checked; Refused when it may not be called."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise Refused("refused: an http(s) URL is expected")
    if parts.username is not None or parts.password is not None:
        raise Refused("refused: credentials in the URL are not accepted")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise Refused("refused: bad port") from None
    host = parts.hostname.lower().rstrip(".")
    try:
        addresses = resolve(parts.hostname, port)
    except (OSError, UnicodeError, ValueError):
        # A name that does not resolve looks like one that is not allowed: no oracle of internal DNS names.
        raise Refused(REFUSED_ADDRESS) from None
    allow = allow_list()
    if not addresses or not all(allowed(address, host, allow) for address in addresses):
        raise Refused(REFUSED_ADDRESS)
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return Target(parts.scheme, host, port, path, addresses[0])


class _PinnedHTTPS(http.client.HTTPSConnection):
    """TLS to the checked address, with the URL's host as server name and for the certificate check."""

    def __init__(self, address: str, port: int, server_name: str, timeout: float) -> None:
        super().__init__(address, port, timeout=timeout, context=ssl.create_default_context())
        self.server_name = server_name

    def connect(self) -> None:
        http.client.HTTPConnection.connect(self)
        self.sock = self._context.wrap_socket(self.sock, server_hostname=self.server_name)  # type: ignore[attr-defined]


def _connection(target: Target, timeout_s: float) -> http.client.HTTPConnection:
    address = str(target.address)
    if target.scheme == "https":
        return _PinnedHTTPS(address, target.port, target.host, timeout_s)
    return http.client.HTTPConnection(address, target.port, timeout=timeout_s)


def _host_header(target: Target) -> str:
    host = f"[{target.host}]" if ":" in target.host else target.host
    default = 443 if target.scheme == "https" else 80
    return host if target.port == default else f"{host}:{target.port}"


def post(url: str, body: bytes, headers: dict[str, str], *, timeout_s: float) -> Answer:
    """POST `body` to `url` under the egress policy, in at most `timeout_s` from connect to the last byte read.
    Refused (not sent), Failed (no answer), or the Answer (any status: a 3xx is an answer, not followed)."""
    target = check(url)
    max_bytes = int(settings.TANKODROM_EGRESS_MAX_BYTES)
    deadline = time.monotonic() + timeout_s
    conn = _connection(target, timeout_s)
    expired = threading.Event()

    def expire() -> None:
        expired.set()
        sock = conn.sock
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    watchdog = threading.Timer(timeout_s, expire)
    watchdog.daemon = True
    watchdog.start()
    try:
        conn.putrequest("POST", target.path, skip_host=True, skip_accept_encoding=True)
        conn.putheader("Host", _host_header(target))
        for name, value in headers.items():
            conn.putheader(name, value)
        conn.putheader("Content-Length", str(len(body)))
        conn.putheader("Connection", "close")
        conn.endheaders(body)
        response = conn.getresponse()
        if expired.is_set():
            raise TimeoutError  # the watchdog cut the answer's head short: what came is no answer
    except (OSError, http.client.HTTPException, ValueError):
        # Refused, reset, unreachable, timed out, TLS or not HTTP at all: one class, so no scan result leaks.
        watchdog.cancel()
        conn.close()
        raise Failed(NO_ANSWER) from None
    try:
        # The status came: the body is read as far as the cap and the deadline allow, a short read is no failure.
        chunks: list[bytes] = []
        left = max_bytes
        while left > 0 and not expired.is_set() and time.monotonic() < deadline:
            try:
                chunk = response.read1(min(left, 65536))
            except (OSError, http.client.HTTPException, ValueError):
                break
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return Answer(int(response.status), str(response.reason or "")[:100], b"".join(chunks)[:max_bytes])
    finally:
        watchdog.cancel()
        conn.close()
