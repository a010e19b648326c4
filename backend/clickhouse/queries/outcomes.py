"""The definitions of analytics/definitions.py as ClickHouse expressions, for the queries that count outcomes in
SQL (so that only flat columns travel). Nothing here decides what an error is: each expression is built from the
constants there, and a test checks them against the Python functions on the same rows.
"""

from __future__ import annotations

from analytics.definitions import DISCARDED_NET_CODE, HTTP_ERROR_FROM, NET_OK, NO_HTTP_ANSWER, TIMEOUT_NET_CODES

# Predicates on one code `c` (a lambda's argument over the per-second code arrays).
HTTP_ERROR = f"(c = {NO_HTTP_ANSWER} OR c >= {HTTP_ERROR_FROM})"
NO_ANSWER = f"(c = {NO_HTTP_ANSWER})"
NET_ERROR = f"(c != {NET_OK})"
DISCARDED = f"(c = {DISCARDED_NET_CODE})"
TIMEOUT = f"(c IN ({', '.join(str(code) for code in TIMEOUT_NET_CODES)}))"


def array_count(predicate: str, kind: str) -> str:
    """Requests of one per-second row whose `kind` ('http' or 'net') code satisfies `predicate` (on `c`)."""
    return f"arraySum(arrayFilter((n, c) -> {predicate}, {kind}_counts, {kind}_codes))"


def failed_per_row() -> str:
    """Failed requests of one per-second row (analytics.definitions.failed_count, as SQL)."""
    http_errors, net_errors = array_count(HTTP_ERROR, "http"), array_count(NET_ERROR, "net")
    no_answer = array_count(NO_ANSWER, "http")
    # UInt64 arithmetic: the difference is taken only where it is positive.
    return f"({http_errors} + if({net_errors} > {no_answer}, {net_errors} - {no_answer}, 0))"
