"""The C fast path of the phout parser (analytics/_phout_fast.c) against the other two paths.

Differential: any input parsed with the C path must give exactly what the parser gives without it (pyarrow, then
line by line), row for row and case for case, whether the C path accepts a block or refuses it.
"""

from __future__ import annotations

import dataclasses
import io
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytics import _phout_fast, kernels, phout
from analytics.phout import INT_COLUMNS, PhoutParser, parse_stream
from analytics.schema.samples import FIELDS, INTEGER_COLUMNS, MAX_RECEIVE_SEC, VALUE_RANGES, PhoutBatch


def parse(
    data: bytes, *, native: bool, block_bytes: int = 4096, piece: int = 0
) -> tuple[PhoutParser, PhoutBatch | None]:
    parser = PhoutParser(block_bytes=block_bytes)
    if not native:
        parser._parse_native = lambda block: None  # type: ignore[method-assign]
    pieces = [data[i : i + piece] for i in range(0, len(data), piece)] if piece else [data]
    batches = list(parse_stream(pieces, parser))
    return parser, PhoutBatch.concat(batches) if batches else None


def assert_same(data: bytes, block_bytes: int = 4096, piece: int = 0) -> PhoutParser:
    fast, fast_batch = parse(data, native=True, block_bytes=block_bytes, piece=piece)
    slow, slow_batch = parse(data, native=False, block_bytes=block_bytes, piece=piece)
    assert fast.stats == slow.stats
    assert (fast_batch is None) == (slow_batch is None)
    if fast_batch is not None and slow_batch is not None:
        # Case codes are numbered in order of first appearance on both paths: same codes, same names.
        assert [fast.cases[c] for c in fast_batch.case_codes] == [slow.cases[c] for c in slow_batch.case_codes]
        for f in dataclasses.fields(PhoutBatch):
            if f.name != "case_codes":
                ours, theirs = getattr(fast_batch, f.name), getattr(slow_batch, f.name)
                assert ours.dtype == theirs.dtype, f.name
                np.testing.assert_array_equal(ours, theirs, err_msg=f.name)
    return fast


def integer(name: str) -> st.SearchStrategy[int]:
    low, high = VALUE_RANGES[name]
    edges = st.sampled_from([low, high, 0, -1 if low < 0 else 1, 9223372036854775 if high > 2**40 else high])
    return st.one_of(edges, st.integers(max(low, -(10**7)), min(high, 10**7)), st.integers(low, high))


send_times = st.one_of(
    st.integers(1_000_000_000, 2_000_000_000).map(str),
    st.tuples(st.integers(1_000_000_000, 2_000_000_000), st.integers(0, 999_999), st.integers(1, 9)).map(
        lambda t: f"{t[0]}.{str(t[1]).zfill(6)[: t[2]]}"
    ),
    st.floats(1e9, 2e9, allow_nan=False).map(repr),
    st.sampled_from(["1700000000.", "0001700000000.5", "4294967295.999", "1700000000.123456789012"]),
)
tags = st.one_of(
    st.sampled_from(["", "#", "#3", "case", "case#1", "a#b#17", "a##", "case#", "ünï#2", "sp ace"]),
    st.text(st.characters(blacklist_characters="\t\n\r", blacklist_categories=["Cs"]), max_size=12),
)


@st.composite
def lines(draw: st.DrawFn) -> str:
    values = [str(draw(integer(name))) for name in INT_COLUMNS]
    if draw(st.booleans()) and draw(st.booleans()):
        values[draw(st.integers(0, len(values) - 1))] = draw(st.sampled_from(["007", "-0", "+5", " 5", "", "1e3"]))
    ending = draw(st.sampled_from(["\n", "\n", "\n", "\r\n"]))
    return "\t".join([draw(send_times), draw(tags), *values]) + ending


@settings(max_examples=300, deadline=None)
@given(st.lists(lines(), min_size=1, max_size=40), st.sampled_from([64, 300, 4096]))
def test_the_c_path_gives_what_the_other_paths_give(body: list[str], block_bytes: int) -> None:
    assert_same("".join(body).encode(), block_bytes)


def test_the_c_parser_is_built() -> None:
    # It is optional for `pip install` (a tank host may have no compiler), never for the server: `make setup` builds
    # it, and without it every upload would silently parse at a third of the speed.
    assert kernels.fast is not None


def test_a_clean_block_takes_the_c_path() -> None:
    block = b"1700000000.101\tcase#7\t2227\t31\t9\t2151\t36\t2198\t193\t2365\t0\t200\n" * 3
    outputs = phout.NativeColumns.for_block(len(block)).outputs()
    parsed = _phout_fast.parse_block(block, outputs, phout._NATIVE_RANGES, MAX_RECEIVE_SEC)
    assert parsed == (3, [b"case#"])
    assert outputs[0].size > 3  # room for the shortest lines the block could have held
    assert outputs[0][:3].tolist() == [1700000000101000] * 3
    assert outputs[1][:3].tolist() == [1700000000] * 3  # 0.101 s + 2.227 ms is still the same second


@pytest.mark.parametrize(
    "line",
    [
        b"1700000000.1\tt\t1\t2\t3\t4\t5\t6\t7\t8\t9\n",  # a field missing
        b"1700000000.1\tt\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\t11\n",  # one too many
        b"1700000000.1\tt\t1\t2\t3\t4\t5\t6\t7\t8\t9\t 200\n",  # a space (pyarrow's to judge)
        b"1.7e9\tt\t1\t2\t3\t4\t5\t6\t7\t8\t9\t200\n",  # an exponent (pyarrow's)
        b"1700000000.1\tt\t4294967296\t2\t3\t4\t5\t6\t7\t8\t9\t200\n",  # interval_real over UInt32
        b"1700000000.1\tt\t1\t2\t3\t4\t5\t6\t7\t8\t9\t40000\n",  # a code over Int16
        b"0\tt\t1\t2\t3\t4\t5\t6\t7\t8\t9\t200\n",  # not a plausible time
        b"12345678901234567890\tt\t1\t2\t3\t4\t5\t6\t7\t8\t9\t200\n",  # more digits than it converts exactly
        b"\n",  # a blank line
    ],
)
def test_the_c_path_refuses_rather_than_judges(line: bytes) -> None:
    good = b"1700000000.101\tcase\t2227\t31\t9\t2151\t36\t2198\t193\t2365\t0\t200\n"
    block = good + line + good
    outputs = phout.NativeColumns.for_block(len(block)).outputs()
    assert _phout_fast.parse_block(block, outputs, phout._NATIVE_RANGES, MAX_RECEIVE_SEC) is None
    assert_same(block)  # and the parser still gets it right the other ways


def test_a_block_that_does_not_end_with_a_line_end_is_refused() -> None:
    # The C scans stop at the block's last LF instead of checking every byte against the block's end.
    block = b"1700000000.101\tcase\t2227\t31\t9\t2151\t36\t2198\t193\t2365\t0\t200"
    outputs = phout.NativeColumns.for_block(len(block) + 1).outputs()
    assert _phout_fast.parse_block(block, outputs, phout._NATIVE_RANGES, MAX_RECEIVE_SEC) is None
    assert _phout_fast.parse_block(block + b"\n", outputs, phout._NATIVE_RANGES, MAX_RECEIVE_SEC) == (
        1,
        [b"case"],
    )


@pytest.mark.parametrize("length", [0, 1, 7, 15, 16, 17, 31, 32, 33, 47, 70])
def test_case_keys_of_tags_of_every_length(length: int) -> None:
    # The tag is scanned sixteen bytes at a time: its end and its last '#' may fall anywhere in a chunk or after.
    tags = [b"t" * length]
    tags += [b"t" * at + b"#" + b"u" * (length - at - 1) for at in range(length)]  # one '#' at every place
    tags += [b"#" * length, b"a#" * (length // 2)]
    lines = b"".join(b"1700000000.101\t" + tag + b"\t2227\t31\t9\t2151\t36\t2198\t193\t2365\t0\t200\n" for tag in tags)
    outputs = phout.NativeColumns.for_block(len(lines)).outputs()
    parsed = _phout_fast.parse_block(lines, outputs, phout._NATIVE_RANGES, MAX_RECEIVE_SEC)
    assert parsed is not None
    rows, keys = parsed
    assert rows == len(tags)
    expected = [tag[: tag.rindex(b"#") + 1] if b"#" in tag else tag for tag in tags]
    assert [keys[k] for k in outputs[2][:rows].tolist()] == expected
    assert_same(lines)


def test_case_keys_stay_few_when_every_raw_tag_is_unique() -> None:
    body = "".join(f"1700000000.{i % 1000:03d}\tcase#{i}\t1000\t0\t0\t0\t0\t0\t10\t10\t0\t200\n" for i in range(5000))
    parser = assert_same(body.encode(), block_bytes=1 << 20)
    assert parser.cases == ["case"]
    assert len(parser._raw_tag_codes) == 1  # one key, "case#", however many raw tags


def test_outputs_are_checked() -> None:
    block = b"1700000000.1\tt\t1\t2\t3\t4\t5\t6\t7\t8\t9\t200\n"
    wrong = tuple(np.empty(1, dtype=np.int64) for _ in phout.NativeColumns.empty(1).outputs())  # some are int32
    with pytest.raises(ValueError, match="items of 4 bytes"):
        _phout_fast.parse_block(block, wrong, phout._NATIVE_RANGES, MAX_RECEIVE_SEC)
    too_small = phout.NativeColumns.empty(0).outputs()
    assert _phout_fast.parse_block(block, too_small, phout._NATIVE_RANGES, MAX_RECEIVE_SEC) == (-1, [])


def test_microsecond_send_times_round_as_numpy_does() -> None:
    # send_ts * 1e6 is rarely a whole number in binary: the C path must round it (np.rint), not truncate.
    rng = np.random.default_rng(7)
    whole = rng.integers(1_000_000_000, 2_000_000_000, 20_000)
    micros = rng.integers(0, 1_000_000, 20_000)
    body = "".join(f"{w}.{m:06d}\tc\t{m}\t0\t0\t0\t0\t0\t1\t1\t0\t200\n" for w, m in zip(whole, micros, strict=True))
    _, batch = parse(body.encode(), native=True, block_bytes=1 << 22)
    assert batch is not None and batch.rows == 20_000
    assert_same(body.encode(), block_bytes=1 << 22)


def test_a_block_of_shorter_lines_than_the_last_is_parsed_again_with_room() -> None:
    long_tag = "case/" + "x" * 300
    long_lines = "".join(
        f"1700000000.{i:03d}\t{long_tag}#{i}\t1000\t0\t0\t0\t0\t0\t10\t10\t0\t200\n" for i in range(400)
    )
    short_lines = "".join(f"1700000001.{i:03d}\tc\t9\t0\t0\t0\t0\t0\t1\t1\t0\t200\n" for i in range(5000))
    # Fed a block at a time, so that blocks of short lines follow a block of long ones.
    parser = assert_same((long_lines + short_lines).encode(), block_bytes=len(long_lines), piece=len(long_lines))
    assert parser.stats.lines_total == 5400 and parser.cases == [long_tag, "c"]
    # Long lines are ~330 bytes: the short lines' blocks were the C path's, after a second try with room.
    assert parser._bytes_per_line < 100


def test_mutated_lines_give_the_same_rows_and_bad_lines_either_way() -> None:
    # Lines of a real shape with bytes changed, inserted and deleted (a local run of 40,000 such blocks found no
    # difference, and 600,000 blocks of any bytes never crashed the C path).
    rng = random.Random(5)
    good = b"1700000000.101\tcase#7\t2227\t31\t9\t2151\t36\t2198\t193\t2365\t0\t200\n"
    alphabet = b"0123456789\t\n\r.-#+ e9abc"
    for _ in range(300):
        lines = [bytearray(good) for _ in range(rng.randint(1, 30))]
        for line in lines:
            for _ in range(rng.choice([0, 0, 1, 2])):
                pos = rng.randrange(len(line))
                op = rng.random()
                if op < 0.5:
                    line[pos] = rng.choice(alphabet)
                elif op < 0.8:
                    line[pos:pos] = bytes(rng.choice(alphabet) for _ in range(rng.randint(1, 4)))
                else:
                    del line[pos : pos + rng.randint(1, 3)]
        assert_same(b"".join(lines), block_bytes=rng.choice([64, 512, 4096]))


def test_batches_own_their_columns() -> None:
    # The second window keeps batches as they come for a while (analytics/second_window.py): no later block may be
    # parsed into the columns of one handed out before.
    def line(i: int) -> str:
        phases = f"{i % 7}\t3\t{900 + i}\t5\t{990 + i}"
        return f"1700000{i // 100:03d}.{i % 1000:03d}\tc{i % 5}\t{1000 + i}\t{phases}\t10\t20\t0\t200\n"

    body = "".join(line(i) for i in range(20_000)).encode()
    kept = list(PhoutParser(block_bytes=16 * 1024).read_from(io.BytesIO(body)))
    assert len(kept) > 20
    whole = PhoutBatch.concat(list(PhoutParser(block_bytes=1 << 22).read_from(io.BytesIO(body))))
    together = PhoutBatch.concat(kept)
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(together, name), getattr(whole, name), err_msg=name)


def test_every_path_gives_columns_as_narrow_as_samples_stores_them() -> None:
    # The window gathers, the kernel reads and the INSERT sends these columns as they are (analytics.schema.samples).
    clean = b"1700000000.100\tc#1\t4000000000\t-9223372036854775\t2\t3\t4\t-5\t4000000000\t7\t777\t-1\n"
    with_a_bad_line = clean + b"not phout\n"  # the block is then parsed line by line
    for data, native in ((clean, True), (clean, False), (with_a_bad_line, False)):
        _, batch = parse(data, native=native)
        assert batch is not None
        for column in INTEGER_COLUMNS:
            assert getattr(batch, column.name).dtype == column.dtype, (native, column.name)
        assert int(batch.interval_real_us[0]) == 4_000_000_000 and int(batch.connect_time_us[0]) == -9223372036854775
