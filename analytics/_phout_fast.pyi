"""Types of the C fast path of analytics.phout (analytics/_phout_fast.c)."""

from typing import Any

import numpy.typing as npt
from typing_extensions import Buffer

def count_lines(block: Buffer, /) -> int: ...
def parse_block(
    block: Buffer,
    outputs: tuple[npt.NDArray[Any], ...],
    ranges: tuple[tuple[int, int], ...],
    max_receive_sec: int,
    /,
) -> tuple[int, list[bytes]] | None: ...
