"""Load schemes as the generators describe them, turned into a planned RPS per second.

Phantom/BFG send strings: `line(a,b,dur)`, `const(r,dur)`, `step(a,b,step,dur)` (several per string are allowed,
separated by spaces); Pandora sends dicts: `{"type": "line", "from", "to", "duration"}`, `{"type": "const",
"ops", "duration"}`, `{"type": "step", "from", "to", "step", "duration"}`, `{"type": "once", "times"}`,
`{"type": "unlimited", "duration"}`. Durations: `30`, `30s`, `10m`, `1h`, `500ms`, or Go style `1m30s`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from analytics.definitions import MAX_TEST_SPAN_S
from analytics.diagnosis.types import FloatArray

SegmentKind = Literal["line", "const", "step", "once", "unlimited"]


class LoadSchemeError(ValueError):
    """The scheme cannot be understood; the message names the bad part."""


@dataclass(frozen=True)
class Segment:
    """One part of a scheme. `start_rps`/`end_rps` are NaN for `unlimited` (no planned rate)."""

    kind: SegmentKind
    start_rps: float
    end_rps: float
    duration_s: int
    step_rps: float = 0.0
    level_s: int = 0  # `step` only: how long each level lasts


@dataclass(frozen=True)
class LoadScheme:
    segments: tuple[Segment, ...]

    @property
    def duration_s(self) -> int:
        return sum(s.duration_s for s in self.segments)

    @property
    def is_ramp(self) -> bool:
        """A rising `line` or `step`: the test looks for the load level where the service breaks."""
        return any(s.kind in ("line", "step") and s.end_rps > s.start_rps for s in self.segments)

    def planned_rps(self) -> FloatArray:
        """Planned RPS for each second from the start of the scheme (NaN where the scheme plans no rate)."""
        parts: list[FloatArray] = []
        for seg in self.segments:
            n = seg.duration_s
            if n <= 0:
                continue
            if seg.kind == "const":
                parts.append(np.full(n, seg.start_rps))
            elif seg.kind == "line":
                # The rate at the middle of each second: what that second is scheduled to send.
                parts.append(seg.start_rps + (seg.end_rps - seg.start_rps) * (np.arange(n) + 0.5) / n)
            elif seg.kind == "step":
                parts.append(_step_levels(seg))
            else:
                parts.append(np.full(n, np.nan))
        return np.concatenate(parts) if parts else np.zeros(0)

    def const_spans(self) -> list[tuple[int, int]]:
        """[start, end) offsets in seconds of the `const` segments (the steady stages)."""
        spans: list[tuple[int, int]] = []
        offset = 0
        for seg in self.segments:
            if seg.kind == "const" and seg.duration_s > 0 and seg.start_rps > 0:
                spans.append((offset, offset + seg.duration_s))
            offset += seg.duration_s
        return spans


def _step_levels(seg: Segment) -> FloatArray:
    return np.repeat(_levels(seg.start_rps, seg.end_rps, seg.step_rps), seg.level_s)


def _level_count(start: float, end: float, step: float) -> int:
    if not step > 0:
        raise LoadSchemeError("step() with a zero step")
    levels = abs(end - start) / step + 1e-9
    if not math.isfinite(levels) or levels > MAX_TEST_SPAN_S:  # each level lasts a second at least
        raise LoadSchemeError(f"step() from {start:g} to {end:g} by {step:g} has too many levels")
    return math.floor(levels) + 1


def _levels(start: float, end: float, step: float) -> FloatArray:
    direction = 1.0 if end >= start else -1.0
    count = _level_count(start, end, step)
    return np.asarray(start + direction * step * np.arange(count), dtype=np.float64)


def _step_segment(start: float, end: float, step: float, level_s: int) -> Segment:
    # Counted, not laid out: a scheme is checked against MAX_TEST_SPAN_S before any array of it is made.
    return Segment("step", start, end, level_s * _level_count(start, end, step), step, level_s)


_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|us|µs|ns|h|m|s|d)?")
_UNIT_S = {"ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9, "h": 3600.0, "m": 60.0, "s": 1.0, "d": 86400.0, None: 1.0}


def parse_duration_s(text: Any) -> int:
    """Seconds in a duration (`30`, `30s`, `10m`, `1h`, `1m30s`); rounded to whole seconds."""
    if isinstance(text, int | float) and not isinstance(text, bool):
        return round(float(text))
    raw = str(text).strip().lower().replace(" ", "")
    if not raw:
        raise LoadSchemeError("empty duration")
    pos = 0
    total = 0.0
    while pos < len(raw):
        match = _DURATION_PART.match(raw, pos)
        if match is None or match.end() == pos:
            raise LoadSchemeError(f"bad duration {text!r}")
        total += float(match.group(1)) * _UNIT_S[match.group(2)]
        pos = match.end()
    return round(total)


_CALL = re.compile(r"(line|const|step)\s*\(([^)]*)\)", re.IGNORECASE)


def _number(value: Any, what: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError) as exc:
        raise LoadSchemeError(f"bad {what} {value!r}") from exc
    if not math.isfinite(number) or number < 0:
        raise LoadSchemeError(f"bad {what} {value!r}")
    return number


def _parse_string(text: str) -> list[Segment]:
    stripped = text.strip()
    if not stripped:
        return []
    segments: list[Segment] = []
    pos = 0
    for match in _CALL.finditer(stripped):
        if stripped[pos : match.start()].strip():
            raise LoadSchemeError(f"cannot parse {stripped[pos : match.start()].strip()!r} in {text!r}")
        pos = match.end()
        kind = match.group(1).lower()
        args = [a.strip() for a in match.group(2).split(",")]
        if kind == "line" and len(args) == 3:
            segments.append(
                Segment("line", _number(args[0], "rps"), _number(args[1], "rps"), parse_duration_s(args[2]))
            )
        elif kind == "const" and len(args) == 2:
            rps = _number(args[0], "rps")
            segments.append(Segment("const", rps, rps, parse_duration_s(args[1])))
        elif kind == "step" and len(args) == 4:
            start, end, step = (_number(a, "rps") for a in args[:3])
            # A step segment lasts one `duration` per level.
            segments.append(_step_segment(start, end, step, parse_duration_s(args[3])))
        else:
            raise LoadSchemeError(
                f"{kind}() takes {'3' if kind == 'line' else '2' if kind == 'const' else '4'} "
                f"arguments: {match.group(0)!r}"
            )
    if stripped[pos:].strip():
        raise LoadSchemeError(f"cannot parse {stripped[pos:].strip()!r} in {text!r}")
    return segments


def _parse_dict(item: dict[str, Any]) -> list[Segment]:
    kind = str(item.get("type", "")).lower()
    if kind == "line":
        return [
            Segment(
                "line",
                _number(item.get("from"), "from"),
                _number(item.get("to"), "to"),
                parse_duration_s(item.get("duration")),
            )
        ]
    if kind == "const":
        rps = _number(item.get("ops"), "ops")
        return [Segment("const", rps, rps, parse_duration_s(item.get("duration")))]
    if kind == "step":
        start, end = _number(item.get("from"), "from"), _number(item.get("to"), "to")
        step = _number(item.get("step"), "step")
        return [_step_segment(start, end, step, parse_duration_s(item.get("duration")))]
    if kind == "once":
        # `times` requests at once: no duration, no rate to keep up with.
        return []
    if kind == "unlimited":
        return [Segment("unlimited", math.nan, math.nan, parse_duration_s(item.get("duration", 0)))]
    raise LoadSchemeError(f"unknown schedule type {item.get('type')!r}")


def parse_load_scheme(raw: Any) -> LoadScheme:
    """Parse what the tank sent (`Test.loadscheme`): a list of strings or dicts, one string, or one dict."""
    if raw is None:
        return LoadScheme(())
    items: Iterable[Any] = [raw] if isinstance(raw, str | dict) else raw
    if not isinstance(items, list | tuple):
        raise LoadSchemeError(f"unexpected load scheme {raw!r}")
    segments: list[Segment] = []
    for item in items:
        if isinstance(item, str):
            segments.extend(_parse_string(item))
        elif isinstance(item, dict):
            segments.extend(_parse_dict(item))
        else:
            raise LoadSchemeError(f"unexpected load scheme item {item!r}")
    scheme = LoadScheme(tuple(segments))
    if scheme.duration_s > MAX_TEST_SPAN_S:
        raise LoadSchemeError(
            f"the load scheme lasts {scheme.duration_s} s, more than a test may ({MAX_TEST_SPAN_S} s, 31 days)"
        )
    return scheme
