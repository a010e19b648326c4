"""`manage.py diagnose` brings stored analyses up to date; the admin lists them."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command

from backend.diagnosis.models import ENGINE_VERSION, AnalysisStatus, TestAnalysis
from backend.diagnosis.tests.rows import insert_rows
from backend.diagnosis.tests.test_api import const_rows, new_test
from backend.loadtests.models import TestStatus


@pytest.mark.django_db
def test_stale_analyses_are_recomputed(owner: User, clickhouse: None) -> None:
    old = new_test(owner, component="api", loadscheme=["const(200, 5m)"])
    fresh = new_test(owner, component="api", loadscheme=["const(200, 5m)"])
    running = new_test(owner, component="api", status=TestStatus.ONLINE)
    other = new_test(owner, component="web", loadscheme=["const(200, 5m)"])
    for test in (old, fresh, other):
        insert_rows(const_rows(test.pk))
    TestAnalysis.objects.create(test=old, status=AnalysisStatus.READY, engine_version=ENGINE_VERSION - 1)
    call_command("diagnose", str(fresh.pk), stdout=StringIO())
    fresh_at = TestAnalysis.objects.get(test=fresh).computed_at

    out = StringIO()
    call_command("diagnose", stdout=out, component="api", stale=True)
    assert "diagnosed 1 test(s)" in out.getvalue()  # only the old one: fresh is current, running is skipped
    assert TestAnalysis.objects.get(test=old).engine_version == ENGINE_VERSION
    assert TestAnalysis.objects.get(test=fresh).computed_at == fresh_at
    assert not TestAnalysis.objects.filter(test__in=[running, other]).exists()


@pytest.mark.django_db
def test_admin_lists_analyses(owner: User) -> None:
    from django.test import Client

    staff = User.objects.create_superuser("admin9", password="x" * 12)
    test = new_test(owner, component="api")
    TestAnalysis.objects.create(test=test, status=AnalysisStatus.FAILED, error="boom")
    browser = Client()
    browser.force_login(staff)
    page = browser.get("/admin/diagnosis/testanalysis/?status__exact=failed")
    assert page.status_code == 200
    assert f"analysis of test {test.pk} (failed)" in page.content.decode()
