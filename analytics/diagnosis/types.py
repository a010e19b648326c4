"""Data shapes shared by the diagnosis modules: the per-second series of a test and the findings about it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
Severity = Literal["critical", "warning", "info"]


@dataclass(frozen=True)
class TestSeries:
    """One test's overall per-second series, aligned on `ts` (unix s, response second, ascending, no gaps needed).

    `planned_rps` is the generator's planned RPS (0 where unknown, e.g. phout uploads); `instances` the active
    instances/threads (0 where unknown). `errors` counts the failed requests (analytics.definitions) the service was
    sent, `discarded` the requests the generator never sent (Pandora's net code 777), `timeouts` those that timed
    out (net code 110 or phantom's 314); all are included in `resps`.
    """

    __test__ = False  # not a pytest test class

    ts: FloatArray
    planned_rps: FloatArray
    instances: FloatArray
    resps: FloatArray
    errors: FloatArray
    timeouts: FloatArray
    discarded: FloatArray
    mean_ms: FloatArray
    q50_ms: FloatArray
    q95_ms: FloatArray
    q99_ms: FloatArray

    def __len__(self) -> int:
        return int(self.ts.size)

    @staticmethod
    def from_columns(**columns: Any) -> TestSeries:
        """Build from equal-length sequences; missing optional columns become zeros."""
        ts = np.asarray(columns["ts"], dtype=np.float64)
        names = (
            "planned_rps",
            "instances",
            "resps",
            "errors",
            "timeouts",
            "discarded",
            "mean_ms",
            "q50_ms",
            "q95_ms",
            "q99_ms",
        )
        values: dict[str, FloatArray] = {}
        for name in names:
            raw = columns.get(name)
            arr = np.zeros(ts.size) if raw is None else np.asarray(raw, dtype=np.float64)
            if arr.size != ts.size:
                raise ValueError(f"column {name} has {arr.size} values, ts has {ts.size}")
            values[name] = arr
        return TestSeries(ts=ts, **values)


@dataclass(frozen=True)
class MonitoringSeries:
    """One host's metrics: metric name → (ts, values), as the tank's telegraf collector sends them."""

    host: str
    metrics: dict[str, tuple[FloatArray, FloatArray]]


@dataclass(frozen=True)
class Annotation:
    """A mark on the Overview chart: a second (unix s) and a short label."""

    ts: int
    label: str

    def as_dict(self) -> dict[str, Any]:
        return {"ts": self.ts, "label": self.label}


@dataclass(frozen=True)
class Finding:
    """One conclusion about a test, with the evidence (seconds, figures) that supports it."""

    kind: str
    severity: Severity
    title: str
    text: str
    evidence: dict[str, Any] = field(default_factory=dict)
    annotations: list[Annotation] = field(default_factory=list)
    # The evidence as a person reads it: (label, value with its unit), rounded as the text rounds it.
    facts: list[tuple[str, str]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "severity": self.severity,
            "title": self.title,
            "text": self.text,
            # Machine-readable figures for API clients and trends; a figure that is unknown is left out, not null.
            "evidence": {k: v for k, v in self.evidence.items() if v is not None},
            "facts": [{"label": label, "value": value} for label, value in self.facts],
            "annotations": [a.as_dict() for a in self.annotations],
        }


def utc_clock(ts: float) -> str:
    """`HH:MM:SS` in UTC, for finding texts (the frontend converts annotations for display)."""
    seconds = int(ts) % 86400
    return f"{seconds // 3600:02d}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


def rolling_median(x: FloatArray, window: int) -> FloatArray:
    """Centered rolling median (window shrinks at the edges): one-second blips must not decide anything."""
    n = x.size
    if n == 0 or window <= 1:
        return x.copy()
    half = window // 2
    # NaN padding + nanmedian = the shrinking window at the edges, vectorised (a day-long test has 86 400 points).
    padded = np.concatenate([np.full(half, np.nan), x.astype(np.float64), np.full(half, np.nan)])
    windows = np.lib.stride_tricks.sliding_window_view(padded, 2 * half + 1)
    with np.errstate(all="ignore"):
        out: FloatArray = np.nanmedian(windows, axis=1)
    return out


def first_sustained(bad: npt.NDArray[np.bool_], window: int = 5, share: float = 0.8, tail_share: float = 0.5) -> int:
    """Index of the first second that starts a sustained bad stretch, or -1.

    Sustained = at least `share` of the next `window` seconds are bad, and at least `tail_share` of all seconds
    from there to the end are bad (a ramp past its breaking point does not recover; a blip does).
    """
    n = bad.size
    if n < window:
        return -1
    counts = np.convolve(bad.astype(np.float64), np.ones(window), mode="valid")
    tail_bad = np.cumsum(bad[::-1].astype(np.float64))[::-1]
    for i in range(counts.size):
        if not bad[i] or counts[i] < share * window:
            continue
        if tail_bad[i] / (n - i) >= tail_share:
            return i
    return -1
