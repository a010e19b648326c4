"""Sign-on URLs (included from backend/accounts/urls.py)."""

from django.urls import URLPattern, path

from backend.accounts.sso import oidc, views

urlpatterns: list[URLPattern] = [
    path(oidc.CALLBACK_PATH.lstrip("/"), views.oidc_callback, name="oidc-callback"),
    path("sso/oidc/login", views.oidc_login, name="oidc-login"),
    path(oidc.LOGGED_OUT_PATH.lstrip("/"), views.logged_out, name="sso-logged-out"),
]
