"""URLs of the notifications app (included from backend/urls.py)."""

from django.urls import URLPattern, URLResolver, path

from backend.notify import views

urlpatterns: list[URLPattern | URLResolver] = [
    path("api/v1/notify/targets/", views.TargetsView.as_view(), name="notify-targets"),
    path("api/v1/notify/targets/<int:target_id>/", views.TargetDetailView.as_view(), name="notify-target"),
    path(
        "api/v1/components/<str:name>/subscriptions/", views.SubscriptionsView.as_view(), name="component-subscriptions"
    ),
    path(
        "api/v1/components/<str:name>/subscriptions/<int:sub_id>/",
        views.SubscriptionDetailView.as_view(),
        name="component-subscription",
    ),
    path("api/v1/components/<str:name>/deliveries/", views.DeliveriesView.as_view(), name="component-deliveries"),
]
