"""What a number in a result file is: the one rule every format parser reads values with.

A value is a number only if it is written in ASCII digits (Python's `int()` and `float()` also take `²`, `٣`,
`1_000`, ` 7 `, `inf`, `nan` and `1e400`, which is infinite), is finite, and lies within its column's range. Anything
else raises `NotANumber` whose message names the field and shows the value, so that the parser can report a bad
line with its number and field, never an exception the upload turns into a 500 or "internal error".
"""

from __future__ import annotations

import math
import re

# Plain decimal integers and decimals: an optional sign, ASCII digits, an optional fraction and exponent.
_INT = re.compile(r"[+-]?[0-9]{1,40}")  # a 30-digit value is named out of range, not "not a number"
_FLOAT = re.compile(r"[+-]?([0-9]{1,30}(\.[0-9]{0,30})?|\.[0-9]{1,30})([eE][+-]?[0-9]{1,3})?")
SHOWN_CHARS = 40


class NotANumber(ValueError):
    """A field that is not a finite ASCII number within its range; the message names the field."""


def _shown(text: object) -> str:
    return repr(str(text)[:SHOWN_CHARS])


def is_digits(text: str) -> bool:
    """Whether the text is ASCII digits only (str.isdigit also takes `²`, on which int() fails, and `٣`)."""
    return text.isascii() and text.isdigit()


def parse_int(text: str | bytes, field: str, low: int, high: int) -> int:
    """An integer written in ASCII digits within low..high."""
    raw = text.decode("ascii", errors="replace") if isinstance(text, bytes) else text
    if not _INT.fullmatch(raw):
        raise NotANumber(f"{field} {_shown(raw)} is not an integer")
    value = int(raw)
    if not low <= value <= high:
        raise NotANumber(f"{field} {value} is out of range {low}..{high}")
    return value


def parse_float(text: str | bytes, field: str, low: float, high: float) -> float:
    """A finite decimal number written in ASCII (no inf, nan, hex, underscores or other scripts) within low..high."""
    raw = text.decode("ascii", errors="replace") if isinstance(text, bytes) else text
    if not _FLOAT.fullmatch(raw):
        raise NotANumber(f"{field} {_shown(raw)} is not a number")
    value = float(raw)
    if not math.isfinite(value):  # 1e400
        raise NotANumber(f"{field} {_shown(raw)} is not a finite number")
    return in_range(value, field, low, high)


def in_range(value: float, field: str, low: float, high: float) -> float:
    """A float already parsed (JSON's) checked: finite and within low..high."""
    if not math.isfinite(value):
        raise NotANumber(f"{field} {_shown(value)} is not a finite number")
    if not low <= value <= high:
        raise NotANumber(f"{field} {value:g} is out of range {low:g}..{high:g}")
    return value


def json_number(value: object, field: str, low: float, high: float) -> float:
    """A JSON value that must be a number (true/false and strings such as "NaN" are not)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise NotANumber(f"{field} {_shown(value)} is not a number")
    try:
        number = float(value)
    except OverflowError:
        raise NotANumber(f"{field} {_shown(value)} is out of range {low:g}..{high:g}") from None
    return in_range(number, field, low, high)
