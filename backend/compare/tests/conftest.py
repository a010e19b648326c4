"""Fixtures of the compare suite: tests stored as an upload's raw samples and aggregates, or as the tank's stream.

`store` writes the rows directly (fast, any shape); `upload_phout` sends a phout file through the real upload and
ingestion path (`PUT /api/v1/tests/<id>/phout`, the task run eagerly).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from django.contrib.auth.models import User

from analytics.histogram import bin_indexes_for_values_us
from analytics.schema.samples import SampleColumns
from backend.clickhouse import client
from backend.clickhouse.tables import second_aggregates
from backend.loadtests.models import Test, TestStatus, Upload, UploadStatus
from backend.testing import insert_upload_aggregates, insert_upload_samples

T0 = 1_795_316_000


def latencies_us(rng: np.random.Generator, n: int, tail_scale: float = 1.0) -> np.ndarray:
    """A body around 100 ms and a 3% tail of 0.5-1.5 s (scaled), as microseconds."""
    values = rng.lognormal(np.log(100_000.0), 0.3, n)
    tail = rng.random(n) < 0.03
    values[tail] = rng.uniform(500_000.0, 1_500_000.0, int(tail.sum())) * tail_scale
    return values.astype(np.int64)


def insert_samples(
    test_id: int,
    upload_id: int,
    receive_sec: np.ndarray,
    interval_us: np.ndarray,
    tags: np.ndarray,
    proto: np.ndarray,
    net: np.ndarray,
) -> None:
    """An upload's samples of response times and codes, and the per-second aggregates ingestion derives from them
    (source_id = the upload id)."""
    cases, codes = np.unique(np.asarray(tags, dtype=object).astype(str), return_inverse=True)
    columns = SampleColumns.of_response_times(receive_sec, codes, interval_us, net, proto)
    insert_upload_samples(test_id, upload_id, columns, cases.tolist(), tag="tests.compare.samples")
    insert_upload_aggregates(test_id, upload_id, columns, cases.tolist(), tag="tests.compare.upload_aggregates")


def stream_rows(
    test_id: int, receive_sec: np.ndarray, interval_us: np.ndarray, tags: np.ndarray
) -> list[tuple[Any, ...]]:
    """The tank's per-second rows (overall '' plus one per case) for the given requests, all HTTP 200 / net 0."""
    rows: list[tuple[Any, ...]] = []
    for sec in np.unique(receive_sec):
        in_sec = receive_sec == sec
        groups = [("", in_sec)] + [(str(t), in_sec & (tags == t)) for t in np.unique(tags[in_sec]) if t]
        for case, mask in groups:
            values = interval_us[mask]
            bins, counts = np.unique(bin_indexes_for_values_us(values), return_counts=True)
            n = int(values.size)
            q = [float(x) for x in np.percentile(values, [50, 75, 80, 85, 90, 95, 98, 99, 100]) / 1000.0]
            rows.append(
                (
                    test_id,
                    0,
                    int(sec),
                    case,
                    0.0,
                    1,
                    n,
                    float(values.mean() / 1000.0),
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                    0,
                    0,
                    *q,
                    [0],
                    [n],
                    [200],
                    [n],
                    [int(b) for b in bins],
                    [int(c) for c in counts],
                    1,
                )
            )
    return rows


@pytest.fixture
def store(owner: User, clickhouse: None, redis_db: Any) -> Callable[..., Test]:
    """Make a ready test with raw samples: `seconds` s from `t0`, `rps` per second, cases from `tags`."""

    def make(
        *,
        seed: int,
        seconds: int = 300,
        rps: int = 20,
        t0: int = T0,
        tail_scale: float = 1.0,
        tags: tuple[str, ...] = ("index", "search"),
        error_share: float = 0.0,
        streamed: bool = False,
        loadscheme: list[Any] | None = None,
        ramp_to: int | None = None,
    ) -> Test:
        rng = np.random.default_rng(seed)
        per_second = np.full(seconds, rps)
        if ramp_to is not None:  # line(1, ramp_to, seconds): one more request per second every so often
            per_second = np.round(1 + (ramp_to - 1) * np.arange(seconds) / (seconds - 1)).astype(np.int64)
        receive_sec = np.repeat(np.arange(seconds) + t0, per_second).astype(np.int64)
        n = receive_sec.size
        interval = latencies_us(rng, n, tail_scale)
        tag = np.array(tags, dtype=object)[rng.integers(0, len(tags), n)]
        proto = np.where(rng.random(n) < error_share, 500, 200).astype(np.int64)
        net = np.zeros(n, dtype=np.int64)
        test = Test.objects.create(
            owner=owner,
            name=f"seed {seed}",
            status=TestStatus.READY,
            has_stream=streamed,
            first_ts=t0,
            last_ts=t0 + seconds - 1,
            loadscheme=loadscheme if loadscheme is not None else ["const(20, 5m)"],
        )
        if streamed:
            rows = stream_rows(test.pk, receive_sec, interval, tag)
            client.insert_rows(second_aggregates.NAME, second_aggregates.COLUMNS, rows, tag="tests.compare.stream")
            return test
        upload = Upload.objects.create(test=test, status=UploadStatus.READY)
        insert_samples(test.pk, upload.pk, receive_sec, interval, tag, proto, net)
        test.active_upload = upload
        test.save(update_fields=["active_upload"])
        return test

    return make


@dataclass(frozen=True)
class Phout:
    """Requests to write as phout lines. Receive seconds are exact by construction (see `phout_requests`)."""

    send_ms: np.ndarray  # send time, unix milliseconds
    tag: np.ndarray  # raw phout tags (object array of str)
    interval_us: np.ndarray
    proto: np.ndarray
    net: np.ndarray

    @property
    def receive_sec(self) -> np.ndarray:
        return np.asarray((self.send_ms * 1000 + self.interval_us) // 1_000_000, dtype=np.int64)

    def body(self) -> bytes:
        lines = [
            f"{ms // 1000}.{ms % 1000:03d}\t{tag}\t{iv}\t0\t0\t0\t0\t0\t0\t0\t{nc}\t{pc}\n"
            for ms, tag, iv, nc, pc in zip(
                self.send_ms.tolist(),
                self.tag.tolist(),
                self.interval_us.tolist(),
                self.net.tolist(),
                self.proto.tolist(),
                strict=True,
            )
        ]
        return "".join(lines).encode()


def phout_requests(
    *,
    seed: int,
    seconds: int = 300,
    rps: int = 20,
    t0: int = T0,
    tail_scale: float = 1.0,
    tags: tuple[str, ...] = ("index#1", "index#2", "search", "", "#7"),
    error_share: float = 0.02,
    timeout_share: float = 0.005,
    discarded_share: float = 0.01,
    off_grid: int = 3,
) -> Phout:
    """Requests with everything the comparison counts apart: cases (tags cut at '#', an empty tag belonging to no
    case, '#7' being `__NOTAG__`), HTTP 500s, net timeouts (110), Pandora's discarded requests (net 777, every time
    zero, HTTP 0) and `off_grid` response times beyond the tank's grid (over 300 s)."""
    rng = np.random.default_rng(seed)
    n = seconds * rps
    send_ms = t0 * 1000 + np.sort(rng.integers(0, seconds * 1000, n))
    # Odd µs: never a whole number of ms, so send + interval never falls on a second boundary that float
    # arithmetic (the parser's) could round either way.
    interval = latencies_us(rng, n, tail_scale) | 1
    tag = np.array(tags, dtype=object)[rng.integers(0, len(tags), n)]
    proto = np.where(rng.random(n) < error_share, 500, 200).astype(np.int64)
    net = np.where(rng.random(n) < timeout_share, 110, 0).astype(np.int64)
    discarded = rng.random(n) < discarded_share
    net[discarded], proto[discarded], interval[discarded] = 777, 0, 0
    far = rng.choice(np.flatnonzero(~discarded), off_grid, replace=False)
    interval[far] = 300_000_001 + 2 * rng.integers(0, 50_000_000, off_grid)
    return Phout(send_ms, tag, interval, proto, net)


@pytest.fixture
def upload_phout(owner: User, put_phout: Callable[..., Test]) -> Callable[..., Test]:
    """Make a test and upload `requests` into it through the API; returns the test once ingested."""

    def make(requests: Phout, *, loadscheme: list[Any] | None = None) -> Test:
        test = Test.objects.create(owner=owner, name="phout", loadscheme=loadscheme or ["const(20, 5m)"])
        return put_phout(test.pk, requests.body())

    return make
