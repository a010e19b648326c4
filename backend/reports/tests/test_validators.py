"""Report answers of finished tests carry validators (ETag) and a Cache-Control a proxy can use, and answer 304 to a
matching If-None-Match; tests that may still change are never marked cacheable."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from backend.loadtests.models import Test, Upload
from backend.projects.models import Visibility
from backend.reports.tests.factory import finished_streamed_test
from backend.sharing.tests.rows import START_TS, insert_seconds

REPORT_PATHS = [
    "/api/v1/tests/{id}/summary",
    "/api/v1/tests/{id}/summary?q=50,99&from={start}",
    "/api/v1/tests/{id}/report",
    "/api/v1/tests/{id}/charts/quantiles?compress_ratio=auto",
    "/api/v1/tests/{id}/tables",
    "/api/v1/tests/{id}/monitoring",
    "/api/v1/tests/{id}/config",
]


@pytest.fixture
def finished(db: None, clickhouse: None, redis_db: object) -> Test:
    return finished_streamed_test()


def _paths(test: Test) -> list[str]:
    return [p.format(id=test.pk, start=START_TS) for p in REPORT_PATHS]


@pytest.mark.parametrize("index", range(len(REPORT_PATHS)))
def test_a_finished_test_answers_304_to_its_etag(finished: Test, index: int) -> None:
    path = _paths(finished)[index]
    first = Client().get(path)
    assert first.status_code == 200, first.content
    etag = first["ETag"]
    assert etag.startswith('"') and etag.endswith('"')
    assert first["Cache-Control"] == "public, max-age=60"
    again = Client().get(path, HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304
    assert again.content == b""
    assert again["ETag"] == etag
    assert Client().get(path, HTTP_IF_NONE_MATCH=f'"other", W/{etag}').status_code == 304
    assert Client().get(path, HTTP_IF_NONE_MATCH='"other"').status_code == 200


def test_each_window_has_its_own_etag(finished: Test) -> None:
    tags = {Client().get(p)["ETag"] for p in _paths(finished)}
    assert len(tags) == len(REPORT_PATHS)


def test_a_new_upload_changes_the_etag(finished: Test) -> None:
    path = f"/api/v1/tests/{finished.pk}/summary"
    before = Client().get(path)["ETag"]
    upload = Upload.objects.create(test=finished, status="ready")
    Test.objects.filter(pk=finished.pk).update(active_upload=upload)
    after = Client().get(path, HTTP_IF_NONE_MATCH=before)
    assert after.status_code == 200
    assert after["ETag"] != before


def test_a_private_test_is_cached_privately(finished: Test) -> None:
    Test.objects.filter(pk=finished.pk).update(visibility=Visibility.OWNER)
    owner = Client()
    owner.force_login(finished.owner)
    response = owner.get(f"/api/v1/tests/{finished.pk}/summary")
    assert response.status_code == 200
    assert response["Cache-Control"] == "private, max-age=60"


@pytest.mark.parametrize("status", ["online", "processing"])
def test_a_test_that_may_change_has_no_validators(finished: Test, status: str) -> None:
    Test.objects.filter(pk=finished.pk).update(status=status)
    for path in _paths(finished):
        response = Client().get(path, HTTP_IF_NONE_MATCH="*")
        assert response.status_code == 200, path
        assert "ETag" not in response
        assert response["Cache-Control"] == "no-cache"


def test_compare_of_finished_tests_and_the_preview_have_validators(finished: Test, settings: Any) -> None:
    settings.CELERY_TASK_ALWAYS_EAGER = True
    other = Test.objects.create(owner=finished.owner, name="other", status="ready", has_stream=True)
    insert_seconds(other.pk, 0, 10, fast_ms=25, slow_ms=320, fast=90, slow=10, http_500=1)
    Test.objects.filter(pk=other.pk).update(first_ts=START_TS, last_ts=START_TS + 9)
    for path in (f"/api/v1/compare?tests={finished.pk},{other.pk}", f"/preview/{finished.pk}.png"):
        first = Client().get(path)
        assert first.status_code == 200, (path, first.content[:200])
        assert first["Cache-Control"] == "public, max-age=60"
        assert Client().get(path, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304


def test_anonymous_readers_share_answers_until_the_test_changes(finished: Test, monkeypatch: Any) -> None:
    from backend.reports import cache, service

    calls: list[str] = []
    real_summary = service.summary

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append("summary")
        return real_summary(*args, **kwargs)

    monkeypatch.setattr(service, "summary", counted)
    cache.rendered.clear()
    path = f"/api/v1/tests/{finished.pk}/summary?q=50"  # not the default view: never in Redis, computed each time
    first = Client().get(path)
    for _ in range(5):
        again = Client().get(path)
        assert again.status_code == 200 and again.content == first.content and again["ETag"] == first["ETag"]
    assert calls == ["summary"], calls  # computed once, then served from the copy
    # Made private: the next anonymous request is a 404 like a missing test, not the copy.
    Test.objects.filter(pk=finished.pk).update(visibility=Visibility.OWNER)
    assert Client().get(path).status_code == 404
    Test.objects.filter(pk=finished.pk).update(visibility=Visibility.PUBLIC)
    # A new upload: a new version, computed anew.
    upload = Upload.objects.create(test=finished, status="ready")
    Test.objects.filter(pk=finished.pk).update(active_upload=upload)
    assert Client().get(path)["ETag"] != first["ETag"]
    assert len(calls) == 2
    # Deleted: gone at once.
    Test.objects.filter(pk=finished.pk).delete()
    assert Client().get(path).status_code == 404
