"""What a phout file may cost and hold: implausible times, blank-line bombs, endless lines, bytes text cannot hold."""

from __future__ import annotations

import io

import pytest

from analytics.phout import BLANK_LINES_FREE, MAX_LINE_BYTES, NotPhout, PhoutParser, not_phout_error

GOOD = b"1700000000.100\tindex\t1000\t10\t20\t900\t70\t0\t100\t2000\t0\t200\n"


def good_lines(n: int) -> bytes:
    return b"".join(b"17000%05d.100\tindex\t1000\t10\t20\t900\t70\t0\t100\t2000\t0\t200\n" % i for i in range(n))


class CountingReader(io.BytesIO):
    """A stream that counts the bytes handed out, to show the parser stopped early."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.bytes_read = 0

    def readinto(self, buffer: memoryview, /) -> int:  # type: ignore[override]
        n = super().readinto(buffer)
        self.bytes_read += n
        return n


@pytest.mark.parametrize("time", [b"1.0", b"0.5", b"946684799.999"])
def test_a_send_time_before_2000_is_a_named_bad_line(time: bytes) -> None:
    body = good_lines(20) + time + GOOD[GOOD.index(b"\t") :] + good_lines(5)
    parser = PhoutParser(block_bytes=256)
    batches = list(parser.read_from(io.BytesIO(body)))
    assert parser.stats.lines_bad == 1 and sum(b.rows for b in batches) == 25
    bad = parser.stats.bad_examples[0]
    assert bad.line == 21 and "before 2000-01-01" in bad.reason and time.decode() in bad.reason
    assert min(int(b.receive_sec.min()) for b in batches) >= 1_700_000_000  # no 56-year report


def test_a_send_time_from_2000_on_takes_every_path() -> None:
    body = GOOD.replace(b"1700000000.100", b"946684800.000") * 50
    for block_bytes in (64, 1 << 20):
        parser = PhoutParser(block_bytes=block_bytes)
        rows = sum(b.rows for b in parser.read_from(io.BytesIO(body)))
        assert (rows, parser.stats.lines_bad) == (50, 0)


def test_a_nul_in_a_bad_line_is_escaped_and_the_line_named() -> None:
    body = good_lines(10) + b"1700000000.1\tin\x00dex\t1000\t\x01\n" + good_lines(10)
    parser = PhoutParser(block_bytes=128)
    rows = sum(b.rows for b in parser.read_from(io.BytesIO(body)))
    assert rows == 20 and parser.stats.lines_bad == 1
    bad = parser.stats.bad_examples[0]
    assert bad.line == 11
    assert "\x00" not in bad.text and "\x01" not in bad.text
    assert bad.text == "1700000000.1\tin\\x00dex\t1000\t\\x01"


def test_a_gigabyte_of_line_ends_behind_a_few_good_lines_is_refused_early() -> None:
    # The shape of the gzip bomb of issue 19 (300 good lines, then line ends): refused after reading a bounded
    # amount, not after the whole input.
    body = good_lines(300) + b"\n" * (64 * 1024 * 1024)
    stream = CountingReader(body)
    parser = PhoutParser()
    with pytest.raises(NotPhout, match="blank lines for 300 phout lines"):
        list(parser.read_from(stream, early_verdict_lines=5000))
    assert stream.bytes_read <= 2 * parser.block_bytes


@pytest.mark.parametrize("filler", [b"\n", b"\r\n", b" \t \n"])
def test_blank_lines_among_phout_cost_the_slow_path_a_bounded_amount(filler: bytes) -> None:
    body = (good_lines(10) + filler * 30_000) * 8  # blank lines interleaved in one block
    parser = PhoutParser()
    with pytest.raises(NotPhout, match="blank lines"):
        list(parser.read_from(io.BytesIO(body), early_verdict_lines=5000))
    assert parser.stats.lines_blank < BLANK_LINES_FREE + 2 * 16_384 + 30_000


def test_a_few_blank_lines_are_only_skipped() -> None:
    body = b"\n" * 1000 + good_lines(100) + b"\n\n" + good_lines(100)
    parser = PhoutParser(block_bytes=4096)
    rows = sum(b.rows for b in parser.read_from(io.BytesIO(body), early_verdict_lines=50))
    assert rows == 200 and parser.stats.lines_bad == 0 and parser.stats.lines_blank == 1002
    assert not_phout_error(parser.stats) is None


def test_a_line_without_end_is_refused_once_longer_than_the_limit() -> None:
    body = good_lines(10) + b"x" * (MAX_LINE_BYTES * 3)
    stream = CountingReader(body)
    parser = PhoutParser(block_bytes=64 * 1024)
    with pytest.raises(NotPhout, match="line 11 is longer than"):
        list(parser.read_from(stream, early_verdict_lines=5000))
    assert stream.bytes_read <= 2 * MAX_LINE_BYTES


@pytest.mark.parametrize("filler", [b"\n", b"\r\n", b" \t \n", b"x\n"])
def test_blocks_of_blank_or_short_lines_never_reach_pyarrow(filler: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    # pyarrow converts every row of a block before it fails on the first bad one: a block of line ends costs it
    # seconds of CPU and memory many times the block's size. Such blocks go to the line-by-line path, which stops at
    # the early verdict.
    import pyarrow.csv as pacsv

    def no_arrow(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("pyarrow was given a block of blank or short lines")

    monkeypatch.setattr(pacsv, "read_csv", no_arrow)
    parser = PhoutParser(block_bytes=1 << 20)
    with pytest.raises(NotPhout):
        list(parser.read_from(io.BytesIO(good_lines(300) + filler * (4 << 20)), early_verdict_lines=5000))
