"""OpenID Connect sign-on through Authlib's Django client: discovery, PKCE (S256), state and nonce, the ID token's
signature and claims, the userinfo endpoint, and RP-initiated logout at the provider's end_session_endpoint.

Authlib keeps the state, nonce and PKCE verifier of each sign-on in the Django session and checks them at the
callback; the ID token's issuer must be the configured one (discovery documents naming another issuer are refused,
as are callbacks whose RFC 9207 `iss` names another). The redirect URIs come from TANKODROM_PUBLIC_URL, never from
the request's Host header.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import requests
from authlib.common.errors import AuthlibBaseError
from authlib.integrations.django_client import DjangoOAuth2App, OAuth
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from joserfc.errors import JoseError

from backend.accounts.sso.identity import Identity

CALLBACK_PATH = "/sso/oidc/callback"
LOGGED_OUT_PATH = "/sso/logged-out"
METADATA_MAX_AGE_S = 3600  # keys and endpoints are read again after this long (providers rotate signing keys)
HTTP_TIMEOUT_S = 10


class SignOnFailed(Exception):
    """A sign-on that did not complete; the message is for the person signing in."""


@dataclass(frozen=True)
class OidcConfig:
    issuer: str
    client_id: str
    client_secret: str
    scopes: str
    groups_claim: str
    username_claim: str
    label: str


def config() -> OidcConfig | None:
    """The provider configured in TANKODROM_OIDC_*, or None when OpenID Connect is off (no issuer)."""
    raw: dict[str, str] = settings.TANKODROM_OIDC
    if not raw.get("issuer"):
        return None
    return OidcConfig(
        issuer=raw["issuer"].rstrip("/"),
        client_id=raw["client_id"],
        client_secret=raw["client_secret"],
        scopes=raw["scopes"],
        groups_claim=raw["groups_claim"],
        username_claim=raw["username_claim"],
        label=raw["label"],
    )


_clients: dict[OidcConfig, tuple[float, DjangoOAuth2App]] = {}


def _client(cfg: OidcConfig) -> DjangoOAuth2App:
    """One Authlib client per configuration, its discovery document and keys kept for METADATA_MAX_AGE_S."""
    cached = _clients.get(cfg)
    if cached is not None and time.monotonic() - cached[0] < METADATA_MAX_AGE_S:
        return cached[1]
    client: DjangoOAuth2App = OAuth().register(
        name="tankodrom",
        client_id=cfg.client_id,
        client_secret=cfg.client_secret,
        server_metadata_url=f"{cfg.issuer}/.well-known/openid-configuration",
        client_kwargs={"scope": cfg.scopes, "code_challenge_method": "S256", "default_timeout": HTTP_TIMEOUT_S},
    )
    try:
        metadata = client.load_server_metadata()
    except (requests.RequestException, ValueError) as exc:
        raise SignOnFailed(f"The sign-on provider at {cfg.issuer} does not answer ({type(exc).__name__}).") from exc
    if str(metadata.get("issuer", "")).rstrip("/") != cfg.issuer:
        raise SignOnFailed(f"The provider's discovery document names another issuer than {cfg.issuer}.")
    _clients[cfg] = (time.monotonic(), client)
    return client


def callback_url() -> str:
    return f"{settings.PUBLIC_URL}{CALLBACK_PATH}"


def start(request: HttpRequest, cfg: OidcConfig) -> HttpResponse:
    """The redirect to the provider's authorization endpoint, its state, nonce and PKCE verifier kept in the session."""
    response: HttpResponse = _client(cfg).authorize_redirect(request, callback_url())
    return response


@dataclass(frozen=True)
class SignOn:
    identity: Identity
    # None when the answers hold no groups claim at all (the scope not granted, Entra ID's "overage" for people in
    # over 200 groups): then the person's project roles are left as they are rather than all taken away.
    groups: tuple[str, ...] | None
    id_token: str


def _groups(value: Any) -> tuple[str, ...]:
    """The groups claim: a list of names or ids (Keycloak, Entra ID), or one string."""
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list | tuple):
        return tuple(str(item) for item in value if isinstance(item, str | int))
    return ()


def finish(request: HttpRequest, cfg: OidcConfig) -> SignOn:
    """Checks the provider's answer at the callback and returns who signed in. Raises SignOnFailed."""
    error = request.GET.get("error")
    if error:
        detail = request.GET.get("error_description") or error
        raise SignOnFailed(f"The provider refused the sign-on: {detail}")
    client = _client(cfg)
    iss = request.GET.get("iss")
    if iss is not None and iss.rstrip("/") != cfg.issuer:
        raise SignOnFailed("The answer comes from another issuer than the configured one.")
    try:
        token = client.authorize_access_token(request)
        claims: dict[str, Any] = dict(token.get("userinfo") or {})
        if not claims.get("sub"):
            raise SignOnFailed("The provider sent no ID token.")
        if client.load_server_metadata().get("userinfo_endpoint"):
            # Providers that conform to the spec keep profile and group claims out of the ID token when an access
            # token lets the client ask for them; the userinfo answer must be about the same subject.
            userinfo = dict(client.userinfo(token=token))
            if userinfo.get("sub") != claims["sub"]:
                raise SignOnFailed("The provider's userinfo is about another subject than its ID token.")
            claims = {**userinfo, **claims}
    except AuthlibBaseError as exc:
        raise SignOnFailed(f"The sign-on could not be checked: {exc.description or exc.error}") from exc
    except JoseError as exc:
        raise SignOnFailed(f"The provider's ID token is not valid: {exc.description or exc.error}") from exc
    except requests.RequestException as exc:
        raise SignOnFailed(f"The sign-on provider does not answer ({type(exc).__name__}).") from exc
    username = str(claims.get(cfg.username_claim) or claims.get("preferred_username") or claims.get("email") or "")
    identity = Identity(
        issuer=cfg.issuer,
        subject=str(claims["sub"]),
        username=username.split("@")[0] if "@" in username else username,
        email=str(claims.get("email") or ""),
        first_name=str(claims.get("given_name") or ""),
        last_name=str(claims.get("family_name") or ""),
    )
    groups = _groups(claims[cfg.groups_claim]) if cfg.groups_claim in claims else None
    return SignOn(identity=identity, groups=groups, id_token=str(token["id_token"]))


def logout_url(cfg: OidcConfig, id_token: str) -> str | None:
    """Where to send the browser to end its session at the provider too (RP-initiated logout), if it has such an
    endpoint; the provider sends it back to /sso/logged-out."""
    try:
        endpoint = _client(cfg).load_server_metadata().get("end_session_endpoint")
    except SignOnFailed:
        return None
    if not endpoint:
        return None
    query = urlencode(
        {
            "id_token_hint": id_token,
            "post_logout_redirect_uri": f"{settings.PUBLIC_URL}{LOGGED_OUT_PATH}",
            "client_id": cfg.client_id,
        }
    )
    return f"{endpoint}{'&' if '?' in endpoint else '?'}{query}"
