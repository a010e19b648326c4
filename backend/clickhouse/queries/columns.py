"""A SELECT's rows as a dataclass of typed columns: what the per-second reads hand to the report and the diagnosis.

The dataclass is the one description of the columns: its fields name them in the SELECT's order and their types
say how each value is read (list[int], list[float], or a sumMap's (keys, values) pairs).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")


def pairs(value: Sequence[Sequence[int]]) -> tuple[list[int], list[int]]:
    """A sumMap's (keys, values) as two lists."""
    return list(value[0]), list(value[1])


CASTS: dict[str, Callable[[Any], Any]] = {
    "list[int]": int,
    "list[float]": float,
    "list[tuple[list[int], list[int]]]": pairs,
}


@functools.cache
def _casts(cls: Any) -> tuple[tuple[str, Callable[[Any], Any]], ...]:
    """(name, cast) per field of `cls`; a field of another type is a programming error, raised on first use."""
    return tuple((f.name, CASTS[f.type if isinstance(f.type, str) else repr(f.type)]) for f in dataclasses.fields(cls))


def rows_as(cls: type[T], rows: Sequence[Sequence[Any]]) -> T:
    """`rows` as the column dataclass `cls`: column i of the SELECT is its field i."""
    made: Any = cls
    answer: T = made(**{name: [cast(row[i]) for row in rows] for i, (name, cast) in enumerate(_casts(made))})
    return answer
