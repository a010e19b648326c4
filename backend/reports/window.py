"""The view window of every report call: `from`, `to`, `case` (repeatable), `q`, `compress_ratio`, `log`.

Parsed once from the query string into a frozen Window; bad values raise WindowError, which the views turn
into `400 {"error": ...}` naming the parameter. The comparison (backend/compare/service.py) reads its `from`,
`to`, `case` and `q` with the same functions.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.http import QueryDict

from analytics.downsample import parse_compress_ratio
from analytics.quantiles import DEFAULT_LEVELS_PCT, parse_levels

MAX_CASES = 100
MAX_SECOND = 2**32 - 1  # ClickHouse stores seconds as UInt32


class WindowError(ValueError):
    pass


@dataclass(frozen=True)
class Window:
    from_ts: int | None = None
    to_ts: int | None = None
    cases: tuple[str, ...] = ()
    levels_pct: tuple[float, ...] = DEFAULT_LEVELS_PCT
    compress_ratio: int | None = None  # None: chosen from the window's length
    log: bool = False

    @property
    def is_default(self) -> bool:
        """The whole test, overall, default levels, automatic resolution: the view that is cached."""
        return (
            self.from_ts is None
            and self.to_ts is None
            and not self.cases
            and self.levels_pct == DEFAULT_LEVELS_PCT
            and self.compress_ratio is None
        )

    def cache_key(self) -> str:
        cases = ",".join(self.cases)
        levels = ",".join(f"{x:g}" for x in self.levels_pct)
        return f"{self.from_ts}:{self.to_ts}:{cases}:{levels}:{self.compress_ratio}:{int(self.log)}"


def seconds_param(name: str, raw: str | None, *, whole: bool = False) -> int | None:
    """A second (unix, or since a test's start) between 0 and 2^32-1; `whole`: refuse fractions, else truncate."""
    if raw is None or raw == "":  # only the empty value means "not given" (the schema's enum); spaces are refused
        return None
    unit = "a whole number of seconds" if whole else "unix seconds"
    try:
        seconds = int(raw) if whole else float(raw)
        value = int(seconds)
    except (ValueError, OverflowError) as exc:  # "abc", "nan", "inf"
        raise WindowError(f"{name} must be {unit}, got {raw!r}") from exc
    if seconds < 0 or value > MAX_SECOND:  # -0.5 is before 0 too, though it truncates to it
        raise WindowError(f"{name} must be {unit} between 0 and 2^32-1, got {raw!r}")
    return value


def span_params(query: QueryDict, *, whole: bool = False) -> tuple[int | None, int | None]:
    """`from` and `to`; [from, to) with `to` before `from` holds no second: an empty window, as [from, from)."""
    from_ts = seconds_param("from", query.get("from"), whole=whole)
    to_ts = seconds_param("to", query.get("to"), whole=whole)
    if from_ts is not None and to_ts is not None and to_ts < from_ts:
        to_ts = from_ts
    return from_ts, to_ts


def cases_param(query: QueryDict) -> tuple[str, ...]:
    """`case`, repeatable; Overload put several tags in one parameter, comma-separated: both forms are accepted."""
    cases: list[str] = []
    for raw in query.getlist("case"):
        cases.extend(part.strip() for part in raw.split(",") if part.strip())
    if any("\x00" in case for case in cases):
        raise WindowError("case must not contain NUL characters")
    if len(cases) > MAX_CASES:
        raise WindowError(f"at most {MAX_CASES} cases, got {len(cases)}")
    return tuple(dict.fromkeys(cases))


def levels_param(raw: str | None, default: tuple[float, ...] = DEFAULT_LEVELS_PCT) -> tuple[float, ...]:
    """`q`, quantile levels in percent, in the order given; `default` when none is given."""
    if raw is None or not any(part.strip() for part in raw.split(",")):
        return default
    try:
        # To 9 decimals of a percent: ClickHouse cannot parse a subnormal level (2e-309) in the SQL it is bound into.
        return tuple(dict.fromkeys(round(level, 9) for level in parse_levels(raw)))
    except ValueError as exc:
        raise WindowError(f"q: {exc}") from exc


def parse_window(query: QueryDict) -> Window:
    from_ts, to_ts = span_params(query)
    cases = cases_param(query)
    levels = levels_param(query.get("q"))
    try:
        ratio = parse_compress_ratio(query.get("compress_ratio"))
    except ValueError as exc:
        raise WindowError(str(exc)) from exc
    log_raw = (query.get("log") or "").strip().lower()
    if log_raw not in ("", "0", "1", "true", "false"):
        raise WindowError(f"log must be 0 or 1, got {log_raw!r}")
    return Window(
        from_ts=from_ts,
        to_ts=to_ts,
        cases=cases,
        levels_pct=levels,
        compress_ratio=ratio,
        log=log_raw in ("1", "true"),
    )
