"""Small parts of ingestion (backend/uploads/ingest.py) that keep its CPU down."""

from __future__ import annotations

import gc

import pytest

from backend.uploads.ingest import _IdColumns, _no_cycle_collection


def test_cycle_collection_is_off_while_ingesting_and_as_it_was_after() -> None:
    assert gc.isenabled()
    with _no_cycle_collection():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), _no_cycle_collection():
        raise RuntimeError("a failed ingestion")
    assert gc.isenabled()
    gc.disable()
    try:
        with _no_cycle_collection():
            pass
        assert not gc.isenabled()  # someone else's choice is kept
    finally:
        gc.enable()


def test_id_columns_are_filled_once_and_handed_out_as_views() -> None:
    ids = _IdColumns(7, 8)
    test_ids, upload_ids = ids.of(5)
    assert test_ids.tolist() == [7] * 5 and upload_ids.tolist() == [8] * 5
    again, _ = ids.of(3)
    assert again.base is test_ids.base  # no new array for a smaller piece
    bigger, more = ids.of(9)
    assert bigger.tolist() == [7] * 9 and more.tolist() == [8] * 9
