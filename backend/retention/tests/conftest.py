"""Aged tests built by the test itself: uploaded tests (raw samples, per-second rows, monitoring) with a creation
date in the past, each stored by its own INSERTs (its own parts, as separate uploads are)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import numpy as np
import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from backend.loadtests.models import Test, TestStatus, Upload, UploadStatus
from backend.reports.models import TestFigures
from backend.reports.tests import factory

SECONDS = 60


@pytest.fixture
def aged(owner: User, clickhouse: None, redis_db: Any) -> Callable[..., Test]:
    def make(name: str, age_days: float, seed: int, n: int = 30_000, **fields: Any) -> Test:
        test = Test.objects.create(owner=owner, name=name, status=TestStatus.READY, component="api", **fields)
        upload = Upload.objects.create(test=test, status=UploadStatus.READY)
        s = factory.random_samples(n, SECONDS, seed=seed)
        factory.insert_samples(test.pk, upload.pk, s)
        factory.insert_aggregates(factory.aggregate_rows(test.pk, upload.pk, s, reqps=n / SECONDS, threads=4))
        cpu = np.random.default_rng(seed).uniform(5, 60, SECONDS).tolist()
        factory.insert_monitoring(test.pk, "target", {"cpu-cpu-total_user": cpu, "Memory_used": cpu})
        created = timezone.now() - timedelta(days=age_days)
        Test.objects.filter(pk=test.pk).update(
            active_upload=upload, created_at=created, finished_at=created, first_ts=factory.T0
        )
        TestFigures.objects.create(test=test, responses=n, q99_ms=123.0, max_rps=n / SECONDS, failed=0)
        return Test.objects.get(pk=test.pk)

    return make
