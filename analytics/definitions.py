"""What each figure means: the one home of every definition the pages, the API and the analysis share.

Every reader takes its rule from here, never writes it again: the ClickHouse queries build their SQL from these
constants (backend/clickhouse/queries/outcomes.py), the analysis (per-case stats, diagnosis, compare, regressions)
calls these functions, the API's serializers send what they return, and the frontend shows what the API sends (the
names, classes and shares of codes come with the answers: it keeps no table of its own).

**A request's outcome.** Every row of a result file is one request, with a net code (errno, or a generator's own:
analytics.schema.codes) and an HTTP code (0 = no HTTP answer).
- *net error*: a net code other than 0. Pandora's *discarded* requests (net code 777, never sent) are net errors
  too: the net codes table counts them like any other code, and they are counted apart as `discarded` as well.
- *HTTP error*: HTTP code 0 (no answer) or 400 and above.
- *failed request* (an *error*): a net error or an HTTP error. From code counts alone (all a tank's stream has),
  failures are the HTTP errors plus the net errors that the no-answer rows do not already account for:
  `http_errors + max(0, net_errors - no_answer)`. That is the exact count whenever a request without an HTTP
  answer carries a net error and a net error never comes with a 4xx/5xx, which is how every generator we read
  writes them (phantom, pandora, BFG, and analytics/formats: a JMeter assertion failure or a Gatling KO with a 2xx
  code is net 999 with its HTTP code, a connection failure is HTTP 0 with its errno).
- *OK*: a request that did not fail. The *error share* is failed / requests, the figure of the test list, the
  header, the chat preview, the KPI `error_share` and the diagnosis.
- *2xx share*: HTTP 2xx / requests, the HTTP codes table's 2xx rows added up.

**Responses per second.** *Mean RPS*: responses over the seconds from the first response to the last (silent seconds
inside count as 0). *Max RPS*: the most the test held for 5 s: over every 5 consecutive seconds, the median second
(3 of the 5 had at least as many), and the largest of those; a test shorter than 5 s gives the median of its
seconds. A one-second burst (a generator catching up after a stall) is not a rate the service sustained.

**Exact quantiles** are the order statistic of rank floor(n × p) (0-based, at most n - 1) among the n response
times: ClickHouse's `quantileExact`, which answers every exact figure, and `analytics.quantiles` in Python; the
histogram rule (analytics.histogram) locates the same rank in its bin. Discarded rows have no response time.

**Numbers as people read them.** The API sends figures at full precision; each is rounded once, where it is shown:
on pages by frontend/src/lib/format.ts, in sentences made on the server (diagnosis findings, the chat preview, the
compare summary, the CI check's reasons) by the `format_*` functions here, which follow the same rules (both are
tested on the same cases: analytics/tests/fixtures/format_cases.json).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Context, Decimal
from http import HTTPStatus
from typing import Literal, get_args

import numpy as np
import numpy.typing as npt

from analytics.schema.codes import (
    BFG_CONNECTION_ERROR_NET_CODE,
    PHANTOM_TIMEOUT_NET_CODE,
    TIMEOUT_NET_CODE,
    UNKNOWN_NET_CODE,
)
from analytics.schema.codes import (
    DISCARDED_NET_CODE as DISCARDED_NET_CODE,  # re-exported: the SQL builders take it from here
)

# ── codes ───────────────────────────────────────────────────────────────────────────────────────────────

NET_OK = 0
NO_HTTP_ANSWER = 0
HTTP_ERROR_FROM = 400  # 4xx and 5xx
HTTP_OK_RANGE = (200, 300)  # [200, 300): the 2xx share
TIMEOUT_NET_CODES = (TIMEOUT_NET_CODE, PHANTOM_TIMEOUT_NET_CODE)

HttpClass = Literal["success", "informational", "redirection", "client_error", "server_error", "no_answer", "other"]
NetClass = Literal["ok", "timeout", "discarded", "error"]
CodeClass = HttpClass | NetClass
CODE_CLASSES: tuple[str, ...] = (*get_args(HttpClass), *get_args(NetClass))
CodeKind = Literal["http", "net"]


def is_net_error(code: int) -> bool:
    """Any net code but 0 (discarded requests included)."""
    return int(code) != NET_OK


def is_discarded(code: int) -> bool:
    return int(code) == DISCARDED_NET_CODE


def is_http_error(code: int) -> bool:
    """An HTTP answer the client would not accept: 4xx, 5xx, or no answer at all (0)."""
    return int(code) == NO_HTTP_ANSWER or int(code) >= HTTP_ERROR_FROM


def is_http_ok(code: int) -> bool:
    return HTTP_OK_RANGE[0] <= int(code) < HTTP_OK_RANGE[1]


def is_failing_code(kind: CodeKind, code: int) -> bool:
    """A code that marks a request as failed: an HTTP error, or a net error."""
    return is_net_error(code) if kind == "net" else is_http_error(code)


def http_class(code: int) -> HttpClass:
    code = int(code)
    if code == NO_HTTP_ANSWER:
        return "no_answer"
    classes: dict[int, HttpClass] = {
        1: "informational",
        2: "success",
        3: "redirection",
        4: "client_error",
        5: "server_error",
    }
    return classes.get(code // 100, "other") if 100 <= code < 600 else "other"


def net_class(code: int) -> NetClass:
    code = int(code)
    if code == NET_OK:
        return "ok"
    if code in TIMEOUT_NET_CODES:
        return "timeout"
    if code == DISCARDED_NET_CODE:
        return "discarded"
    return "error"


def code_class(kind: CodeKind, code: int) -> CodeClass:
    return net_class(code) if kind == "net" else http_class(code)


# Net code names: a fixed table, not `os.strerror`, so the report reads the same whatever OS serves it; the
# generators' own codes (analytics.schema.codes) are not errnos of the server.
NET_CODE_NAMES: dict[int, str] = {
    NET_OK: "OK",
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
    DISCARDED_NET_CODE: "Discarded by the generator (never sent)",
    # Pandora's own code, and what every other format's failure without a code of its own is stored as.
    UNKNOWN_NET_CODE: "Unknown error (a failure with no code of its own)",
}


def net_code_name(code: int) -> str:
    return NET_CODE_NAMES.get(int(code), f"errno {int(code)}")


def http_code_name(code: int) -> str:
    """The meaning of an HTTP status ("Service Unavailable"); 0 is the generators' "no answer" (a net error), other
    codes outside the standard list name their class."""
    code = int(code)
    if code == NO_HTTP_ANSWER:
        return "No answer (see net codes)"
    try:
        return HTTPStatus(code).phrase
    except ValueError:
        kind = {1: "Informational", 2: "Success", 3: "Redirection", 4: "Client error", 5: "Server error"}.get(
            code // 100
        )
        return f"{kind} (non-standard)" if kind else "Non-standard code"


def code_name(kind: CodeKind, code: int) -> str:
    return net_code_name(code) if kind == "net" else http_code_name(code)


# ── outcomes of a set of requests ───────────────────────────────────────────────────────────────────────


def _count(counts: Mapping[int, int], keep: Callable[[int], bool]) -> int:
    return sum(int(n) for code, n in counts.items() if keep(int(code)))


def share(part: float, whole: float) -> float | None:
    """part / whole at full precision; None when there is nothing to share."""
    return float(part) / float(whole) if whole else None


# The counts an `Outcomes` carries, each sent with its share of all requests (`<name>_share`), and what it counts.
OUTCOME_COUNTS: dict[str, str] = {
    "failed": "failed requests: a net error or an HTTP error (the error share)",
    "http_2xx": "requests answered with HTTP 2xx",
    "http_errors": "requests with HTTP code 0 (no answer) or 400 and above",
    "net_errors": "requests with a net code other than 0 (discarded ones included)",
    "discarded": "requests the generator never sent (Pandora's net code 777)",
    "timeouts": "requests that timed out (net code 110, or phantom's 314)",
}


@dataclass(frozen=True)
class Outcomes:
    """What became of a set of requests, from its HTTP and net code counts (the module's definitions)."""

    requests: int
    failed: int
    http_2xx: int
    http_errors: int
    net_errors: int
    discarded: int
    timeouts: int

    @property
    def error_share(self) -> float | None:
        return share(self.failed, self.requests)

    def as_dict(self) -> dict[str, float | int | None]:
        """Counts and their shares of all requests (0..1, full precision): the API's `outcomes`."""
        out: dict[str, float | int | None] = {"requests": self.requests}
        for name in OUTCOME_COUNTS:
            count = int(getattr(self, name))
            out[name] = count
            out[f"{name}_share"] = share(count, self.requests)
        return out


def outcomes(http: Mapping[int, int], net: Mapping[int, int]) -> Outcomes:
    """The outcomes of requests given by their HTTP and net code counts (keys as ints)."""
    http_errors = _count(http, is_http_error)
    net_errors = _count(net, is_net_error)
    no_answer = int(http.get(NO_HTTP_ANSWER, 0))
    return Outcomes(
        requests=sum(int(n) for n in http.values()) or sum(int(n) for n in net.values()),
        failed=failed_count(http_errors, net_errors, no_answer),
        http_2xx=_count(http, is_http_ok),
        http_errors=http_errors,
        net_errors=net_errors,
        discarded=_count(net, is_discarded),
        timeouts=_count(net, lambda c: c in TIMEOUT_NET_CODES),
    )


def failed_count(http_errors: int, net_errors: int, no_answer: int) -> int:
    """Failed requests from the three code counts (the module docstring says why this is exact)."""
    return int(http_errors) + max(0, int(net_errors) - int(no_answer))


def int_keys(counts: Mapping[str, int] | Mapping[int, int]) -> dict[int, int]:
    """Code counts as the API writes them ({"200": 5}) with int keys."""
    return {int(code): int(n) for code, n in counts.items()}


@dataclass(frozen=True)
class CodeRow:
    """One row of a codes table: the code, its class and name, its count and share of all requests."""

    code: int
    code_class: CodeClass
    name: str
    count: int
    share: float

    def as_dict(self) -> dict[str, object]:
        return {"code": self.code, "class": self.code_class, "name": self.name, "count": self.count,
                "share": self.share}  # fmt: skip


def code_rows(kind: CodeKind, counts: Mapping[int, int]) -> list[CodeRow]:
    """A codes table: most frequent first, zero counts dropped, each share of all requests at full precision."""
    total = sum(int(c) for c in counts.values())
    rows = [
        CodeRow(int(code), code_class(kind, int(code)), code_name(kind, int(code)), int(n), int(n) / total)
        for code, n in counts.items()
        if int(n) > 0
    ]
    rows.sort(key=lambda r: (-r.count, r.code))
    return rows


def merge_counts(*parts: Mapping[int, int]) -> dict[int, int]:
    out: dict[int, int] = {}
    for part in parts:
        for code, count in part.items():
            out[int(code)] = out.get(int(code), 0) + int(count)
    return out


# ── responses per second ──────────────────────────────────────────────────────────────────────────────

SUSTAINED_S = 5

# The longest a test may last, from its first second to its last (and a load scheme's whole length): a month of
# soak covers real runs, and every per-second series of a test (plans, charts' buckets, the diagnosis' grids) is
# bounded by it. A file whose times span more is refused naming the limit (a corrupt or hostile time, e.g. one line
# in 1970, would otherwise make such a series billions of seconds long).
MAX_TEST_SPAN_S = 31 * 24 * 3600


@dataclass(frozen=True)
class RpsFigures:
    mean: float
    max: float


def sustained_max_rps(per_second: npt.ArrayLike) -> float:
    """Max RPS of a dense per-second series (the module docstring): the largest 5-second median."""
    x = np.asarray(per_second, dtype=np.float64)
    if x.size == 0:
        return 0.0
    if x.size < SUSTAINED_S:
        return float(np.median(x))
    windows = np.lib.stride_tricks.sliding_window_view(x, SUSTAINED_S)
    return float(np.median(windows, axis=1).max())


def rps_figures(ts: npt.ArrayLike, counts: npt.ArrayLike) -> RpsFigures:
    """Mean and max RPS of responses counted per (second, row): `ts` unix seconds, `counts` responses.

    The figures of the dense series (`per_second_counts`, silent seconds as 0) without laying it out: the mean is
    the responses over the seconds from the first to the last, and only 5-second windows that hold a response can
    have a median above 0. So the cost follows the rows, not the span their times cover (a file with one line at
    1970 and one today is two rows, not 1.7 billion seconds)."""
    t = np.asarray(ts, dtype=np.int64)
    c = np.asarray(counts, dtype=np.float64)
    keep = c > 0
    t, c = t[keep], c[keep]
    if t.size == 0:
        return RpsFigures(mean=0.0, max=0.0)
    seconds, per_row = np.unique(t, return_inverse=True)
    per_second = np.bincount(per_row, weights=c)
    span_s = int(seconds[-1] - seconds[0]) + 1
    mean = float(per_second.sum()) / span_s
    if span_s < SUSTAINED_S:
        dense = np.zeros(span_s)
        dense[seconds - seconds[0]] = per_second
        return RpsFigures(mean=mean, max=float(np.median(dense)))
    # Every window of the dense series that holds a response starts within SUSTAINED_S - 1 seconds before one,
    # and lies within the span.
    starts = np.unique((seconds[:, None] - np.arange(SUSTAINED_S)[None, :]).ravel())
    starts = starts[(starts >= seconds[0]) & (starts <= seconds[-1] - SUSTAINED_S + 1)]
    at = starts[:, None] + np.arange(SUSTAINED_S)[None, :]
    index = np.clip(np.searchsorted(seconds, at), 0, seconds.size - 1)
    windows = np.where(seconds[index] == at, per_second[index], 0.0)
    return RpsFigures(mean=mean, max=float(np.median(windows, axis=1).max()))


# ── exact quantiles ─────────────────────────────────────────────────────────────────────────────────────


def level_fraction(level_pct: float) -> float:
    """A level in percent as the fraction every reader uses (the same double ClickHouse is given)."""
    return float(level_pct) / 100.0


def quantile_ranks(n: int | npt.NDArray[np.int64], levels_pct: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """0-based rank of the quantile at each level among n values: floor(n × p), at most n - 1 (ClickHouse's
    quantileExact, computed on the same doubles: 0.29 × 100 is 28.999…, rank 28, there as here).

    Shape: levels for a scalar n, (rows, levels) for an array of n (0 where n is 0)."""
    fractions = np.asarray(levels_pct, dtype=np.float64) / 100.0
    count = np.maximum(np.asarray(n, dtype=np.int64), 1)[..., None]
    ranks: npt.NDArray[np.int64] = np.minimum(np.floor(fractions * count.astype(np.float64)), count - 1).astype(
        np.int64
    )
    return ranks


# ── numbers in sentences (the pages' formatter, frontend/src/lib/format.ts, follows the same rules) ─────────


_WIDE = Context(prec=1000)  # every digit of any double


def format_fixed(value: float, digits: int) -> str:
    """`value` with `digits` decimals, halves rounded away from zero as JavaScript's toFixed does (Python's own
    format rounds an exact half to even: 0.125 would read 0.12 here and 0.13 on the page)."""
    if not math.isfinite(value):
        return "—"
    exact = Decimal(value)  # the double's exact value: ties are only true ties, as in toFixed
    text = f"{exact.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP, context=_WIDE):f}"
    # A negative value that rounds to zero reads as zero, not "-0.00".
    return text[1:] if text.startswith("-") and not any(c in text for c in "123456789") else text


def format_percent(share_value: float | None, digits: int = 2) -> str:
    """A share (0..1) as a percentage: 0.99512 → "99.51 %"; a tiny non-zero share never reads as 0 ("<0.01 %")."""
    if share_value is None or not math.isfinite(share_value):
        return "—"
    pct = share_value * 100
    if 0 < pct < 10**-digits:
        return f"<{format_fixed(10**-digits, digits)} %"
    return f"{format_fixed(pct, digits)} %"


def format_signed_percent(pct: float | None, digits: int = 1) -> str:
    """A change in % with its sign: +12.3 %, −4.0 % (a true minus sign, as the pages write it)."""
    if pct is None or not math.isfinite(pct):
        return "—"
    text = format_fixed(abs(pct), digits)
    sign = "−" if pct < 0 and text.strip("0.") else "+"
    return f"{sign}{text} %"


def format_ms(value: float | None) -> str:
    """A time in ms as the tables show it: three decimals (µs)."""
    return "—" if value is None or not math.isfinite(value) else format_fixed(value, 3)


THIN_SPACE = "\u2009"  # between thousands: 12 345


def format_count(value: float | None) -> str:
    """Whole numbers as they are, thousands apart (12 345); a fraction below 100 to one decimal (a rate of 2.5/s)."""
    if value is None or not math.isfinite(value):
        return "—"
    text = format_fixed(value, 0 if abs(value) >= 100 or float(value).is_integer() else 1)
    text = text[:-2] if text.endswith(".0") else text
    sign, digits = ("-", text[1:]) if text.startswith("-") else ("", text)
    whole, _, fraction = digits.partition(".")
    grouped = f"{int(whole):,}".replace(",", THIN_SPACE)
    return sign + grouped + (f".{fraction}" if fraction else "")


def format_in_unit(value: float, unit: str) -> str:
    """A figure in its unit as the pages write it: ms to the µs, a rate or count with its unit, a share ("") in %."""
    if unit == "":
        return format_percent(value)
    if unit == "ms":
        return f"{format_ms(value)} ms"
    return f"{format_count(value)} {unit}"
