"""The retention job on aged tests built here: raw samples of old tests go, aggregates of very old ones too; their
reports answer from what is left; baselines (current and past) and starred tests stay whole; the disk usage of the
tables drops by the bytes the deleted rows took."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from analytics.histogram import BIN_EDGES_US
from backend.clickhouse.queries import storage
from backend.clickhouse.tables import monitoring, samples, second_aggregates
from backend.diagnosis import service as diagnosis
from backend.diagnosis.models import AnalysisStatus
from backend.loadtests.models import Test
from backend.projects.models import Project
from backend.regressions.baselines import clear_baseline, set_baseline
from backend.reports.models import TestFigures
from backend.reports.tests.factory import count_rows
from backend.retention import service, tasks
from backend.retention.models import JobStatus, RetentionJob
from backend.retention.policy import policy_for
from backend.testing import make_token_user

TABLES = (samples.NAME, second_aggregates.NAME, monitoring.NAME)


@pytest.fixture
def policy(settings: Any) -> None:
    settings.TANKODROM_RETENTION_RAW_DAYS = 30
    settings.TANKODROM_RETENTION_AGGREGATES_DAYS = 365


def rows_of(test: Test) -> dict[str, int]:
    return {table: count_rows(table, int(test.pk)) for table in TABLES}


def estimated_bytes(tests_tables: list[tuple[Test, str]]) -> float:
    """What the rows of these (test, table) pairs take on disk: their rows times their table's bytes per row."""
    usage = storage.table_usage()
    return sum(count_rows(table, int(t.pk)) * usage[table].bytes_per_row for t, table in tests_tables)


def run_new_job() -> RetentionJob:
    job = tasks.create_job("manual")
    assert job is not None
    assert tasks.run_job(int(job.pk)) == "done"
    job.refresh_from_db()
    return job


def test_old_raw_samples_go_and_reports_answer_from_aggregates(
    aged: Callable[..., Test], policy: None, owner: User, owner_api: APIClient
) -> None:
    old = aged("old", 100, seed=1)
    ancient = aged("ancient", 400, seed=2)
    past_baseline = aged("past baseline", 200, seed=3)
    baseline = aged("baseline", 500, seed=4)
    starred = aged("starred", 120, seed=5, starred=True)
    young = aged("young", 3, seed=6)
    set_baseline(baseline.project_id, "api", past_baseline, owner)
    clear_baseline(baseline.project_id, "api", owner)
    set_baseline(baseline.project_id, "api", baseline, owner)
    kept = {t.pk: rows_of(t) for t in (past_baseline, baseline, starred, young)}
    old_rows = rows_of(old)
    before = owner_api.get(f"/api/v1/tests/{old.pk}/summary").json()
    assert before["exact"] is True
    tables_before = owner_api.get(f"/api/v1/tests/{old.pk}/tables").json()
    expected = estimated_bytes([(old, samples.NAME)] + [(ancient, table) for table in TABLES])
    bytes_before = service.stored_bytes()

    job = run_new_job()

    assert job.status == JobStatus.DONE and job.active is False
    assert (job.tests_total, job.tests_done, job.raw_expired, job.aggregates_expired) == (2, 2, 2, 1)
    # Raw samples of the old test are gone, its per-second rows and monitoring stay; the ancient test keeps no rows.
    assert rows_of(old) == {**old_rows, samples.NAME: 0}
    assert rows_of(ancient) == dict.fromkeys(TABLES, 0)
    for test_id, rows in kept.items():
        assert rows_of(Test.objects.get(pk=test_id)) == rows
    # The disk usage dropped by what the deleted rows took (estimated by rows, as the storage page does).
    freed = bytes_before - service.stored_bytes()
    assert freed == pytest.approx(expected, rel=0.15)
    assert job.bytes_before is not None and job.bytes_after is not None
    assert job.bytes_before - job.bytes_after == freed
    old.refresh_from_db()
    ancient.refresh_from_db()
    assert old.raw_expired_at is not None and old.aggregates_expired_at is None
    assert ancient.raw_expired_at is not None and ancient.aggregates_expired_at is not None
    for test in (past_baseline, baseline, starred, young):
        test.refresh_from_db()
        assert test.raw_expired_at is None and test.aggregates_expired_at is None

    # The old test's report answers from the per-second histograms, and says so.
    detail = owner_api.get(f"/api/v1/tests/{old.pk}/").json()
    assert detail["raw_expired_at"] is not None and detail["aggregates_expired_at"] is None
    after = owner_api.get(f"/api/v1/tests/{old.pk}/summary").json()
    assert after["exact"] is False
    assert after["count"] == before["count"] and after["http_codes"] == before["http_codes"]
    for level in ("50", "95", "99"):
        # Within the tank grid's bin around the exact value.
        exact_us = before["quantiles_ms"][level] * 1000
        width = max(e for e in BIN_EDGES_US if e <= exact_us * 1.5) - min(
            e for e in BIN_EDGES_US if e >= exact_us / 1.5
        )
        assert abs(after["quantiles_ms"][level] * 1000 - exact_us) <= width
    tables = owner_api.get(f"/api/v1/tests/{old.pk}/tables")
    assert tables.status_code == 200 and tables.json()["exact"] is False
    assert [r["count"] for r in tables.json()["cases"]] == [r["count"] for r in tables_before["cases"]]
    report = owner_api.get(f"/api/v1/tests/{old.pk}/report")
    assert report.status_code == 200 and report.json()["exact"] is False
    for chart in ("quantiles", "times", "distribution"):
        assert owner_api.get(f"/api/v1/tests/{old.pk}/charts/{chart}").status_code == 200
    compare = owner_api.get(f"/api/v1/compare?tests={old.pk},{young.pk}")
    assert compare.status_code == 200, compare.content
    assert compare.json()["exact"] == [False, True]
    assert diagnosis.run(old).status == AnalysisStatus.READY

    # The ancient test: its row, figures, and an empty but whole report.
    assert TestFigures.objects.get(test=ancient).responses == 30_000
    for path in ("", "summary", "report", "tables", "monitoring", "charts/quantiles"):
        answer = owner_api.get(f"/api/v1/tests/{ancient.pk}/{path}")
        assert answer.status_code == 200, (path, answer.content)
    assert owner_api.get(f"/api/v1/tests/{ancient.pk}/summary").json()["count"] == 0


def test_job_resumes_a_step_and_runs_twice_safely(aged: Callable[..., Test], policy: None, settings: Any) -> None:
    settings.TANKODROM_RETENTION_BATCH = 1
    first, second = aged("a", 40, seed=7, n=2000), aged("b", 50, seed=8, n=2000)
    job = tasks.create_job("schedule")
    assert job is not None
    assert tasks.create_job("schedule") is None  # one active job at a time
    service.start(job, job.created_at)
    assert job.tests_total == 2
    assert service.begin_step(job)  # a worker marks a batch of one test, then dies before deleting
    (marked_id,) = job.step_test_ids
    marked = Test.objects.get(pk=marked_id)
    assert marked.raw_expired_at is not None and count_rows(samples.NAME, marked_id) == 2000

    assert tasks.run_job(int(job.pk)) == "done"  # the job goes on where it stopped
    job.refresh_from_db()
    assert (job.tests_done, job.raw_expired, job.step_test_ids) == (2, 2, [])
    assert count_rows(samples.NAME, int(first.pk)) == count_rows(samples.NAME, int(second.pk)) == 0
    assert tasks.run_job(int(job.pk)) == "not active"
    again = run_new_job()
    assert (again.tests_total, again.tests_done) == (0, 0)


def test_a_failed_jobs_step_is_taken_over(aged: Callable[..., Test], policy: None) -> None:
    test = aged("a", 40, seed=9, n=2000)
    failed = tasks.create_job("schedule")
    assert failed is not None
    service.start(failed, failed.created_at)
    assert service.begin_step(failed)
    service.fail(failed, "RuntimeError: lost")
    assert count_rows(samples.NAME, int(test.pk)) == 2000
    job = run_new_job()
    assert job.tests_done == 1 and count_rows(samples.NAME, int(test.pk)) == 0
    failed.refresh_from_db()
    assert failed.step_test_ids == []


def test_nothing_expires_without_a_policy(aged: Callable[..., Test]) -> None:
    test = aged("a", 4000, seed=10, n=1000)
    job = run_new_job()
    assert job.tests_total == 0 and count_rows(samples.NAME, int(test.pk)) == 1000


def test_jobs_api(aged: Callable[..., Test], policy: None, owner_api: APIClient) -> None:
    aged("a", 40, seed=11, n=1000)
    staff = make_token_user("admin", staff=True)
    assert owner_api.post("/api/v1/retention/jobs").status_code == 403
    assert APIClient().get("/api/v1/retention/jobs").status_code == 401
    started = staff.client().post("/api/v1/retention/jobs")
    assert started.status_code == 202, started.content
    job_id = started.json()["id"]
    assert started.json()["status"] == "queued" and started.json()["started_by"] == "admin"
    busy = staff.client().post("/api/v1/retention/jobs")
    assert busy.status_code == 409 and str(job_id) in busy.json()["error"]
    tasks.run_job(job_id)
    listed = owner_api.get("/api/v1/retention/jobs").json()
    assert listed["policy"] == {"raw_days": 30, "aggregates_days": 365}
    (job,) = listed["jobs"]
    assert (job["id"], job["status"], job["progress"], job["tests_done"]) == (job_id, "done", 1.0, 1)
    assert job["bytes_freed"] > 0
    assert owner_api.get(f"/api/v1/retention/jobs/{job_id}").json()["tests_total"] == 1
    assert owner_api.get("/api/v1/retention/jobs/999999").status_code == 404


def test_a_projects_own_raw_days_override_the_sites(aged: Callable[..., Test], policy: None) -> None:
    short = Project.objects.create(slug="short", name="Short", retention_raw_days=10)
    mine = aged("short-lived", 20, seed=12, n=1000, project=short)
    other = aged("site default", 20, seed=13, n=1000)  # the default project: the site's 30 days
    assert policy_for(mine).raw_days == 10 and policy_for(other).raw_days == 30
    job = run_new_job()
    assert job.tests_total == 1
    assert count_rows(samples.NAME, int(mine.pk)) == 0 and count_rows(second_aggregates.NAME, int(mine.pk)) > 0
    assert rows_of(other)[samples.NAME] == 1000
    mine.refresh_from_db()
    other.refresh_from_db()
    assert mine.raw_expired_at is not None and other.raw_expired_at is None
    # 0 in a project keeps its tests although the site's days have passed
    Project.objects.filter(slug="short").update(retention_raw_days=0, retention_aggregates_days=0)
    kept = aged("kept", 400, seed=14, n=1000, project=short)
    run_new_job()
    assert rows_of(kept)[samples.NAME] == 1000 and rows_of(kept)[second_aggregates.NAME] > 0
