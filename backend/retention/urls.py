from django.urls import URLPattern, URLResolver, path

from backend.retention import archive_views, views

urlpatterns: list[URLPattern | URLResolver] = [
    path("api/v1/retention/jobs", views.JobsView.as_view(), name="retention-jobs"),
    path("api/v1/retention/jobs/<int:job_id>", views.JobView.as_view(), name="retention-job"),
    path("api/v1/projects/<slug:slug>/retention", views.ProjectRetentionView.as_view(), name="project-retention"),
    path("api/v1/storage", views.StorageView.as_view(), name="storage"),
    path("api/v1/tests/<int:test_id>/storage", views.TestStorageView.as_view(), name="test-storage"),
    path("api/v1/tests/<int:test_id>/archive", archive_views.TestArchiveView.as_view(), name="test-archive"),
    path("api/v1/archives", archive_views.ArchivesView.as_view(), name="archives"),
    path("api/v1/tests/<int:test_id>/monitoring-log", archive_views.MonitoringLogView.as_view(), name="monitoring-log"),
]
