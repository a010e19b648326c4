"""The threads that store an upload's pieces (backend/uploads/stages.py)."""

from __future__ import annotations

from backend.uploads.stages import IdColumns


def test_id_columns_are_filled_once_and_handed_out_as_views() -> None:
    ids = IdColumns(7, 8)
    test_ids, upload_ids = ids.of(5)
    assert test_ids.tolist() == [7] * 5 and upload_ids.tolist() == [8] * 5
    again, _ = ids.of(3)
    assert again.base is test_ids.base  # no new array for a smaller piece
    bigger, more = ids.of(9)
    assert bigger.tolist() == [7] * 9 and more.tolist() == [8] * 9
