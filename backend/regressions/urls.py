"""URLs of the regressions app (included from backend/urls.py): the component routes. A component's notification
subscriptions and deliveries are the notify app's (backend/notify/urls.py), which sits above this one."""

from django.urls import URLPattern, URLResolver, path

from backend.regressions import views

urlpatterns: list[URLPattern | URLResolver] = [
    path("api/v1/components/<str:name>/dashboard", views.DashboardView.as_view(), name="component-dashboard"),
    path("api/v1/components/<str:name>/kpis", views.KpisView.as_view(), name="component-kpis"),
    path("api/v1/components/<str:name>/baseline", views.BaselineView.as_view(), name="component-baseline"),
    path("api/v1/components/<str:name>/trend", views.TrendView.as_view(), name="component-trend"),
    path("api/v1/components/<str:name>/check/<int:test_id>", views.CheckView.as_view(), name="component-check"),
]
