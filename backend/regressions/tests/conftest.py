"""Fixtures of the regressions suite: tests of one component made by uploading phout through the real API."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from rest_framework.test import APIClient

from backend.loadtests.models import Test

T0 = 1_795_316_000


def phout_body(*, seed: int, seconds: int = 120, rps: int = 40, t0: int = T0, slow: float = 1.0) -> bytes:
    """A steady test: response times around 50 ms × `slow` (lognormal), 1% HTTP 500s."""
    rng = np.random.default_rng(seed)
    n = seconds * rps
    send_ms = t0 * 1000 + np.sort(rng.integers(0, seconds * 1000, n))
    interval_us = (rng.lognormal(np.log(50_000.0 * slow), 0.25, n).astype(np.int64)) | 1
    proto = np.where(rng.random(n) < 0.01, 500, 200)
    return "".join(
        f"{ms // 1000}.{ms % 1000:03d}\tindex\t{iv}\t0\t0\t0\t0\t0\t0\t0\t0\t{pc}\n"
        for ms, iv, pc in zip(send_ms.tolist(), interval_us.tolist(), proto.tolist(), strict=True)
    ).encode()


@pytest.fixture
def upload_test(owner_api: APIClient, put_phout: Callable[..., Test]) -> Callable[..., Test]:
    """Create a test of `component` through the API and upload a phout into it; returns it once ingested."""

    def make(component: str, *, seed: int, slow: float = 1.0, day: int = 0, api: APIClient | None = None) -> Test:
        client = api or owner_api
        created = client.post(
            "/api/v1/tests/", {"name": f"run {seed}", "component": component, "version": f"1.{seed}"}, format="json"
        )
        assert created.status_code == 201, created.content
        return put_phout(created.json()["id"], phout_body(seed=seed, slow=slow, t0=T0 + day * 86400), api=client)

    return make
