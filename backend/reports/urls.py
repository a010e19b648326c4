"""URLs of the reports app (included from backend/urls.py): tests CRUD and every report call."""

from django.urls import URLPattern, URLResolver

from backend.core.routes import api_routes
from backend.reports import views

urlpatterns: list[URLPattern | URLResolver] = [
    *api_routes("tests/", ("", views.TestListCreateView, "tests")),
    *api_routes(
        "tests/<int:test_id>/",
        ("", views.TestDetailView, "test-detail"),
        ("star", views.StarView, "test-star"),
        ("notes", views.NotesView, "test-notes"),
        ("notes/<int:note_id>", views.NoteDetailView, "test-note"),
        ("summary", views.SummaryView, "test-summary"),
        ("report", views.ReportView, "test-report"),
        ("charts/<str:name>", views.ChartView, "test-chart"),
        ("tables", views.TablesView, "test-tables"),
        ("monitoring", views.MonitoringView, "test-monitoring"),
        ("config", views.ConfigView, "test-config"),
    ),
]
