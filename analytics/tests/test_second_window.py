"""The window's merge of released pieces (analytics.second_window) against a full stable sort."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from hypothesis import given, settings
from hypothesis import strategies as st

from analytics.phout import BATCH_FIELDS, PhoutBatch
from analytics.second_window import _merged_in_order, _order


def batch(receive_sec: npt.NDArray[np.int64], case_codes: npt.NDArray[np.int64], first_id: int) -> PhoutBatch:
    n = receive_sec.size
    ids = np.arange(first_id, first_id + n, dtype=np.int64)  # tells rows with equal keys apart
    codes = (ids % 1000).astype(np.int32)
    return PhoutBatch(
        send_ts_us=ids.copy(),
        receive_sec=receive_sec.astype(np.int64),
        case_codes=case_codes.astype(np.int32),
        interval_real_us=ids.copy(),
        connect_time_us=ids.copy(),
        send_time_us=ids.copy(),
        latency_us=ids.copy(),
        receive_time_us=ids.copy(),
        interval_event_us=ids.copy(),
        size_out_bytes=ids.copy(),
        size_in_bytes=ids.copy(),
        net_code=codes,
        proto_code=codes.copy(),
    )


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 40), st.integers(0, 60), st.integers(1, 4), st.integers(0, 2**31)),
        min_size=2,
        max_size=5,
    )
)
def test_merging_sorted_pieces_equals_a_full_stable_sort(pieces: list[tuple[int, int, int, int]]) -> None:
    parts, next_id = [], 0
    for start, length, cases, seed in pieces:
        rng = np.random.default_rng(seed)
        sec = rng.integers(start, start + 12, length)
        piece = batch(sec, rng.integers(0, cases, length), next_id)
        next_id += length
        parts.append(piece.take(_order(piece)) if length else piece)  # each piece in order, as pending batches are
    merged = PhoutBatch.concat(parts)
    expected = merged.take(_order(merged)) if merged.rows else merged
    got = _merged_in_order(PhoutBatch.concat(parts)) if merged.rows else merged
    for name in BATCH_FIELDS:
        np.testing.assert_array_equal(getattr(got, name), getattr(expected, name), err_msg=name)
