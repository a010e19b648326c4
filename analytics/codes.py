"""Net and HTTP code counts: names of net codes (errno as phantom and pandora write them) and shares.

Names are a fixed table, not `os.strerror`: the report must read the same whatever OS serves it, and the
generators' own codes (analytics.schema.codes: pandora's 999 and 777, BFG's 1) are not errnos of the server.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from http import HTTPStatus

from analytics.schema.codes import (
    BFG_CONNECTION_ERROR_NET_CODE,
    DISCARDED_NET_CODE,
    PHANTOM_TIMEOUT_NET_CODE,
    TIMEOUT_NET_CODE,
    UNKNOWN_NET_CODE,
)

NET_CODE_NAMES: dict[int, str] = {
    0: "OK",
    BFG_CONNECTION_ERROR_NET_CODE: "Operation not permitted (BFG: connection error)",
    2: "No such file or directory",
    4: "Interrupted system call",
    5: "Input/output error",
    11: "Resource temporarily unavailable",
    12: "Cannot allocate memory",
    13: "Permission denied",
    22: "Invalid argument",
    23: "Too many open files in system",
    24: "Too many open files",
    32: "Broken pipe",
    71: "Protocol error",
    74: "Bad message",
    75: "Value too large for defined data type",
    84: "Invalid or incomplete multibyte or wide character",
    90: "Message too long",
    97: "Address family not supported by protocol",
    98: "Address already in use",
    99: "Cannot assign requested address",
    100: "Network is down",
    101: "Network is unreachable",
    102: "Network dropped connection on reset",
    103: "Software caused connection abort",
    104: "Connection reset by peer",
    105: "No buffer space available",
    106: "Transport endpoint is already connected",
    107: "Transport endpoint is not connected",
    TIMEOUT_NET_CODE: "Connection timed out",
    111: "Connection refused",
    112: "Host is down",
    113: "No route to host",
    114: "Operation already in progress",
    115: "Operation now in progress",
    125: "Operation canceled",
    PHANTOM_TIMEOUT_NET_CODE: "Timeout (phantom)",
    DISCARDED_NET_CODE: "Discarded by the generator (pandora: never sent)",
    UNKNOWN_NET_CODE: "Unknown error (pandora)",
}


def net_code_name(code: int) -> str:
    return NET_CODE_NAMES.get(int(code), f"errno {int(code)}")


@dataclass(frozen=True)
class CodeShare:
    code: int
    count: int
    percent: float
    name: str | None = None


def code_shares(counts: Mapping[int, int], *, with_names: bool = False) -> list[CodeShare]:
    """Rows (code, count, percent of all), most frequent first; zero counts dropped."""
    total = sum(int(c) for c in counts.values())
    rows = [
        CodeShare(
            code=int(code),
            count=int(count),
            percent=round(100.0 * int(count) / total, 3) if total else 0.0,
            name=net_code_name(int(code)) if with_names else None,
        )
        for code, count in counts.items()
        if int(count) > 0
    ]
    rows.sort(key=lambda r: (-r.count, r.code))
    return rows


def merge_counts(*parts: Mapping[int, int]) -> dict[int, int]:
    out: dict[int, int] = {}
    for part in parts:
        for code, count in part.items():
            out[int(code)] = out.get(int(code), 0) + int(count)
    return out


def is_http_error(code: int) -> bool:
    """An HTTP answer the client would not accept: 4xx, 5xx, or no answer at all (0)."""
    return int(code) == 0 or int(code) >= 400


def http_code_name(code: int) -> str:
    """The meaning of an HTTP status for the report's tables ("Service Unavailable"); 0 is the generators' "no
    response" (a net error), other codes outside the standard list name their class."""
    code = int(code)
    if code == 0:
        return "No response (see net codes)"
    try:
        return HTTPStatus(code).phrase
    except ValueError:
        kind = {1: "Informational", 2: "Success", 3: "Redirection", 4: "Client error", 5: "Server error"}.get(
            code // 100
        )
        return f"{kind} (non-standard)" if kind else "Non-standard code"
