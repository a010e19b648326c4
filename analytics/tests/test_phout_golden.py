"""Golden-file tests of the phout parser and the per-second aggregation, one small file per quirk of real phout."""

from __future__ import annotations

import json
import os

import pytest

from analytics.phout import INT_COLUMNS, NOTAG_CASE, PhoutParser, case_of_tag, not_phout_error
from analytics.schema.samples import VALUE_RANGES
from analytics.schema.seconds import QUANTILE_COLUMNS
from analytics.tests.phout_support import GOLDEN, describe, parse_bytes, read_golden

GOLDEN_FILES = sorted(
    p.name
    for p in GOLDEN.iterdir()
    if p.name.endswith((".phout", ".phout.gz")) and not p.name.startswith("bfg_capture")
)


def _expected_path(name: str) -> os.PathLike[str]:
    return GOLDEN / (name.split(".phout")[0] + ".expected.json")


@pytest.mark.parametrize("name", GOLDEN_FILES)
def test_golden(name: str) -> None:
    got = json.loads(json.dumps(describe(read_golden(name))))
    path = _expected_path(name)
    if os.environ.get("UPDATE_GOLDEN"):
        with open(path, "w") as f:
            json.dump(got, f, indent=1, sort_keys=True)
            f.write("\n")
    with open(path) as f:
        assert got == json.load(f)


@pytest.mark.parametrize("name", GOLDEN_FILES)
@pytest.mark.parametrize(("piece", "block_bytes"), [(1, 1), (1000, 10**6), (13, 100)])
def test_chunking_does_not_change_the_result(name: str, piece: int, block_bytes: int) -> None:
    data = read_golden(name)
    assert describe(data, piece=piece, block_bytes=block_bytes) == describe(data)


@pytest.mark.parametrize("name", GOLDEN_FILES)
@pytest.mark.parametrize("block_bytes", [1, 100, 10**6])
def test_reading_a_file_gives_what_feeding_gives(name: str, block_bytes: int) -> None:
    # read_from fills the parser's own buffer; block_bytes=1 makes every line longer than a block.
    data = read_golden(name)
    assert describe(data, block_bytes=block_bytes, from_file=True) == describe(data)


def test_tags_are_cut_at_the_last_hash() -> None:
    assert case_of_tag("search#1") == "search"
    assert case_of_tag("a#b#c") == "a#b"
    assert case_of_tag("#3") == NOTAG_CASE
    assert case_of_tag("#") == NOTAG_CASE
    assert case_of_tag("") == ""
    got = describe(read_golden("tags_hash.phout"))
    assert [r[2] for r in got["rows"]] == ["search", "search", "a#b", NOTAG_CASE, NOTAG_CASE, "plain"]
    assert {a["case"] for a in got["aggregates"]} == {"", "search", "a#b", NOTAG_CASE, "plain"}


def test_empty_tag_counts_in_overall_only() -> None:
    got = describe(read_golden("empty_tag.phout"))
    by = {(a["ts"], a["case"]): a for a in got["aggregates"]}
    assert set(by) == {(1700000000, ""), (1700000000, "index"), (1700000001, "")}
    assert by[(1700000000, "")]["resps"] == 3
    assert by[(1700000000, "index")]["resps"] == 1
    assert by[(1700000000, "")]["http_codes"] == [200, 500]


def test_out_of_order_lines_land_in_their_response_second() -> None:
    got = describe(read_golden("out_of_order.phout"))
    overall = {a["ts"]: a["resps"] for a in got["aggregates"] if a["case"] == ""}
    # receive second = int(send + interval_real): .9+.05, .99+.005 → 0; .5+.6, 1.95+.03 → 1; 1.1+1, .95+1.2, 2.01 → 2
    assert overall == {1700000000: 2, 1700000001: 2, 1700000002: 3}


def test_pandora_sentinels_are_signed_64_bit_and_left_out_of_phase_means() -> None:
    got = describe(read_golden("pandora_sentinels.phout"))
    assert got["rows"][2][4] == 9223372036854775 and got["rows"][2][6] == -9223372036854775
    api = next(a for a in got["aggregates"] if a["case"] == "api")
    assert api["resps"] == 4
    assert api["connect_time_ms"] == pytest.approx(0.2)  # only the two measured requests
    assert api["latency_ms"] == pytest.approx(1.7)
    assert api["expect_ms"] == pytest.approx((1000 + 3000 + 2 * 10_000_000) / 4 / 1000)
    assert api["net_codes"] == [0, 110] and api["net_counts"] == [2, 2]


def test_discarded_rows_are_counted_but_not_timed() -> None:
    got = describe(read_golden("discarded.phout"))
    overall = next(a for a in got["aggregates"] if a["case"] == "")
    assert overall["resps"] == 5
    assert overall["net_codes"] == [0, 777] and overall["net_counts"] == [2, 3]
    assert overall["expect_ms"] == pytest.approx(3.0)  # (2 + 4) / 2, the zeros of never-sent requests left out
    assert overall["q50_ms"] == pytest.approx(3.0) and overall["q100_ms"] == pytest.approx(4.0)
    assert sum(overall["hist_counts"]) == 2
    discarded = next(a for a in got["aggregates"] if a["case"] == "discarded")
    assert discarded["resps"] == 2 and discarded["hist_counts"] == []
    assert [discarded[c] for c in QUANTILE_COLUMNS] == [0.0] * 9


def test_bfg_rows_have_only_response_time_and_http_code() -> None:
    got = describe(read_golden("bfg.phout"))
    assert got["lines_bad"] == 0 and len(got["rows"]) == 5
    errors = next(a for a in got["aggregates"] if a["case"] == "errors")
    assert errors["net_codes"] == [1] and errors["http_codes"] == [0]


def test_bad_lines_are_counted_with_their_numbers() -> None:
    got = describe(read_golden("bad_lines.phout"))
    assert got["lines_total"] == 7  # the blank line 4 is skipped, not counted
    assert [line for line, _ in got["bad_lines"]] == [2, 3, 5, 6, 8]
    reasons = dict((line, reason) for line, reason in got["bad_lines"])
    assert "found 1" in reasons[2] and "interval_real '12x'" in reasons[3] and "found 13" in reasons[5]
    assert "net_code" in reasons[8]
    assert [r[3] for r in got["rows"]] == [1000, 4000]


def test_values_that_do_not_fit_their_column_are_bad_lines() -> None:
    # `samples` stores these columns in 4 or 2 bytes; the INSERT's cast would wrap what does not fit.
    got = describe(read_golden("out_of_range.phout"))
    assert got["lines_total"] == 18 and got["lines_bad"] == 8
    reasons = dict((line, reason) for line, reason in got["bad_lines"])
    assert reasons == {
        2: "interval_real 4294967296 is out of range 0..4294967295",
        4: "size_in 4294967296 is out of range 0..4294967295",
        5: "interval_real -1 is out of range 0..4294967295",
        6: "size_out -1 is out of range 0..4294967295",
        7: "send_time 2147483648 is out of range -2147483648..2147483647",
        8: "interval_event -2147483649 is out of range -2147483648..2147483647",
        9: "net_code 32768 is out of range -32768..32767",
        10: "proto_code -32769 is out of range -32768..32767",
    }
    # The other lines are kept, values at the columns' limits and pandora's sentinels as they are.
    assert [r[3] for r in got["rows"]] == [1000, 2000, 4000, 2**32 - 1, 5000, 6000, 7000, 8000, 9000, 10000]
    edge = got["rows"][3][3:]
    assert edge[:5] == [2**32 - 1, 9223372036854775, -(2**31), -9223372036854775, 9223372036854775]
    assert edge[5:] == [2**31 - 1, 2**32 - 1, 0, -(2**15), 2**15 - 1]
    assert got["rows"][4][3:] == [5000, 0, 2**31 - 1, 0, 0, -(2**31), 0, 2**32 - 1, 2**15 - 1, -(2**15)]
    parser, _ = parse_bytes(read_golden("out_of_range.phout"))
    assert not_phout_error(parser.stats) is None


def test_value_ranges_cover_every_integer_column() -> None:
    assert tuple(VALUE_RANGES) == INT_COLUMNS


def test_truncated_last_line() -> None:
    cut = describe(read_golden("truncated.phout"))
    assert cut["lines_bad"] == 1 and cut["bad_lines"][0][0] == 3
    assert cut["bad_lines"][0][1].startswith("truncated last line")
    whole = describe(read_golden("truncated_whole.phout"))  # no line end, but a whole line: kept
    assert whole["lines_bad"] == 0 and len(whole["rows"]) == 2


def test_crlf_and_gzip() -> None:
    crlf = describe(read_golden("crlf.phout"))
    assert crlf["lines_bad"] == 0 and [r[2] for r in crlf["rows"]] == ["a", "b", "a"]
    mixed = describe(read_golden("mixed_crlf.phout.gz"))
    assert mixed["lines_bad"] == 0 and len(mixed["rows"]) == 9


def test_a_file_mostly_not_phout_is_refused() -> None:
    parser, _ = parse_bytes(read_golden("not_phout.txt"))
    error = not_phout_error(parser.stats)
    assert error is not None and "31 of 32 lines are not phout" in error and "line 1:" in error
    good, _ = parse_bytes(read_golden("tags_hash.phout") + b"not phout\n" * 6)
    assert good.stats.lines_bad == 6 and not_phout_error(good.stats) is None  # 6 bad of 12: still phout
    assert not_phout_error(PhoutParser().stats) == "the file holds no phout lines"


def test_unique_raw_tags_do_not_grow_memory() -> None:
    import analytics.phout as phout

    lines = b"".join(b"1700000000.100\tsearch#%d\t1000\t0\t0\t0\t0\t0\t0\t0\t0\t200\n" % i for i in range(300))
    parser = PhoutParser(block_bytes=1000)
    original = phout.MAX_CACHED_RAW_TAGS
    phout.MAX_CACHED_RAW_TAGS = 50
    try:
        batches = [*parser.feed(lines), *parser.finish()]
    finally:
        phout.MAX_CACHED_RAW_TAGS = original
    assert parser.cases == ["search"] and sum(b.rows for b in batches) == 300
    assert len(parser._raw_tag_codes) <= 50
