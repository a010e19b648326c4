"""Net codes with a meaning of their own to the analysis: the generators' own codes, which are not errnos of the
server, the errno a timeout is written as, and the errnos other generators' connection failures are stored as.

Everything that reads or writes net codes (aggregation, the ClickHouse queries, the code names of the report,
the diagnosis) takes them from here.
"""

from __future__ import annotations

# Pandora's rows for requests it never sent (no free instance): counted in the code counts and in `resps`, kept out
# of every response-time figure (means, quantiles, the histogram). Its times are all zero.
DISCARDED_NET_CODE = 777
# Pandora's "unknown error"; other generators' failures that have no code of their own are stored as it too.
UNKNOWN_NET_CODE = 999
# Phantom's timeout (its own code, beside the errno below).
PHANTOM_TIMEOUT_NET_CODE = 314
# BFG's connection error (it writes 1, which is EPERM as an errno).
BFG_CONNECTION_ERROR_NET_CODE = 1
# ETIMEDOUT: how phantom and pandora write a request that timed out.
TIMEOUT_NET_CODE = 110


class Errno:
    """The errnos (Linux numbering, as phantom writes them) that other generators' connection failures are stored
    as (analytics/formats, docs/formats.md); a failure with none of its own is UNKNOWN_NET_CODE."""

    BROKEN_PIPE = 32  # EPIPE
    PROTOCOL = 71  # EPROTO
    CANNOT_ASSIGN_ADDRESS = 99  # EADDRNOTAVAIL
    RESET = 104  # ECONNRESET
    TIMEOUT = TIMEOUT_NET_CODE
    REFUSED = 111  # ECONNREFUSED
    UNREACHABLE = 113  # EHOSTUNREACH
