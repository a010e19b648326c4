"""A loopback listener that counts every connection it gets (there must be none) and the spellings of a local
address an attacker would try: shared by the egress, delivery and probe tests."""

from __future__ import annotations

import socket
import threading
import time


class Listener:
    """Counts the TCP connections reaching 127.0.0.1:port and [::1]:port (same port): there must be none."""

    def __init__(self) -> None:
        self.connections = 0
        self.closed = False
        self.sockets: list[socket.socket] = []
        v4 = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        v4.bind(("127.0.0.1", 0))
        self.port = int(v4.getsockname()[1])
        self.sockets.append(v4)
        try:
            v6 = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
            v6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            v6.bind(("::1", self.port))
            self.sockets.append(v6)
        except OSError:
            pass  # no IPv6 loopback here: [::1] cannot reach anything either
        for sock in self.sockets:
            sock.listen(16)
            sock.settimeout(0.2)
            threading.Thread(target=self._accept, args=(sock,), daemon=True).start()

    def _accept(self, sock: socket.socket) -> None:
        while not self.closed:
            try:
                conn, _ = sock.accept()
            except (TimeoutError, OSError):
                continue
            self.connections += 1
            conn.close()

    def __enter__(self) -> Listener:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.closed = True
        time.sleep(0.3)
        for sock in self.sockets:
            sock.close()


def spellings(port: int) -> list[str]:
    return [
        f"http://{host}:{port}/?query=INSERT%20INTO%20t"
        for host in (
            "127.0.0.1",
            "localhost",
            "localhost.",
            "LOCALHOST",
            "127.1",
            "127.0.1",
            "0x7f000001",
            "0x7f.1",
            "2130706433",
            "017700000001",
            "0177.0.0.1",
            "0.0.0.0",
            "0",
            "[::1]",
            "[::ffff:127.0.0.1]",
            "[::ffff:7f00:1]",
            "[::]",
            "[0:0:0:0:0:0:0:1]",
        )
    ]
