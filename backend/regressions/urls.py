"""URLs of the regressions app (included from backend/urls.py). The check lives at the diagnosis app's
`components/<name>/check/<id>`, which judges by baselines and thresholds through `regressions.service.check`."""

from django.urls import URLPattern, URLResolver, path

from backend.regressions import views

urlpatterns: list[URLPattern | URLResolver] = [
    path("api/v1/components/<str:name>/dashboard", views.DashboardView.as_view(), name="component-dashboard"),
    path("api/v1/components/<str:name>/kpis", views.KpisView.as_view(), name="component-kpis"),
    path("api/v1/components/<str:name>/baseline", views.BaselineView.as_view(), name="component-baseline"),
]
