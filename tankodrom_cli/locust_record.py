"""A Locust request as a line of the listener's record (phout), apart from Locust itself: importing Locust patches
the process for gevent, which only a Locust run wants (tankodrom_cli/locust_plugin.py)."""

from __future__ import annotations

import time

from analytics.schema.codes import UNKNOWN_NET_CODE, Errno

US_PER_MS = 1000
# Words of a failure's exception (its class and text) → errno, as phantom writes them.
_NET_CODES = (
    (("Timeout", "timed out"), Errno.TIMEOUT),
    (("refused", "ConnectionRefused"), Errno.REFUSED),
    (("reset", "RemoteDisconnected", "aborted"), Errno.RESET),
)


def net_code_of(exception: BaseException | None, status: int) -> int:
    """The net code of a request: 0 unless it failed without an HTTP status of 400 or more."""
    if exception is None or status >= 400:
        return 0
    text = f"{type(exception).__name__} {exception}"
    for words, code in _NET_CODES:
        if any(word in text for word in words):
            return code
    return UNKNOWN_NET_CODE


def case_of(request_type: str, name: str) -> str:
    """The case as Locust's stats name the request, kept whole in phout's tag column: tabs and line ends would end
    the field, and phout cuts a tag at its last '#' (so a name holding one gets a '#' appended to be cut)."""
    case = " ".join(f"{request_type} {name}".split())
    return f"{case}#" if "#" in case else case


def phout_line(
    request_type: str, name: str, response_time_ms: float, response_length: int | None, status: int,
    exception: BaseException | None, start_time: float | None,
) -> bytes:  # fmt: skip
    """phout's 12 columns: the send time (unix s, µs), the case, the response time (µs), zeros for the phases Locust
    does not measure, the response's length as size_in, the net code and the HTTP status."""
    interval_us = max(0, round(response_time_ms * US_PER_MS))
    start = start_time if start_time is not None else time.time() - interval_us / 1e6
    size_in = max(0, int(response_length or 0))
    case = case_of(request_type, name)
    net = net_code_of(exception, status)
    return f"{start:.6f}\t{case}\t{interval_us}\t0\t0\t0\t0\t0\t0\t{size_in}\t{net}\t{status}\n".encode()
