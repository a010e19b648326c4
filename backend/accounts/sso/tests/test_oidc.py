"""OpenID Connect sign-on against a real provider (panva's oidc-provider under node, started by the tests): its own
login and consent pages, PKCE, the ID token and userinfo, accounts linked by issuer + sub, RP-initiated logout."""

from __future__ import annotations

import re
from html import unescape
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client

from backend.accounts.models import SignOnIdentity
from backend.accounts.sso import oidc
from backend.accounts.sso.tests.servers import Provider, SignInRefused, path_of


def sign_in(client: Client, provider: Provider, login: str, password: str, browser: Any = None) -> Any:
    """The whole round trip as a browser makes it; returns Tankodrom's answer to the callback."""
    start = client.get("/sso/oidc/login")
    assert start.status_code == 302, start.content
    callback = provider.sign_in(
        start["Location"], login, password, f"{settings.PUBLIC_URL}{oidc.CALLBACK_PATH}", browser=browser
    )
    return client.get(path_of(callback))


def me(client: Client) -> dict[str, Any]:
    answer: dict[str, Any] = client.get("/api/v1/me").json()
    return answer


def test_login_page_offers_the_provider(oidc_on: Provider, client: Client) -> None:
    page = client.get("/login").content.decode()
    assert "Sign in with Dev provider" in page
    assert 'name="password"' in page  # local accounts stay on unless turned off


def test_no_button_and_no_route_without_an_issuer(client: Client, db: None) -> None:
    assert "Sign in with" not in client.get("/login").content.decode()
    assert client.get("/sso/oidc/login").status_code == 404


def test_sign_in_makes_an_account_linked_by_issuer_and_sub(oidc_on: Provider, client: Client, unique: str) -> None:
    oidc_on.set_account(
        f"ann{unique}", sub=f"sub-{unique}", password="pw-1", email=f"ann{unique}@example.org", name="Ann", groups=[]
    )
    start = client.get("/sso/oidc/login?next=/compare")
    query = parse_qs(urlsplit(start["Location"]).query)
    # PKCE with S256, a state and a nonce on every authorization request
    assert query["code_challenge_method"] == ["S256"] and len(query["code_challenge"][0]) >= 43
    assert query["state"][0] and query["nonce"][0]
    assert query["redirect_uri"] == [f"{settings.PUBLIC_URL}/sso/oidc/callback"]

    callback = oidc_on.sign_in(start["Location"], f"ann{unique}", "pw-1", f"{settings.PUBLIC_URL}/sso/oidc/callback")
    answer = client.get(path_of(callback))
    assert answer.status_code == 302 and answer["Location"] == "/compare"
    assert me(client) == {"authenticated": True, "username": f"ann{unique}", "is_staff": False}
    user = User.objects.get(username=f"ann{unique}")
    assert user.email == f"ann{unique}@example.org" and not user.has_usable_password()
    identity = SignOnIdentity.objects.get(user=user)
    assert (identity.issuer, identity.subject) == (oidc_on.issuer, f"sub-{unique}")

    # The provider renames the person and changes the e-mail: the same account, by sub, updated.
    oidc_on.set_account(f"ann{unique}", password="pw-1", email=f"ann.new{unique}@example.org")
    other = Client()
    assert sign_in(other, oidc_on, f"ann{unique}", "pw-1").status_code == 302
    assert me(other)["username"] == f"ann{unique}"
    user.refresh_from_db()
    assert user.email == f"ann.new{unique}@example.org"
    assert User.objects.filter(sign_on_identities__issuer=oidc_on.issuer, email__contains=unique).count() == 1


def test_a_provider_user_never_becomes_the_local_user_of_the_same_name(
    oidc_on: Provider, client: Client, unique: str
) -> None:
    local = User.objects.create_user(f"boss{unique}", password="local-pw", is_staff=True)
    oidc_on.set_account(f"boss{unique}", sub=f"sub-boss-{unique}", password="pw", email="x@example.org", name="B")
    assert sign_in(client, oidc_on, f"boss{unique}", "pw").status_code == 302
    signed = me(client)
    assert signed["username"] == f"boss{unique}-2" and signed["is_staff"] is False
    assert not SignOnIdentity.objects.filter(user=local).exists()


def test_a_user_disabled_at_the_provider_cannot_sign_in_again(oidc_on: Provider, client: Client, unique: str) -> None:
    oidc_on.set_account(f"cat{unique}", sub=f"sub-cat-{unique}", password="pw", email="c@example.org", name="C")
    assert sign_in(client, oidc_on, f"cat{unique}", "pw").status_code == 302
    oidc_on.set_account(f"cat{unique}", disabled=True)
    fresh = Client()
    start = fresh.get("/sso/oidc/login")
    with pytest.raises(SignInRefused) as refused:
        oidc_on.sign_in(start["Location"], f"cat{unique}", "pw", f"{settings.PUBLIC_URL}/sso/oidc/callback")
    assert refused.value.status == 401 and "disabled" in refused.value.text
    assert me(fresh)["authenticated"] is False


def test_a_deactivated_account_here_is_refused(oidc_on: Provider, client: Client, unique: str) -> None:
    oidc_on.set_account(f"dan{unique}", sub=f"sub-dan-{unique}", password="pw", email="d@example.org", name="D")
    assert sign_in(client, oidc_on, f"dan{unique}", "pw").status_code == 302
    User.objects.filter(username=f"dan{unique}").update(is_active=False)
    assert me(client)["authenticated"] is False  # the open session ends at once
    fresh = Client()
    answer = sign_in(fresh, oidc_on, f"dan{unique}", "pw")
    assert answer.status_code == 403 and b"deactivated" in answer.content
    assert me(fresh)["authenticated"] is False


def test_a_forged_or_replayed_callback_is_refused(oidc_on: Provider, client: Client, unique: str) -> None:
    oidc_on.set_account(f"eve{unique}", sub=f"sub-eve-{unique}", password="pw", email="e@example.org", name="E")
    start = client.get("/sso/oidc/login")
    callback = oidc_on.sign_in(start["Location"], f"eve{unique}", "pw", f"{settings.PUBLIC_URL}/sso/oidc/callback")
    # The code and state arrive in another browser (whose session holds no such state): refused.
    thief = Client()
    stolen = thief.get(path_of(callback))
    assert stolen.status_code == 400 and me(thief)["authenticated"] is False
    # The right browser, a wrong state: refused.
    wrong = path_of(callback).replace("state=", "state=x")
    assert client.get(wrong).status_code == 400
    # The provider's error answer is shown, not a server error.
    refused = client.get("/sso/oidc/callback?error=access_denied&error_description=User+said+no")
    assert refused.status_code == 400 and b"User said no" in refused.content
    assert me(client)["authenticated"] is False


def test_an_unreachable_provider_is_a_page_not_a_crash(settings: Any, client: Client, db: None) -> None:
    from backend.testing import free_port

    settings.TANKODROM_OIDC = {**settings.TANKODROM_OIDC, "issuer": f"http://127.0.0.1:{free_port()}"}
    oidc._clients.clear()
    answer = client.get("/sso/oidc/login")
    assert answer.status_code == 502 and b"does not answer" in answer.content


def test_logout_ends_the_session_at_the_provider_too(oidc_on: Provider, client: Client, unique: str) -> None:
    oidc_on.set_account(f"fay{unique}", sub=f"sub-fay-{unique}", password="pw", email="f@example.org", name="F")
    browser = requests.Session()  # the same browser at the provider: it has a session there to end
    assert sign_in(client, oidc_on, f"fay{unique}", "pw", browser=browser).status_code == 302
    out = client.post("/logout")
    # A page that refreshes to the provider's end_session_endpoint (a redirect would break the form-action CSP).
    assert out.status_code == 200
    found = re.search(r'<meta http-equiv="refresh" content="0; url=([^"]+)">', out.content.decode())
    assert found is not None
    provider_logout = unescape(found.group(1))
    assert provider_logout.startswith(f"{oidc_on.issuer}/session/end?")
    query = parse_qs(urlsplit(provider_logout).query)
    assert query["post_logout_redirect_uri"] == [f"{settings.PUBLIC_URL}/sso/logged-out"]
    assert query["id_token_hint"][0].count(".") == 2
    assert me(client)["authenticated"] is False
    # The provider's own logout confirmation sends the browser back to us, and its session there is over: the
    # next sign-in asks for the password again.
    back = oidc_on.sign_in(provider_logout, "", "", f"{settings.PUBLIC_URL}/sso/logged-out", browser=browser)
    assert client.get(path_of(back)).status_code == 200
    again = client.get("/sso/oidc/login")
    with pytest.raises(SignInRefused) as refused:
        oidc_on.sign_in(again["Location"], f"fay{unique}", "wrong", f"{settings.PUBLIC_URL}/sso/oidc/callback", browser)
    assert refused.value.status == 401


def test_local_login_switched_off(settings: Any, oidc_on: Provider, client: Client) -> None:
    User.objects.create_user("local-admin", password="local-pw", is_staff=True, is_superuser=True)
    settings.TANKODROM_LOCAL_LOGIN = False
    page = client.get("/login").content.decode()
    assert "Sign in with Dev provider" in page and 'name="password"' not in page
    refused = client.post("/login", {"username": "local-admin", "password": "local-pw"})
    assert refused.status_code == 403 and me(client)["authenticated"] is False
    # Every other password check too: the admin site's login form.
    admin = client.post("/admin/login/", {"username": "local-admin", "password": "local-pw", "next": "/admin/"})
    assert admin.status_code == 200 and me(client)["authenticated"] is False
    settings.TANKODROM_LOCAL_LOGIN = True
    assert client.post("/login", {"username": "local-admin", "password": "local-pw"}).status_code == 302
