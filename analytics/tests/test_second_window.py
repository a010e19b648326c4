"""The window (analytics.second_window): its merge of released pieces against a full stable sort, and what it releases
from a stream of batches."""

from __future__ import annotations

import itertools

import numpy as np
import numpy.typing as npt
from hypothesis import given, settings
from hypothesis import strategies as st

from analytics.schema.samples import FIELDS, PhoutBatch
from analytics.second_window import SecondWindow, _merged_in_order, _order


def batch(receive_sec: npt.NDArray[np.int64], case_codes: npt.NDArray[np.int64], first_id: int) -> PhoutBatch:
    n = receive_sec.size
    ids = np.arange(first_id, first_id + n, dtype=np.int64)  # tells rows with equal keys apart
    codes = (ids % 1000).astype(np.int32)
    return PhoutBatch(
        send_ts_us=ids.copy(),
        receive_sec=receive_sec.astype(np.int64),
        case_codes=case_codes.astype(np.int32),
        interval_real_us=ids.astype(np.uint32),  # the widths the parser gives (analytics.schema.samples)
        connect_time_us=ids.copy(),
        send_time_us=ids.astype(np.int32),
        latency_us=ids.copy(),
        receive_time_us=ids.copy(),
        interval_event_us=ids.astype(np.int32),
        size_out_bytes=ids.astype(np.uint32),
        size_in_bytes=ids.astype(np.uint32),
        net_code=codes.astype(np.int16),
        proto_code=codes.astype(np.int16),
    )


Piece = tuple[int, int, int, int]  # first second, rows, cases, seed


def pieces(max_start: int, max_rows: int, min_size: int, max_size: int) -> st.SearchStrategy[list[Piece]]:
    piece = st.tuples(st.integers(0, max_start), st.integers(0, max_rows), st.integers(1, 4), st.integers(0, 2**31))
    return st.lists(piece, min_size=min_size, max_size=max_size)


def random_batch(piece: Piece, seconds: int, first_id: int) -> PhoutBatch:
    """Rows over `seconds` seconds from the piece's first, with random cases; ids from `first_id` on."""
    start, rows, cases, seed = piece
    rng = np.random.default_rng(seed)
    return batch(rng.integers(start, start + seconds, rows), rng.integers(0, cases, rows), first_id)


@settings(max_examples=200, deadline=None)
@given(pieces(40, 60, min_size=2, max_size=5))
def test_merging_sorted_pieces_equals_a_full_stable_sort(drawn: list[Piece]) -> None:
    parts, next_id = [], 0
    for one in drawn:
        piece = random_batch(one, 12, next_id)
        length = piece.rows
        next_id += length
        parts.append(piece.take(_order(piece)) if length else piece)  # each piece in order, as pending batches are
    merged = PhoutBatch.concat(parts)
    expected = merged.take(_order(merged)) if merged.rows else merged
    got = _merged_in_order(PhoutBatch.concat(parts)) if merged.rows else merged
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(got, name), getattr(expected, name), err_msg=name)


@settings(max_examples=200, deadline=None)
@given(pieces(50, 80, min_size=1, max_size=8), st.integers(0, 6))
def test_every_row_comes_out_once_in_order_or_late(batches: list[Piece], lag_s: int) -> None:
    window = SecondWindow(lag_s=lag_s)
    released: list[PhoutBatch] = []
    late_ids: list[int] = []
    seen_max = -1  # the highest second of the batches before
    next_id = 0
    for one in batches:
        arriving = random_batch(one, 15, next_id)
        length = arriving.rows
        next_id += length
        # Late: a second the window has moved `lag_s` past already, as the stream before this batch took it.
        expected_late = arriving.send_ts_us[arriving.receive_sec <= seen_max - lag_s].tolist() if seen_max >= 0 else []
        out = window.add(arriving)
        got_late = [] if out.late is None else out.late.send_ts_us.tolist()
        assert got_late == expected_late
        late_ids += got_late
        if out.in_order is not None:
            released.append(out.in_order)
        seen_max = max(seen_max, int(arriving.receive_sec.max())) if length else seen_max
    last = window.finish().in_order
    if last is not None:
        released.append(last)
    ids = [i for piece in released for i in piece.send_ts_us.tolist()] + late_ids
    assert sorted(ids) == list(range(next_id))  # every row once
    for before, after in itertools.pairwise(released):
        assert before.receive_sec.max() < after.receive_sec.min()  # pieces follow each other by second
    for piece in released:
        key = piece.receive_sec * 8 + piece.case_codes
        assert (np.diff(key) >= 0).all()  # in (second, case) order
        same = np.diff(key) == 0
        assert (np.diff(piece.send_ts_us)[same] > 0).all()  # equal keys in arrival order: a stable sort
        for name in FIELDS:  # each row whole: every column of the test rows is its id, or id % 1000
            if name not in ("receive_sec", "case_codes", "net_code", "proto_code"):
                np.testing.assert_array_equal(getattr(piece, name), piece.send_ts_us, err_msg=name)
        np.testing.assert_array_equal(piece.net_code, piece.send_ts_us % 1000)
