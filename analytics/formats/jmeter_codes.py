"""JMeter's response codes and success flags as phout's HTTP and net codes (shared by the CSV and XML JTL parsers).

JMeter writes the HTTP status as `responseCode` ("200"). When no HTTP answer came, HTTPSamplerBase.errorResult
writes `Non HTTP response code: <exception class>` (apache/jmeter, src/protocol/http/.../HTTPSamplerBase.java,
NON_HTTP_RESPONSE_CODE): the exception names the connection failure, which becomes the errno phantom would have
written (docs/formats.md has the table). A sample that failed with an HTTP code below 400 (an assertion failed, a
transaction with a failing child) gets net code 999, "unknown error": phout has no other place for "failed".
"""

from __future__ import annotations

from analytics.numbers import is_digits
from analytics.schema.codes import UNKNOWN_NET_CODE, Errno

NON_HTTP_PREFIX = "Non HTTP response code:"
# The errno of each connection failure, and the exceptions (simple class names, after the last '.') that name it.
_EXCEPTIONS_OF_ERRNO: dict[int, tuple[str, ...]] = {
    Errno.REFUSED: ("ConnectException", "HttpHostConnectException"),
    Errno.TIMEOUT: ("SocketTimeoutException", "ConnectTimeoutException"),
    Errno.RESET: ("NoHttpResponseException", "SocketException"),
    Errno.UNREACHABLE: ("UnknownHostException", "NoRouteToHostException"),
    Errno.CANNOT_ASSIGN_ADDRESS: ("BindException",),
    Errno.PROTOCOL: ("SSLHandshakeException", "SSLException", "ClientProtocolException"),
    Errno.BROKEN_PIPE: ("IOException",),
}
NET_CODE_OF_EXCEPTION = {name: errno for errno, names in _EXCEPTIONS_OF_ERRNO.items() for name in names}
MAX_HTTP_CODE = 2**15 - 1  # samples.proto_code is Int16


def codes_of(response_code: str, success: bool) -> tuple[int, int] | str:
    """(HTTP code, net code) of one sample, or why its response code cannot be stored."""
    code = response_code.strip()
    if is_digits(code):
        proto = int(code)
        if proto > MAX_HTTP_CODE:
            return f"responseCode {code} is out of range 0..{MAX_HTTP_CODE}"
        net = 0
    elif code.startswith(NON_HTTP_PREFIX):
        exception = code[len(NON_HTTP_PREFIX) :].strip().rsplit(".", 1)[-1]
        proto, net = 0, NET_CODE_OF_EXCEPTION.get(exception, UNKNOWN_NET_CODE)
    else:
        proto, net = 0, 0  # a transaction controller's row, a non-HTTP sampler: no code
    if not success and net == 0 and proto < 400:
        net = UNKNOWN_NET_CODE
    return proto, net
