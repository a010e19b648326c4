"""The one reader of `Content-Range` (backend/core/content_range.py): pure, no service needed."""

from __future__ import annotations

import pytest

from backend.core.content_range import BadContentRange, ContentRange, announced_total, parse_content_range


def test_a_piece_names_its_bytes_and_the_file_size() -> None:
    piece = parse_content_range("bytes 100-199/1000")
    assert piece == ContentRange(100, 199, 1000)
    assert piece.length == 100
    assert not piece.ends_file
    assert parse_content_range(" bytes 900-999/1000 ").ends_file  # surrounding blanks are ignored


def test_a_file_whose_size_is_not_known_yet_has_no_total() -> None:
    piece = parse_content_range("bytes 0-9/*")
    assert piece == ContentRange(0, 9, None)
    assert not piece.ends_file
    assert announced_total("bytes 0-9/*") is None


@pytest.mark.parametrize(
    ("header", "why"),
    [
        ("bytes 0-9", "expected 'bytes START-END/TOTAL'"),
        ("items 0-9/10", "expected 'bytes START-END/TOTAL'"),
        ("bytes  0-9/10", "expected 'bytes START-END/TOTAL'"),
        ("bytes -1-9/10", "expected 'bytes START-END/TOTAL'"),
        ("bytes 10-9/100", "need START <= END < TOTAL"),
        ("bytes 0-10/10", "need START <= END < TOTAL"),
        ("bytes 0-9/" + "9" * 5000, "expected 'bytes START-END/TOTAL'"),
        ("bytes ٠-٩/١٠", "expected 'bytes START-END/TOTAL'"),
    ],
)
def test_a_header_that_names_no_piece_says_what_is_wrong(header: str, why: str) -> None:
    with pytest.raises(BadContentRange, match=why):
        parse_content_range(header)
    assert announced_total(header) is None


def test_the_announced_total_is_what_the_size_limit_is_checked_against() -> None:
    assert announced_total("bytes 0-9/101") == 101
    assert announced_total("") is None
