"""Groups mapped to project roles at every sign-on, against the real provider and directory: roles added, changed
and removed with the person's groups; memberships granted by hand left alone; every change audited."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from backend.accounts.models import SignOnGrant
from backend.accounts.sso.group_roles import parse
from backend.accounts.sso.tests.servers import Directory, Provider
from backend.accounts.sso.tests.test_oidc import me, sign_in
from backend.projects.models import AuditEvent, Membership, Project, Role
from backend.projects.service import set_member


@pytest.fixture
def projects(db: None) -> dict[str, Project]:
    return {
        slug: Project.objects.get_or_create(slug=slug, defaults={"name": slug.title()})[0]
        for slug in ("payments", "infra")
    }


def roles(user: User) -> dict[str, str]:
    """The user's roles outside the default project (which every new account joins on its own)."""
    found = Membership.objects.filter(user=user).exclude(project__slug="default").select_related("project")
    return {member.project.slug: Role(member.role).name.lower() for member in found}


def account(provider: Provider, name: str, unique: str, groups: list[str]) -> str:
    """An account `name`+`unique` at the provider (password "pw") in `groups`; its login."""
    login = f"{name}{unique}"
    email = f"{name[0]}@example.org"
    provider.set_account(
        login, sub=f"sub-{name}-{unique}", password="pw", email=email, name=name[0].upper(), groups=groups
    )
    return login


def test_oidc_groups_give_change_and_take_roles(
    settings: Any, oidc_on: Provider, projects: dict[str, Project], unique: str
) -> None:
    settings.TANKODROM_SSO_GROUP_ROLES = parse("perf-team=payments:maintainer; qa=payments:viewer; ops=infra:admin")
    login = account(oidc_on, "kim", unique, ["perf-team", "qa"])
    assert sign_in(Client(), oidc_on, login, "pw").status_code == 302
    user = User.objects.get(username=login)
    assert roles(user) == {"payments": "maintainer"}  # the highest of its groups' roles
    actions: list[Any] = list(AuditEvent.objects.filter(target=login).values_list("action", "project__slug", "actor"))
    assert ("member.add", "payments", None) in actions and ("member.sign_on", "payments", None) in actions

    oidc_on.set_account(login, groups=["qa", "ops"])
    assert sign_in(Client(), oidc_on, login, "pw").status_code == 302
    assert roles(user) == {"payments": "viewer", "infra": "admin"}
    assert AuditEvent.objects.filter(target=login, action="member.role", project=projects["payments"]).exists()

    oidc_on.set_account(login, groups=[])
    client = Client()
    assert sign_in(client, oidc_on, login, "pw").status_code == 302
    assert roles(user) == {} and me(client)["authenticated"] is True  # still signs in, with no project role
    assert AuditEvent.objects.filter(target=login, action="member.remove").count() == 2
    assert not SignOnGrant.objects.filter(user=user).exists()


def test_memberships_granted_by_hand_stay(
    settings: Any, oidc_on: Provider, projects: dict[str, Project], unique: str
) -> None:
    settings.TANKODROM_SSO_GROUP_ROLES = parse("perf-team=payments:maintainer; ops=infra:admin")
    admin = User.objects.create_user(f"adm{unique}", is_superuser=True, is_staff=True)
    login = account(oidc_on, "lee", unique, ["perf-team", "ops"])
    # infra: granted by hand before the first sign-on; sign-on must not raise or take it.
    user = User.objects.create_user(login)
    from backend.accounts.sso.identity import link

    link(user, oidc_on.issuer, f"sub-lee-{unique}")
    set_member(projects["infra"], user, Role.VIEWER, actor=admin)
    assert sign_in(Client(), oidc_on, login, "pw").status_code == 302
    assert roles(user) == {"payments": "maintainer", "infra": "viewer"}
    # An admin changes the role sign-on gave: from then on it is theirs.
    set_member(projects["payments"], user, Role.ADMIN, actor=admin)
    oidc_on.set_account(login, groups=[])
    assert sign_in(Client(), oidc_on, login, "pw").status_code == 302
    assert roles(user) == {"payments": "admin", "infra": "viewer"}


def test_no_groups_claim_leaves_roles_alone(
    settings: Any, oidc_on: Provider, projects: dict[str, Project], unique: str
) -> None:
    settings.TANKODROM_SSO_GROUP_ROLES = parse("perf-team=payments:maintainer")
    login = account(oidc_on, "max", unique, ["perf-team"])
    assert sign_in(Client(), oidc_on, login, "pw").status_code == 302
    settings.TANKODROM_OIDC = {**settings.TANKODROM_OIDC, "scopes": "openid profile email"}  # no groups scope
    from backend.accounts.sso import oidc

    oidc._clients.clear()
    assert sign_in(Client(), oidc_on, login, "pw").status_code == 302
    assert roles(User.objects.get(username=login)) == {"payments": "maintainer"}


def test_an_unknown_project_is_skipped_with_a_warning(
    settings: Any, oidc_on: Provider, projects: dict[str, Project], unique: str, caplog: pytest.LogCaptureFixture
) -> None:
    settings.TANKODROM_SSO_GROUP_ROLES = parse("perf-team=nowhere:admin; perf-team=payments:uploader")
    login = account(oidc_on, "ned", unique, ["perf-team"])
    with caplog.at_level(logging.WARNING):
        assert sign_in(Client(), oidc_on, login, "pw").status_code == 302
    assert roles(User.objects.get(username=login)) == {"payments": "uploader"}
    assert "'nowhere'" in caplog.text


def test_ldap_groups_follow_the_directory(
    settings: Any, ldap_on: Directory, projects: dict[str, Project], unique: str
) -> None:
    dn = ldap_on.add_user(f"ola{unique}", "dir-pw")
    perf = ldap_on.add_group(f"perf{unique}", dn)
    qa = ldap_on.add_group(f"qa{unique}")
    # The DN spelled as an admin might type it: other case, spaces after the commas.
    settings.TANKODROM_SSO_GROUP_ROLES = parse(
        f"CN=perf{unique}, OU=groups, DC=example, DC=org=payments:uploader; {qa}=infra:viewer"
    )

    def log_in() -> Client:
        client = Client()
        assert client.post("/login", {"username": f"ola{unique}", "password": "dir-pw"}).status_code == 302
        return client

    log_in()
    user = User.objects.get(username=f"ola{unique}")
    assert roles(user) == {"payments": "uploader"}
    ldap_on.remove_from_group(perf, dn)
    ldap_on.add_to_group(qa, dn)
    log_in()
    assert roles(user) == {"infra": "viewer"}
    # Deleted from the directory: no more sign-on at all.
    ldap_on.delete(dn)
    assert Client().post("/login", {"username": f"ola{unique}", "password": "dir-pw"}).status_code == 200
