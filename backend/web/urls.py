"""URLs of the web app (included last from backend/urls.py): the SPA's page paths, with and without a slash,
then the SPA's 404 for any other page path."""

from django.urls import URLPattern, URLResolver, path, re_path

from backend.web import views

urlpatterns: list[URLPattern | URLResolver] = [
    path("", views.test_list, name="web-list"),
    path("<int:test_id>", views.test_report, name="web-report"),
    path("<int:test_id>/", views.test_report),
    re_path(r"^compare/(?P<ids>\d+(?:/\d+)+)/?$", views.compare, name="web-compare"),
    path("component/<str:name>", views.component, name="web-component"),
    path("component/<str:name>/", views.component),
    path("projects/<str:slug>/members", views.project, name="web-project-members"),
    path("projects/<str:slug>/members/", views.project),
    path("projects/<str:slug>/audit", views.project, name="web-project-audit"),
    path("projects/<str:slug>/audit/", views.project),
    path("storage", views.storage, name="web-storage"),
    path("storage/", views.storage),
    # Last: an unknown page path gets the app's own 404 page. API, static and admin paths keep their own 404s
    # (JSON, plain), so a client of the API never receives HTML.
    re_path(r"^(?!api/|static/|admin/|media/)(?P<path>.+)$", views.not_found, name="web-not-found"),
]
