"""The sign-on tests' servers (started once per test session) and the settings that point Tankodrom at them."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings as django_settings

from backend.accounts.sso import oidc
from backend.accounts.sso.tests.servers import (
    GROUPS,
    PEOPLE,
    READER_DN,
    READER_PW,
    Directory,
    Provider,
    running_provider,
    running_slapd,
)

_names = itertools.count(1)


@pytest.fixture
def unique() -> str:
    """A suffix no other test of this session uses: the directory and the provider outlive each test's database."""
    return f"u{next(_names)}"


@pytest.fixture(scope="session")
def directory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Directory]:
    with running_slapd(tmp_path_factory.mktemp("slapd")) as found:
        yield found


@pytest.fixture
def ldap_on(settings: Any, directory: Directory, db: None, redis_db: object) -> Directory:
    settings.TANKODROM_LDAP = {
        "uri": directory.uri,
        "start_tls": False,
        "bind_dn": READER_DN,
        "bind_password": READER_PW,
        "user_base": PEOPLE,
        "user_filter": "(uid=%(user)s)",
        "group_base": GROUPS,
        "group_filter": "(objectClass=groupOfNames)",
        "group_type": "groupOfNames",
        "label": "Example directory",
    }
    return directory


@pytest.fixture(scope="session")
def provider(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Provider]:
    public = django_settings.PUBLIC_URL
    with running_provider(
        tmp_path_factory.mktemp("oidc"), f"{public}{oidc.CALLBACK_PATH}", f"{public}{oidc.LOGGED_OUT_PATH}"
    ) as found:
        yield found


@pytest.fixture
def oidc_on(settings: Any, provider: Provider, db: None, redis_db: object) -> Iterator[Provider]:
    settings.TANKODROM_OIDC = {
        "issuer": provider.issuer,
        "client_id": provider.client_id,
        "client_secret": provider.client_secret,
        "scopes": "openid profile email groups",
        "groups_claim": "groups",
        "username_claim": "preferred_username",
        "label": "Dev provider",
    }
    oidc._clients.clear()
    yield provider
    oidc._clients.clear()
