"""The head of a body, judged before the rest is accepted (backend/uploads/formats.head_error): each format by its
own parser, phout by phout's."""

from __future__ import annotations

import gzip
from pathlib import Path

from backend.uploads.formats import head_error, requested_format

FIXTURES = Path(__file__).resolve().parents[3] / "analytics" / "formats" / "tests" / "fixtures"


def test_a_jtl_head_cut_anywhere_plain_or_gzip_is_accepted() -> None:
    data = (FIXTURES / "jmeter_default.jtl").read_bytes()
    for cut in (60, 400, 700, len(data)):
        assert head_error(data[:cut], cut == len(data), "") is None, cut
    assert head_error(gzip.compress(data), True, "") is None


def test_a_head_is_judged_by_the_format_asked_for() -> None:
    data = (FIXTURES / "gatling_3_9.log").read_bytes()
    assert head_error(data, True, "") is None
    refusal = head_error(data, True, "jmeter-csv")
    assert refusal is not None and "timeStamp and elapsed" in refusal


def test_phout_heads_keep_phouts_judgement() -> None:
    refusal = head_error(b"hello world\n" * 20, True, "")
    assert refusal is not None and "does not look like phout" in refusal


def test_format_names_and_families() -> None:
    assert requested_format(None) == "" and requested_format(" K6 ") == "k6"
    assert requested_format("gatling") == "gatling"
