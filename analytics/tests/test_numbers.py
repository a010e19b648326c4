"""A number in a result file or a URL is written in ASCII digits: `²` passes str.isdigit() and fails int(), `٣`
passes both, and neither is an HTTP code, an id or a size."""

from __future__ import annotations

from analytics.formats.jmeter_codes import codes_of
from analytics.numbers import is_digits
from analytics.schema.codes import UNKNOWN_NET_CODE


def test_digits_are_ascii_digits_only() -> None:
    assert is_digits("0123456789")
    for text in ("", "²", "٣", "1²", " 1", "1_000", "-1", "١٢"):
        assert not is_digits(text), text


def test_a_jmeter_response_code_in_other_digits_is_no_http_code() -> None:
    assert codes_of("²", True) == (0, 0) and codes_of("٣", False) == (0, UNKNOWN_NET_CODE)
    assert codes_of("503", False) == (503, 0)
