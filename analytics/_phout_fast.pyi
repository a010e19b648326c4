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
def group_totals(
    inputs: tuple[npt.NDArray[Any], ...], outputs: tuple[npt.NDArray[Any], ...], sentinel_abs: int, /
) -> None: ...
def count_pairs(
    group: npt.NDArray[Any],
    code: npt.NDArray[Any],
    mask: npt.NDArray[Any] | None,
    code_min: int,
    span: int,
    table: npt.NDArray[Any],
    /,
) -> None: ...
