"""URLs of the reports app (included from backend/urls.py): tests CRUD and every report call."""

from django.urls import URLPattern, URLResolver, path

from backend.reports import views

urlpatterns: list[URLPattern | URLResolver] = [
    path("api/v1/tests/", views.TestListCreateView.as_view(), name="tests"),
    path("api/v1/tests/<int:test_id>/", views.TestDetailView.as_view(), name="test-detail"),
    path("api/v1/tests/<int:test_id>/star", views.StarView.as_view(), name="test-star"),
    path("api/v1/tests/<int:test_id>/notes", views.NotesView.as_view(), name="test-notes"),
    path("api/v1/tests/<int:test_id>/notes/<int:note_id>", views.NoteDetailView.as_view(), name="test-note"),
    path("api/v1/tests/<int:test_id>/summary", views.SummaryView.as_view(), name="test-summary"),
    path("api/v1/tests/<int:test_id>/report", views.ReportView.as_view(), name="test-report"),
    path("api/v1/tests/<int:test_id>/charts/<str:name>", views.ChartView.as_view(), name="test-chart"),
    path("api/v1/tests/<int:test_id>/tables", views.TablesView.as_view(), name="test-tables"),
    path("api/v1/tests/<int:test_id>/monitoring", views.MonitoringView.as_view(), name="test-monitoring"),
    path("api/v1/tests/<int:test_id>/config", views.ConfigView.as_view(), name="test-config"),
]
