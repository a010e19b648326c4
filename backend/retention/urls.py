from django.urls import URLPattern, URLResolver

from backend.core.routes import api_routes
from backend.retention import archive_views, views

urlpatterns: list[URLPattern | URLResolver] = [
    *api_routes(
        "retention/", ("jobs", views.JobsView, "retention-jobs"), ("jobs/<int:job_id>", views.JobView, "retention-job")
    ),
    *api_routes("projects/<slug:slug>/", ("retention", views.ProjectRetentionView, "project-retention")),
    *api_routes("", ("storage", views.StorageView, "storage"), ("archives", archive_views.ArchivesView, "archives")),
    *api_routes(
        "tests/<int:test_id>/",
        ("storage", views.TestStorageView, "test-storage"),
        ("archive", archive_views.TestArchiveView, "test-archive"),
        ("monitoring-log", archive_views.MonitoringLogView, "monitoring-log"),
    ),
]
