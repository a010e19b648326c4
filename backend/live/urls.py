from django.urls import URLPattern, path

from backend.live.views import LiveListView, LiveView

urlpatterns: list[URLPattern] = [
    path("api/v1/tests/<int:test_id>/live", LiveView.as_view(), name="test-live"),
    path("api/v1/live", LiveListView.as_view(), name="live"),
]
