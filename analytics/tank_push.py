"""Parsing of Yandex.Tank's Overload upload bodies: `push_data.json` items and monitoring chunks.

Pure: JSON-decoded Python values in, rows out (no Django, no driver, no I/O): a pushed second is a row of
analytics.schema.seconds, a tuple of values in ROW_FIELDS order, which is what the buffer keeps and the flush
inserts. The server parses a body once in the view (so a malformed push gets a 400 naming the item) and again in
the buffer flusher (so the durable buffer holds the tank's own bytes, and a parser fix applies to what is still
buffered).

Shapes and units: tank-protocol.md §4.4 (push_data) and §4.5 (monitoring). Times in a push item are already in
ms (means and quantiles), sizes in bytes; histogram bins are stored as indexes of their upper edge on the tank's
fixed grid (analytics.histogram), so seconds merge exactly by summing counts per index.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np

from analytics.histogram import BIN_COUNT, BIN_EDGES_US, bin_index_of_upper_edge_ms
from analytics.schema.seconds import CODE_COUNTS, COLUMN_RANGES, ROW_FIELDS, TRAIL_FIELDS, TRAIL_KEYS, Row

OVERALL_CASE = ""
# The tank renames an empty tag to this; the 2016 plugin used "__EMPTY__". One name keeps '' = overall unique.
NOTAG_CASE = "__NOTAG__"
LEGACY_NOTAG = "__EMPTY__"
_LEGACY_TIME_FORMAT = "%Y-%m-%d %H:%M:%S"
# Bounds of a plausible unix second (2000-01-01 .. 2100-01-01): a wrong unit (ms) is refused, not stored.
_MIN_TS = 946_684_800
_MAX_TS = 4_102_444_800


class PushFormatError(ValueError):
    """A body that is not what the tank sends; the message names the item and the field."""


def out_of_range(field: str, value: object, column: str) -> PushFormatError:
    low, high = COLUMN_RANGES[column]
    return PushFormatError(f"{field} {value!r} does not fit its column (from {low} to {high})")


def check_text(text: str, field: str) -> str:
    """`text` if it can be stored (UTF-8 without NUL): a lone surrogate (JSON's "\\ud800") or a NUL is refused."""
    if "\x00" in text:
        raise PushFormatError(f"{field} must not contain NUL characters")
    if not text.isascii():
        try:
            text.encode()
        except UnicodeEncodeError:
            raise PushFormatError(f"{field} is not valid Unicode (a lone surrogate)") from None
    return text


@dataclass(frozen=True)
class MonitoringPoint:
    """One metric value of one monitored host at one second."""

    ts: int
    host: str
    metric: str
    value: float


@dataclass(frozen=True)
class MonitoringChunk:
    points: tuple[MonitoringPoint, ...]
    skipped_values: int  # non-numeric values (null, text): not stored, counted so the caller can log them


def parse_time(value: object) -> int:
    """`trail.time`: a unix second as a string (current clients) or `YYYY-MM-DD HH:MM:SS` (clients <= 2017).

    The legacy string is the tank host's local time with no zone; we read it as UTC, the only choice that
    needs no guess about the tank host. Only clients from 2016-2017 send it.
    """
    if isinstance(value, bool):
        raise PushFormatError("trail.time must be a unix second or 'YYYY-MM-DD HH:MM:SS'")
    if isinstance(value, int | float):
        try:
            ts = int(value)
        except (ValueError, OverflowError):  # NaN, infinity
            raise PushFormatError(f"trail.time {value!r} is not a plausible unix second") from None
    elif isinstance(value, str):
        text = value.strip()
        try:
            ts = int(float(text))
        except OverflowError:  # "1e400", "inf"
            raise PushFormatError(f"trail.time {value!r} is not a plausible unix second") from None
        except ValueError:
            try:
                ts = int(datetime.strptime(text, _LEGACY_TIME_FORMAT).replace(tzinfo=UTC).timestamp())
            except ValueError:
                raise PushFormatError(
                    f"trail.time {value!r} is neither a unix second nor 'YYYY-MM-DD HH:MM:SS'"
                ) from None
    else:
        raise PushFormatError("trail.time must be a unix second or 'YYYY-MM-DD HH:MM:SS'")
    if not _MIN_TS <= ts < _MAX_TS:
        raise PushFormatError(f"trail.time {value!r} is not a plausible unix second")
    return ts


def _number(trail: Mapping[str, object], key: str, *, default: float = 0.0) -> float:
    raw = trail.get(key, default)
    if raw is None:
        return default
    if isinstance(raw, bool) or not isinstance(raw, int | float | str):
        raise PushFormatError(f"trail.{key} must be a number")
    try:
        value = float(raw)
    except OverflowError:  # an integer beyond any float, 10**400
        raise PushFormatError(f"trail.{key} is too large") from None
    except ValueError:
        raise PushFormatError(f"trail.{key} must be a number, got {raw!r}") from None
    if math.isnan(value):
        # json.loads accepts NaN; the tank's json.dumps writes it for a phase no request measured.
        return default
    if math.isinf(value):
        raise PushFormatError(f"trail.{key} must be a finite number")
    return value


_NUMERIC_TYPES = frozenset((int, float))
# The trail's numbers that integer fields hold: (position among TRAIL_KEYS, trail key, field).
_WHOLE = tuple(
    (index, field.trail, field.name) for index, field in enumerate(TRAIL_FIELDS) if field.name in COLUMN_RANGES
)


def _numbers(trail: Mapping[str, object]) -> list[float]:
    """The values of TRAIL_KEYS as _number reads each one; one pass over all of them when all are plain finite
    numbers (what the tank sends: this runs for every case of every second of every tank)."""
    raw = [trail.get(key, 0.0) for key in TRAIL_KEYS]
    if set(map(type, raw)) <= _NUMERIC_TYPES:
        try:
            values = [float(value) for value in raw]  # type: ignore[arg-type]  # int or float, checked above
        except OverflowError:  # an integer beyond float range: _number names it
            values = []
        if values and math.isfinite(sum(values)):  # NaN or infinity anywhere (or a sum past 1e308): slow path
            return values
    return [_number(trail, key) for key in TRAIL_KEYS]


def _code_counts(raw: object, field: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    if raw is None:
        return (), ()
    try:
        # Fast path for what the tank sends: entries with int code and count, each code once.
        codes = [entry["code"] for entry in raw]  # type: ignore[attr-defined]
        counts = [entry["count"] for entry in raw]  # type: ignore[attr-defined]
        if (
            isinstance(raw, list)
            and set(map(type, codes)) <= _INT_ONLY
            and set(map(type, counts)) <= _INT_ONLY
            and (not counts or (min(counts) >= 0 and max(counts) <= _COUNT_MAX))
            and (not codes or (min(codes) >= _CODE_MIN and max(codes) <= _CODE_MAX))
            and len(set(codes)) == len(codes)
        ):
            pairs = sorted(zip(codes, counts, strict=True))
            return tuple(code for code, _ in pairs), tuple(count for _, count in pairs)
    except (KeyError, TypeError):
        pass
    if not isinstance(raw, list):
        raise PushFormatError(f"{field} must be a list of {{code, count}}")
    merged: dict[int, int] = {}
    for entry in raw:
        if not isinstance(entry, Mapping):
            raise PushFormatError(f"{field} must be a list of {{code, count}}")
        try:
            code = int(entry["code"])
            count = int(entry["count"])
        except (KeyError, TypeError, ValueError, OverflowError):
            raise PushFormatError(f"{field} entries need integer 'code' and 'count'") from None
        if not _CODE_MIN <= code <= _CODE_MAX:
            raise out_of_range(f"{field} code", entry["code"], field)
        if count < 0:
            raise PushFormatError(f"{field} count must not be negative")
        merged[code] = merged.get(code, 0) + count
        if merged[code] > _COUNT_MAX:
            raise out_of_range(f"{field} count", entry["count"], field.replace("codes", "counts"))
    merged_codes = tuple(sorted(merged))
    return merged_codes, tuple(merged[c] for c in merged_codes)


# Edge (µs) -> index: a push body carries hundreds of bins, and a dict lookup is far cheaper than searchsorted.
_EDGE_INDEX: dict[int, int] = {int(edge): index for index, edge in enumerate(BIN_EDGES_US)}
# Edge (ms, as the tank writes `to`: 34.0, 1.5) -> index, looked up without scaling and rounding first. A float key
# also matches the int the JSON may hold (hash(34) == hash(34.0)).
EDGE_INDEX_MS: dict[float, int] = {int(edge) / 1000: index for index, edge in enumerate(BIN_EDGES_US)}
_INT_ONLY = frozenset((int,))
_CODE_MIN, _CODE_MAX = COLUMN_RANGES["http_codes"]
assert COLUMN_RANGES["net_codes"] == COLUMN_RANGES["http_codes"]
_COUNT_MAX = COLUMN_RANGES["hist_counts"][1]
assert COLUMN_RANGES["net_counts"][1] == COLUMN_RANGES["http_counts"][1] == _COUNT_MAX


def _bin_index(to_ms: float) -> int:
    index = _EDGE_INDEX.get(round(to_ms * 1000))
    if index is not None:
        return index
    try:
        return bin_index_of_upper_edge_ms(to_ms)
    except ValueError:
        # Off-grid edges come only from other histogram settings (verbose_histogram=False); keep the count in the
        # nearest grid bin at or above it rather than drop the second: each stays within one bin of the truth.
        idx = int(np.searchsorted(BIN_EDGES_US, round(to_ms * 1000)))
        return min(max(idx, 0), BIN_COUNT - 1)


def _histogram(raw: object) -> tuple[tuple[int, ...], tuple[int, ...]]:
    if raw is None:
        return (), ()
    if not isinstance(raw, list):
        raise PushFormatError("time_intervals must be a list of {from, to, count}")
    try:
        # Fast path for a whole list as the tank sends it (grid edges, ascending and unique, int counts >= 0):
        # comprehensions instead of a per-bin loop body, as this is the hottest code of the push path.
        try:
            tank_bins = [EDGE_INDEX_MS[entry["to"]] for entry in raw]
        except (KeyError, TypeError):  # an edge written another way (1.4999999), or not a number: round it
            tank_bins = [_EDGE_INDEX[round(entry["to"] * 1000)] for entry in raw]
        tank_counts = [entry["count"] for entry in raw]
        if (
            tank_counts
            and set(map(type, tank_counts)) == _INT_ONLY
            and min(tank_counts) >= 0
            and max(tank_counts) <= _COUNT_MAX
            and sorted(set(tank_bins)) == tank_bins
        ):
            return tuple(tank_bins), tuple(tank_counts)
    except (KeyError, TypeError, ValueError, OverflowError):
        pass
    merged: dict[int, int] = {}
    for entry in raw:
        # Fast path for what the tank sends (a grid edge as a number, a non-negative int count): this loop runs
        # for every bin of every case of every second, so it does the least work first; anything else falls
        # through to the checks below, which name the problem.
        try:
            idx = _EDGE_INDEX[round(entry["to"] * 1000)]
            count = entry["count"]
            if type(count) is int and 0 <= count <= _COUNT_MAX:
                merged[idx] = merged.get(idx, 0) + count
                continue
        except (KeyError, TypeError, ValueError, OverflowError):
            pass
        # json.loads gives plain dicts; an exact type check is much cheaper than the Mapping ABC on this hot loop.
        if type(entry) is not dict:
            raise PushFormatError("time_intervals must be a list of {from, to, count}")
        try:
            to_ms = float(entry["to"])
            count = int(entry["count"])
        except (KeyError, TypeError, ValueError, OverflowError):
            raise PushFormatError("time_intervals entries need numeric 'to' and 'count'") from None
        if count < 0 or not 0 <= to_ms < math.inf:
            raise PushFormatError(f"time_intervals entry to={entry.get('to')!r} count={count} is invalid")
        idx = _bin_index(to_ms)
        merged[idx] = merged.get(idx, 0) + count
        if merged[idx] > _COUNT_MAX:
            raise out_of_range("time_intervals count", entry["count"], "hist_counts")
    bins = tuple(sorted(merged))
    return bins, tuple(merged[b] for b in bins)


def case_of(overall: object, case: str | None) -> str:
    """The row's case of a push item: '' for the overall item, NOTAG_CASE for an item without a tag."""
    if overall in (1, "1", True):
        return OVERALL_CASE
    if case is None or case in ("", LEGACY_NOTAG):
        return NOTAG_CASE
    return case


# A row is (ts, case, the trail's numbers, the code-count pairs): what row_of builds.
assert ("ts", "case", *(f.name for f in TRAIL_FIELDS), *(name for pair in CODE_COUNTS for name in pair)) == ROW_FIELDS


def row_of(
    ts: int,
    case: str,
    numbers: list[float],
    nets: tuple[tuple[int, ...], tuple[int, ...]],
    https: tuple[tuple[int, ...], tuple[int, ...]],
    hist: tuple[tuple[int, ...], tuple[int, ...]],
) -> Row:
    """The row of a push item from its parts: `numbers` the trail's, in TRAIL_KEYS order, finite and within their
    fields' ranges (those of integer fields are made ints here)."""
    for index, _key, _field in _WHOLE:
        numbers[index] = int(numbers[index])
    return (ts, case, *numbers, *nets, *https, *hist)


def parse_push_item(item: object) -> Row:
    """One element of the push_data list."""
    if not isinstance(item, Mapping):
        raise PushFormatError("an item must be a JSON object")
    trail = item.get("trail")
    if not isinstance(trail, Mapping):
        raise PushFormatError("an item needs a 'trail' object")
    if "time" not in trail:
        raise PushFormatError("trail.time is missing")
    ts = parse_time(trail["time"])
    raw_case = item.get("case", "")
    if raw_case is None:
        raw_case = ""
    if not isinstance(raw_case, str):
        raise PushFormatError("case must be a string")
    check_text(raw_case, "case")
    nets = _code_counts(item.get("net_codes"), "net_codes")
    https = _code_counts(item.get("http_codes"), "http_codes")
    hist = _histogram(item.get("time_intervals"))
    numbers = _numbers(trail)
    for index, key, field in _WHOLE:
        value = numbers[index]
        if value < 0:
            raise PushFormatError(f"trail.{key} must not be negative")
        if value >= COLUMN_RANGES[field][1] + 1:  # what int() would make too large
            raise out_of_range(f"trail.{key}", trail.get(key), field)
    return row_of(ts, case_of(item.get("overall", 0), raw_case), numbers, nets, https, hist)


def parse_push_data(body: object) -> list[Row]:
    """A whole push_data body (a list of items; the `writer_endpoint` variant's `{"trail": [...]}` too).

    Raises PushFormatError naming the first bad item (0-based index) so the 400 answer says where.
    """
    if isinstance(body, Mapping) and isinstance(body.get("trail"), list):
        body = body["trail"]
    if not isinstance(body, list):
        raise PushFormatError("push_data body must be a JSON list of items")
    seconds: list[Row] = []
    for index, item in enumerate(body):
        try:
            seconds.append(parse_push_item(item))
        except PushFormatError as exc:
            raise PushFormatError(f"item {index}: {exc}") from None
    return seconds


def _metric_value(raw: object) -> float | None:
    if isinstance(raw, bool):
        return float(raw)
    if isinstance(raw, int | float):
        try:
            value = float(raw)
        except OverflowError:  # an integer beyond any float: as infinite, not stored
            return None
    elif isinstance(raw, str):
        try:
            value = float(raw)
        except ValueError:
            return None
    else:
        return None
    return value if math.isfinite(value) else None


def parse_monitoring(body: object) -> MonitoringChunk:
    """A monitoring chunk: `[{timestamp, data: {host: {comment, metrics: {name: number}}}}]` (tank-protocol §4.5).

    The `writer_endpoint` variant's `{"monitoring": [...]}` is accepted too. Structure errors raise
    PushFormatError naming the element; single non-numeric values are skipped and counted.
    """
    if isinstance(body, Mapping) and isinstance(body.get("monitoring"), list):
        body = body["monitoring"]
    if not isinstance(body, list):
        raise PushFormatError("monitoring body must be a JSON list")
    points: list[MonitoringPoint] = []
    skipped = 0
    for index, element in enumerate(body):
        if not isinstance(element, Mapping):
            raise PushFormatError(f"element {index}: must be an object with 'timestamp' and 'data'")
        try:
            ts = parse_time(element.get("timestamp"))
        except PushFormatError as exc:
            raise PushFormatError(f"element {index}: timestamp: {exc}") from None
        hosts = element.get("data")
        if not isinstance(hosts, Mapping):
            raise PushFormatError(f"element {index}: 'data' must be an object of hosts")
        for host, block in hosts.items():
            if not isinstance(block, Mapping) or not isinstance(block.get("metrics", {}), Mapping):
                raise PushFormatError(f"element {index}: host {host!r} needs a 'metrics' object")
            try:
                check_text(str(host), "host")
            except PushFormatError as exc:
                raise PushFormatError(f"element {index}: {exc}") from None
            metrics: Mapping[str, object] = block.get("metrics") or {}
            for metric, raw in metrics.items():
                try:
                    check_text(str(metric), f"host {host!r}: metric")
                except PushFormatError as exc:
                    raise PushFormatError(f"element {index}: {exc}") from None
                value = _metric_value(raw)
                if value is None:
                    skipped += 1
                    continue
                points.append(MonitoringPoint(ts=ts, host=str(host), metric=str(metric), value=value))
    return MonitoringChunk(points=tuple(points), skipped_values=skipped)
