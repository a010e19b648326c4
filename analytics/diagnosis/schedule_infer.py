"""The load profile of a test whose schedule nobody told us (a phout-only upload): read off the request start rate.

A generator sends on a schedule made of `const`, `line` and `step` parts, so the requests started per second follow
a few straight pieces. We split the per-second start counts into the fewest pieces, each flat or sloped, that fit
them within their noise (dynamic programming over all splits, a penalty per piece, Schwarz's criterion), then name
the pieces: a flat piece is `const`, a sloped one `line`, and three or more flat pieces climbing by about equal
increments at about equal intervals are one `step`. The result is a `LoadScheme` like one the tank sends, plus its
text in Phantom's syntax (`step(25, 350, 25, 4s) const(350, 10s)`).

What it cannot see: a part the generator could not keep up with (its starts follow what it managed to send, not
its plan; Pandora's discarded requests, net code 777, are counted as starts, so they keep the plan visible).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from analytics.diagnosis.loadscheme import LoadScheme, Segment
from analytics.diagnosis.types import FloatArray

MIN_PIECE_S = 3
MIN_NAMED_S = 5
MAX_POINTS = 600  # longer tests are read in slots of several seconds, so the search stays quadratic in 600
FLAT_SLOPE_SHARE = 0.05  # a piece whose rate changes by less than 5 % of its level over its length is flat
STEP_TOLERANCE = 0.25  # increments and durations of a step may differ by 25 % (and 1 s)


@dataclass(frozen=True)
class Piece:
    start_s: int
    end_s: int  # exclusive
    start_rps: float
    end_rps: float

    @property
    def duration_s(self) -> int:
        return self.end_s - self.start_s

    @property
    def flat(self) -> bool:
        level = max(abs(self.start_rps), abs(self.end_rps), 1.0)
        return abs(self.end_rps - self.start_rps) <= FLAT_SLOPE_SHARE * level or self.duration_s < MIN_PIECE_S


@dataclass(frozen=True)
class InferredSchedule:
    scheme: LoadScheme
    pieces: tuple[Piece, ...]
    text: str


def _noise_variance(y: FloatArray) -> FloatArray:
    """Per-point variance: the larger of the scatter between neighbours (robust to jumps) and a Poisson floor."""
    if y.size < 3:
        return np.maximum(y, 1.0)
    diffs = np.diff(y)
    # The quietest half of the test sets the noise (a stretch where the service broke scatters far more).
    mad = float(np.percentile(np.abs(diffs - np.median(diffs)), 25)) * 2.0
    sigma2 = (1.4826 * mad) ** 2 / 2.0
    # Generators keep their schedule to a request or two per second; the Poisson term only matters for noisy
    # sources (a closed model, a replay of production traffic), where it keeps tiny wobbles from becoming pieces.
    level = np.maximum(y, 1.0)
    return np.maximum(sigma2, np.maximum(1.0, 0.01 * level))


def _segment(y: FloatArray, penalty: float, min_len: int) -> list[tuple[int, int, float, float]]:
    """Optimal split of y into flat-or-sloped pieces: [(start, end, value at start, value at end)]."""
    n = y.size
    var = _noise_variance(y)
    w = 1.0 / var
    t = np.arange(n, dtype=np.float64)
    cw = np.concatenate(([0.0], np.cumsum(w)))
    cwt = np.concatenate(([0.0], np.cumsum(w * t)))
    cwtt = np.concatenate(([0.0], np.cumsum(w * t * t)))
    cwy = np.concatenate(([0.0], np.cumsum(w * y)))
    cwyy = np.concatenate(([0.0], np.cumsum(w * y * y)))
    cwty = np.concatenate(([0.0], np.cumsum(w * t * y)))
    best = np.full(n + 1, np.inf)
    best[0] = 0.0
    back = np.zeros(n + 1, dtype=np.int64)
    kind = np.zeros(n + 1, dtype=np.int64)  # 0 flat, 1 sloped
    for j in range(min_len, n + 1):
        starts = np.arange(0, j - min_len + 1)
        sw, st, stt = cw[j] - cw[starts], cwt[j] - cwt[starts], cwtt[j] - cwtt[starts]
        sy, syy, sty = cwy[j] - cwy[starts], cwyy[j] - cwyy[starts], cwty[j] - cwty[starts]
        flat = syy - sy * sy / sw
        det = sw * stt - st * st
        with np.errstate(divide="ignore", invalid="ignore"):
            slope = np.where(det > 1e-9, (sw * sty - st * sy) / det, 0.0)
        intercept = (sy - slope * st) / sw
        sloped = syy - 2 * intercept * sy - 2 * slope * sty + intercept**2 * sw + 2 * intercept * slope * st
        sloped = sloped + slope**2 * stt
        cost_flat = best[starts] + np.maximum(flat, 0.0) + penalty
        cost_sloped = best[starts] + np.maximum(sloped, 0.0) + 2 * penalty
        use_sloped = cost_sloped < cost_flat
        cost = np.where(use_sloped, cost_sloped, cost_flat)
        k = int(np.argmin(cost))
        best[j], back[j], kind[j] = cost[k], int(starts[k]), int(use_sloped[k])
    pieces: list[tuple[int, int, float, float]] = []
    end = n
    while end > 0:
        begin = int(back[end])
        seg_t, seg_y, seg_w = t[begin:end], y[begin:end], w[begin:end]
        if kind[end] and end - begin >= 2:
            slope, intercept = np.polyfit(seg_t, seg_y, 1, w=np.sqrt(seg_w))
            pieces.append((begin, end, float(intercept + slope * begin), float(intercept + slope * (end - 1))))
        else:
            level = float(np.average(seg_y, weights=seg_w))
            pieces.append((begin, end, level, level))
        end = begin
    return pieces[::-1]


def _pieces(starts_per_s: FloatArray) -> list[Piece]:
    y = np.asarray(starts_per_s, dtype=np.float64)
    n = y.size
    slot = max(1, math.ceil(n / MAX_POINTS))
    if slot > 1:
        y = np.add.reduceat(y, np.arange(0, n, slot)) / slot
    penalty = 3.0 * math.log(max(y.size, 3))
    raw = _segment(y, penalty, max(2, math.ceil(MIN_PIECE_S / slot)))
    out: list[Piece] = []
    for i, j, a, b in raw:
        end = min(j * slot, n)
        # Rates at the edges of seconds, not at their middles, so that consecutive lines join up.
        per_s = (b - a) / max(j - i - 1, 1) / slot
        out.append(Piece(i * slot, end, a - per_s * slot / 2, b + per_s * slot / 2))
    return _merge_flat(out)


def _merge_flat(pieces: list[Piece]) -> list[Piece]:
    """Neighbouring flat pieces at the same level (within noise) are one."""
    merged: list[Piece] = []
    for piece in pieces:
        if piece.flat:
            level = (piece.start_rps + piece.end_rps) / 2
            piece = Piece(piece.start_s, piece.end_s, level, level)
        if merged and piece.flat and merged[-1].flat:
            prev = merged[-1]
            tolerance = max(2.0, 0.03 * max(prev.start_rps, piece.start_rps))
            if abs(prev.start_rps - piece.start_rps) <= tolerance:
                level = (prev.start_rps * prev.duration_s + piece.start_rps * piece.duration_s) / (
                    prev.duration_s + piece.duration_s
                )
                merged[-1] = Piece(prev.start_s, piece.end_s, level, level)
                continue
        merged.append(piece)
    return merged


def _close(a: float, b: float, tolerance: float, absolute: float) -> bool:
    return abs(a - b) <= tolerance * max(abs(a), abs(b)) + absolute


def _round_rps(value: float) -> float:
    return float(max(0, round(value)))


def _absorb_short(pieces: list[Piece]) -> list[Piece]:
    """A piece shorter than MIN_NAMED_S (a generator's first or last partial second, a stall) is not a part of the
    schedule: it takes the level of its longer neighbour, so it never reads as a ramp of its own."""
    if len(pieces) < 2:
        return pieces
    out: list[Piece] = []
    for k, piece in enumerate(pieces):
        if piece.duration_s >= MIN_NAMED_S:
            out.append(piece)
            continue
        prev = pieces[k - 1] if k > 0 else None
        nxt = pieces[k + 1] if k + 1 < len(pieces) else None
        if prev is not None and (nxt is None or prev.duration_s >= nxt.duration_s):
            level = prev.end_rps
        else:
            assert nxt is not None
            level = nxt.start_rps
        out.append(Piece(piece.start_s, piece.end_s, level, level))
    return _merge_flat(out)


def _segments(pieces: list[Piece]) -> list[Segment]:
    """Name the pieces: runs of climbing (or falling) flat levels of equal increments and lengths become a step."""
    out: list[Segment] = []
    i = 0
    while i < len(pieces):
        run_end = i + 1
        if pieces[i].flat:
            while run_end < len(pieces) and pieces[run_end].flat:
                prev, cur = pieces[run_end - 1], pieces[run_end]
                first_inc = pieces[i + 1].start_rps - pieces[i].start_rps if run_end > i + 1 else None
                inc = cur.start_rps - prev.start_rps
                if inc == 0 or (
                    first_inc is not None and (first_inc * inc <= 0 or not _close(inc, first_inc, STEP_TOLERANCE, 2))
                ):
                    break
                if not _close(cur.duration_s, pieces[i].duration_s, STEP_TOLERANCE, 1) and run_end < len(pieces) - 1:
                    break
                run_end += 1
        if run_end - i >= 3:
            run = pieces[i:run_end]
            # The last level may be cut short by the end of the test; the others set the level duration.
            level_s = round(float(np.median([p.duration_s for p in run[:-1]])))
            step = abs(run[-1].start_rps - run[0].start_rps) / (len(run) - 1)
            start, end = _round_rps(run[0].start_rps), _round_rps(run[-1].start_rps)
            step_r = max(1.0, float(round(step)))
            out.append(Segment("step", start, end, level_s * len(run), step_r, level_s))
            tail = run[-1].duration_s - level_s
            if tail > 0:
                out.append(Segment("const", end, end, tail))
            i = run_end
            continue
        piece = pieces[i]
        if piece.flat:
            level = _round_rps(piece.start_rps)
            out.append(Segment("const", level, level, piece.duration_s))
        else:
            out.append(Segment("line", _round_rps(piece.start_rps), _round_rps(piece.end_rps), piece.duration_s))
        i += 1
    return out


def scheme_text(segments: tuple[Segment, ...] | list[Segment]) -> str:
    """Phantom's syntax of a scheme: `line(1, 400, 20s) const(400, 20s) step(300, 3000, 450, 12s)`."""
    parts: list[str] = []
    for seg in segments:
        if seg.kind == "const":
            parts.append(f"const({seg.start_rps:g}, {seg.duration_s}s)")
        elif seg.kind == "line":
            parts.append(f"line({seg.start_rps:g}, {seg.end_rps:g}, {seg.duration_s}s)")
        elif seg.kind == "step":
            parts.append(f"step({seg.start_rps:g}, {seg.end_rps:g}, {seg.step_rps:g}, {seg.level_s}s)")
    return " ".join(parts)


def infer_schedule(starts_per_s: FloatArray) -> InferredSchedule:
    """The schedule that best explains the requests started in each second (second 0 = the test's first)."""
    y = np.asarray(starts_per_s, dtype=np.float64)
    if y.size < MIN_PIECE_S or float(y.sum()) <= 0:
        return InferredSchedule(LoadScheme(()), (), "")
    pieces = _absorb_short(_pieces(y))
    segments = _segments(pieces)
    return InferredSchedule(LoadScheme(tuple(segments)), tuple(pieces), scheme_text(segments))
