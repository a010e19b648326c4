"""Columns in ClickHouse's Native wire format, encoded straight from numpy arrays (for streamed inserts).

clickhouse-driver's numpy insert copies every column several times on the way out (a null scan through pandas,
a normalising copy, a byte-order copy, `tobytes`). Here a numeric column is sent as the array's own memory when
it already has the column's type, and a String column given as codes into a few distinct values (the tag of a
phout sample is one of a test's cases) is encoded with one join instead of one Python object per row, and with
one repetition per run of equal codes when the rows are sorted by it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

# Little-endian numpy dtypes of the ClickHouse types we insert (Native sends fixed-width values as they are).
NUMERIC_DTYPES = {
    "UInt8": "<u1",
    "UInt16": "<u2",
    "UInt32": "<u4",
    "UInt64": "<u8",
    "Int8": "<i1",
    "Int16": "<i2",
    "Int32": "<i4",
    "Int64": "<i8",
    "Float32": "<f4",
    "Float64": "<f8",
}


@dataclass(frozen=True)
class CodedStrings:
    """A String column as `values[codes[i]]` for each row i."""

    codes: npt.NDArray[np.integer[Any]]
    values: Sequence[bytes]

    def __len__(self) -> int:
        return int(self.codes.size)


@dataclass(frozen=True)
class ArrayColumn:
    """An Array(T) column: row i holds values[ends[i - 1]:ends[i]] (ends cumulative, as Native sends them)."""

    ends: npt.NDArray[np.uint64]
    values: npt.NDArray[Any]

    def __len__(self) -> int:
        return int(self.ends.size)


ColumnData = npt.NDArray[Any] | CodedStrings | ArrayColumn


def varint(value: int) -> bytes:
    """ClickHouse's unsigned LEB128, as it prefixes every String value with its length."""
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def encode_column(ch_type: str, data: ColumnData) -> memoryview | bytes:
    """The Native encoding of one column's values (without name and type)."""
    if ch_type.startswith("Array(") and ch_type.endswith(")"):
        if not isinstance(data, ArrayColumn):
            raise TypeError(f"an Array column needs ArrayColumn data, not {type(data).__name__}")
        # Native: every row's end offset (UInt64), then the values of all rows as one column of the inner type.
        ends = np.ascontiguousarray(data.ends, dtype="<u8").data.cast("B")
        return b"".join((ends, encode_column(ch_type[len("Array(") : -1], data.values)))
    if isinstance(data, ArrayColumn):
        raise TypeError(f"an Array given for a {ch_type} column")
    dtype = NUMERIC_DTYPES.get(ch_type)
    if dtype is not None:
        if isinstance(data, CodedStrings):
            raise TypeError(f"strings given for a {ch_type} column")
        target = np.dtype(dtype)
        source = np.asarray(data)
        same_width_integer = (
            source.dtype.kind in "iu" and target.kind in "iu" and source.dtype.itemsize == target.itemsize
        )
        if same_width_integer and source.dtype.str[0] in "<|":
            # Int64 sent as UInt64 (or back): Native is two's complement little-endian, the bytes are the same.
            return np.ascontiguousarray(source).data.cast("B")
        # No copy when it already has the type. A narrowing cast (int64 into samples' UInt32/Int16 columns) wraps
        # what does not fit, silently: callers send only values in range (analytics.schema.samples.VALUE_RANGES).
        return np.ascontiguousarray(source, dtype=target).data.cast("B")
    if ch_type == "String":
        if isinstance(data, CodedStrings):
            return _coded_strings(data)
        values = [v if isinstance(v, bytes) else str(v).encode() for v in data.tolist()]
        return b"".join(varint(len(v)) + v for v in values)
    raise TypeError(f"no Native encoder for ClickHouse type {ch_type}")


# Above this many bytes per value, padding every row to the longest value costs more than joining Python bytes.
_MAX_TABLE_WIDTH = 64


# Codes in runs at least this long on average are encoded run by run (a piece of samples sorted by (second, case)
# is a few hundred runs for a few hundred thousand rows).
_MIN_RUN_ROWS = 16


def _coded_strings(data: CodedStrings) -> memoryview | bytes:
    entries = [varint(len(v)) + v for v in data.values]
    codes = data.codes
    if codes.size == 0:
        return b""
    run_starts = np.flatnonzero(codes[1:] != codes[:-1]) + 1
    if run_starts.size * _MIN_RUN_ROWS < codes.size:
        # Rows sorted by their value: each run is one bytes repetition, no work per row.
        bounds = np.r_[0, run_starts, codes.size]
        lengths = np.diff(bounds).tolist()
        return b"".join(
            entries[code] * length for code, length in zip(codes[bounds[:-1]].tolist(), lengths, strict=True)
        )
    width = max((len(e) for e in entries), default=0)
    if width > _MAX_TABLE_WIDTH:
        return b"".join(map(entries.__getitem__, data.codes.tolist()))
    # Every row's entry padded to `width` in one gather, then the padding dropped in one boolean selection:
    # row-major order makes the kept bytes exactly the concatenation of the entries (twice as fast as a join).
    table = np.zeros((len(entries), width), dtype=np.uint8)
    for i, entry in enumerate(entries):
        table[i, : len(entry)] = np.frombuffer(entry, dtype=np.uint8)
    lengths = np.array([len(e) for e in entries], dtype=np.int64)
    keep = np.arange(width) < lengths[data.codes][:, None]
    out: npt.NDArray[np.uint8] = table[data.codes][keep]
    return out.data
