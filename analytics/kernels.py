"""The C kernels of phout ingestion (analytics/_phout_fast.c): `fast`, or None where the package was built without.

pyproject.toml makes their build optional, so that the CLI installs on a tank host without a compiler; every path
that uses them has a plain numpy/pyarrow twin giving the same results, which is what runs then. The server's build
must have them (a test fails otherwise). Tests set `fast` to None to compare the two paths.
"""

from __future__ import annotations

try:
    from analytics import _phout_fast as fast
except ImportError:
    fast = None  # type: ignore[assignment]

__all__ = ["fast"]
