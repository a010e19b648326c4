"""Sign-on pages: the OpenID Connect redirect and callback, and the page the provider sends a browser back to after
logging out there. Thin: the protocol is in oidc.py, accounts in identity.py, roles in group_roles.py."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.contrib.auth import login
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from backend.accounts.sso import oidc
from backend.accounts.sso.backends import SIGN_ON_SESSION_BACKEND, local_login_enabled
from backend.accounts.sso.identity import user_for
from backend.accounts.sso.ldap import ldap_enabled, ldap_label
from backend.accounts.sso.roles import apply_group_roles

log = logging.getLogger(__name__)

NEXT_KEY = "sso_next"
ID_TOKEN_KEY = "oidc_id_token"


def safe_next(value: str | None) -> str:
    """A path on this site to go to after signing in; anything else (another host, a scheme) goes to the start page."""
    if value and value.startswith("/") and not value.startswith("//") and "\\" not in value:
        return value
    return str(settings.LOGIN_REDIRECT_URL)


def sign_on_context() -> dict[str, Any]:
    """What the login page offers: provider buttons, and whether (and for what) the password form is there."""
    cfg = oidc.config()
    return {
        "oidc_label": cfg.label if cfg else "",
        "password_form": local_login_enabled() or ldap_enabled(),
        "ldap_label": ldap_label() if ldap_enabled() else "",
    }


def login_page(request: HttpRequest, *, error: str, status: int) -> HttpResponse:
    context = {"sso_error": error, "next": request.session.get(NEXT_KEY, ""), **sign_on_context()}
    return render(request, "accounts/login.html", context, status=status)


def _oidc_config() -> oidc.OidcConfig:
    """The provider's settings; where none are set the sign-on pages do not exist (404)."""
    cfg = oidc.config()
    if cfg is None:
        raise Http404("OpenID Connect sign-on is not configured")
    return cfg


@never_cache
@require_GET
def oidc_login(request: HttpRequest) -> HttpResponse:
    cfg = _oidc_config()
    request.session[NEXT_KEY] = safe_next(request.GET.get("next"))
    try:
        return oidc.start(request, cfg)
    except oidc.SignOnFailed as exc:
        return login_page(request, error=str(exc), status=502)


@never_cache
@require_GET
def oidc_callback(request: HttpRequest) -> HttpResponse:
    cfg = _oidc_config()
    try:
        signed = oidc.finish(request, cfg)
    except oidc.SignOnFailed as exc:
        log.info("OpenID Connect sign-on refused: %s", exc)
        return login_page(request, error=str(exc), status=400)
    user = user_for(signed.identity)
    if not user.is_active:
        return login_page(request, error="This account is deactivated here; ask an administrator.", status=403)
    if signed.groups is not None:
        apply_group_roles(user, signed.groups, via="oidc")
    else:
        log.warning("no %r claim from the provider for %s: project roles left as they are", cfg.groups_claim, user)
    next_url = safe_next(request.session.pop(NEXT_KEY, None))
    login(request, user, backend=SIGN_ON_SESSION_BACKEND)
    request.session[ID_TOKEN_KEY] = signed.id_token  # for logging out at the provider too
    return HttpResponseRedirect(next_url)


@require_GET
def logged_out(request: HttpRequest) -> HttpResponse:
    return render(request, "accounts/logged_out.html")
