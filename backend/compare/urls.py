"""URLs of the compare app (included from backend/urls.py)."""

from django.urls import URLPattern, URLResolver, path

from backend.compare.views import CompareView

urlpatterns: list[URLPattern | URLResolver] = [
    path("api/v1/compare", CompareView.as_view(), name="compare"),
]
