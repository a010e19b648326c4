"""Types of the C kernels of phout ingestion (analytics/_phout_fast.c; analytics.kernels imports them)."""

from typing import Any

import numpy.typing as npt
from typing_extensions import Buffer

def parse_block(
    block: Buffer,
    outputs: tuple[npt.NDArray[Any], ...],
    ranges: tuple[tuple[int, int], ...],
    max_receive_sec: int,
    /,
) -> tuple[int, list[bytes]] | None: ...
def group_aggregate(
    inputs: tuple[npt.NDArray[Any], ...],
    group_outputs: tuple[npt.NDArray[Any], ...],
    seconds: tuple[npt.NDArray[Any], npt.NDArray[Any]],
    sparse: tuple[npt.NDArray[Any], ...],
    grid: tuple[Any, ...],
    levels: npt.NDArray[Any],
    sentinel_abs: int,
    discarded_net: int,
    /,
) -> tuple[int, int, int]: ...
