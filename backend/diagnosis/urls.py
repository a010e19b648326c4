"""URLs of the diagnosis app (included from backend/urls.py)."""

from django.urls import URLPattern, URLResolver, path

from backend.diagnosis import views

urlpatterns: list[URLPattern | URLResolver] = [
    path("api/v1/tests/<int:test_id>/analysis", views.AnalysisView.as_view(), name="test-analysis"),
]
