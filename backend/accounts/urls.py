"""URLs of the accounts app (included from backend/urls.py): the pages and the `/api/v1/` token API."""

from django.urls import URLPattern, URLResolver, include, path

from backend.accounts import api, views

urlpatterns: list[URLPattern | URLResolver] = [
    path("login", views.LoginView.as_view(), name="login"),
    path("logout", views.LogoutView.as_view(), name="logout"),
    path("tokens", views.tokens_page, name="tokens"),
    path("", include("backend.accounts.sso.urls")),
    path("api/v1/me", api.MeView.as_view(), name="api-me"),
    path("api/v1/tokens/", api.TokenListView.as_view(), name="api-tokens"),
    path("api/v1/tokens/<int:pk>/", api.TokenDetailView.as_view(), name="api-token-detail"),
]
