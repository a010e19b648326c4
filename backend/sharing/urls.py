"""URLs of the sharing app (included from backend/urls.py, before the SPA's catch-all): the preview pictures."""

from django.urls import URLPattern, URLResolver, path, re_path

from backend.sharing import views

urlpatterns: list[URLPattern | URLResolver] = [
    path("preview/<int:test_id>.png", views.test_preview, name="sharing-preview-test"),
    # Up to 10 tests, as the compare page allows several; more would make an unreadable picture.
    re_path(r"^preview/compare/(?P<ids>\d+(?:/\d+){1,9})\.png$", views.compare_preview, name="sharing-preview-compare"),
]
