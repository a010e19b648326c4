"""Fixtures of the reports suite: users with API tokens, and tests stored as streamed or uploaded."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User

from backend.loadtests.models import Test, TestStatus, Upload, UploadStatus
from backend.reports.tests import factory


@pytest.fixture
def cache_clear(redis_db: Any) -> None:
    """The Django cache lives in the test Redis database, emptied by redis_db."""


@pytest.fixture
def streamed(owner: User, clickhouse: None, cache_clear: None) -> tuple[Test, factory.Samples]:
    """A closed test the tank streamed (source 0, no raw samples): 120 s, 3 cases."""
    test = Test.objects.create(owner=owner, name="streamed", status=TestStatus.PROCESSING, has_stream=True)
    s = factory.random_samples(6000, 120, seed=11)
    factory.insert_aggregates(factory.aggregate_rows(test.pk, 0, s, reqps=60.0, threads=7))
    return test, s


@pytest.fixture
def uploaded(owner: User, clickhouse: None, cache_clear: None) -> tuple[Test, factory.Samples]:
    """A test with an uploaded phout (raw samples and derived rows of its upload): 90 s, 4 cases, and requests
    with an empty tag (overall only)."""
    test = Test.objects.create(owner=owner, name="uploaded", status=TestStatus.PROCESSING)
    upload = Upload.objects.create(test=test, status=UploadStatus.READY)
    s = factory.random_samples(8000, 90, tags=("index", "search", "missing", "__NOTAG__", ""), seed=23)
    factory.insert_samples(test.pk, upload.pk, s)
    factory.insert_aggregates(factory.aggregate_rows(test.pk, upload.pk, s, reqps=90.0, threads=5))
    test.active_upload = upload
    test.save(update_fields=["active_upload"])
    return test, s
