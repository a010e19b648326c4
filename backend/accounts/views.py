"""Server-rendered account pages: log in, log out, and `/tokens` (create, name, list, revoke API tokens).

They work without the SPA and without JavaScript: plain forms, CSRF-protected, each write answered by a redirect
(post/redirect/get) except token creation, whose answer is the only page that ever shows the new token.
"""

from __future__ import annotations

from typing import Any, cast

from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from analytics.numbers import is_digits
from backend.accounts.sso import oidc
from backend.accounts.sso.views import ID_TOKEN_KEY, sign_on_context
from backend.accounts.throttling import login_allowed, page_write_allowed
from backend.loadtests.models import ApiToken
from backend.loadtests.tokens import create_token, rename_token, revoke_token

TOKEN_NAME_MAX = 128


class LoginView(auth_views.LoginView):
    template_name = "accounts/login.html"
    redirect_authenticated_user = True

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        return {**super().get_context_data(**kwargs), **sign_on_context()}

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not sign_on_context()["password_form"]:
            # Local accounts are off and there is no directory: no password is checked here at all.
            form = self.get_form_class()(request)
            context = self.get_context_data(form=form, sso_error="Password login is turned off on this server.")
            return self.render_to_response(context, status=403)
        if not login_allowed(request, str(request.POST.get("username", ""))):
            # An unbound form: validating the posted one would try the password, which is what we refuse.
            form = self.get_form_class()(request)
            context = self.get_context_data(form=form, throttled=True)
            return self.render_to_response(context, status=429)
        return super().post(request, *args, **kwargs)


class LogoutView(auth_views.LogoutView):
    template_name = "accounts/logged_out.html"

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        id_token = request.session.get(ID_TOKEN_KEY)
        response = super().post(request, *args, **kwargs)
        cfg = oidc.config()
        if id_token and cfg is not None:
            # Signed in through the OpenID provider: end the session there too, or the next "Sign in with" would
            # let the browser straight back in without asking.
            provider_logout = oidc.logout_url(cfg, str(id_token))
            if provider_logout:
                return render(request, self.template_name, {"provider_logout_url": provider_logout})
        return response


def _tokens_page(request: HttpRequest, *, status: int = 200, **extra: Any) -> HttpResponse:
    tokens = ApiToken.objects.filter(user=cast(User, request.user)).order_by("revoked_at", "-id")
    return render(request, "accounts/tokens.html", {"tokens": tokens, **extra}, status=status)


@never_cache  # the answer to a create holds a token in clear: no browser or proxy may keep a copy
@login_required
@require_http_methods(["GET", "POST"])
def tokens_page(request: HttpRequest) -> HttpResponse:
    if request.method == "GET":
        return _tokens_page(request)
    user = cast(User, request.user)  # login_required let only users through
    if not page_write_allowed(user.pk):
        return _tokens_page(request, status=429, error="Too many changes in a short time; wait a minute.")
    action = request.POST.get("action", "")
    name = str(request.POST.get("name", "")).strip()
    if len(name) > TOKEN_NAME_MAX:
        return _tokens_page(request, status=400, error=f"A token name has at most {TOKEN_NAME_MAX} characters.")
    if action == "create":
        token, raw = create_token(user, name=name)
        return _tokens_page(request, status=201, new_token=raw, new_token_row=token)
    if action in {"rename", "revoke"}:
        token_id = str(request.POST.get("token_id", ""))
        found = ApiToken.objects.filter(pk=int(token_id), user=user).first() if is_digits(token_id) else None
        if found is None:
            return _tokens_page(request, status=404, error="No such token among yours.")
        if action == "rename":
            rename_token(found, name)
        else:
            revoke_token(found)
        return HttpResponseRedirect(request.path)
    return _tokens_page(request, status=400, error=f"Unknown action {action!r}.")
