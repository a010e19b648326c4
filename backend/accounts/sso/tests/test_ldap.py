"""LDAP sign-on against a real slapd (Debian's OpenLDAP, started by the tests): the login form's password checked by
the directory, accounts linked to the entry's entryUUID, groups read by search or from memberOf."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import authenticate
from django.contrib.auth.models import User
from django.test import Client

from backend.accounts.models import SignOnIdentity
from backend.accounts.sso.ldap import DirectoryBackend, group_dns
from backend.accounts.sso.tests.servers import GROUPS, Directory


def me(client: Client) -> dict[str, Any]:
    answer: dict[str, Any] = client.get("/api/v1/me").json()
    return answer


def log_in(client: Client, username: str, password: str) -> int:
    return client.post("/login", {"username": username, "password": password}).status_code


def test_the_login_page_names_the_directory(ldap_on: Directory, client: Client) -> None:
    page = client.get("/login").content.decode()
    assert "Example directory username" in page


def test_directory_login_makes_an_account_linked_to_the_entry(ldap_on: Directory, client: Client, unique: str) -> None:
    ldap_on.add_user(f"gil{unique}", "dir-pw", mail=f"gil{unique}@example.org", given="Gil", sn="Smith")
    assert log_in(client, f"gil{unique}", "wrong") == 200  # the form again, with its error
    assert me(client)["authenticated"] is False
    assert log_in(client, f"gil{unique}", "dir-pw") == 302
    assert me(client) == {"authenticated": True, "username": f"gil{unique}", "is_staff": False}
    user = User.objects.get(username=f"gil{unique}")
    assert (user.email, user.first_name, user.last_name) == (f"gil{unique}@example.org", "Gil", "Smith")
    assert not user.has_usable_password()
    identity = SignOnIdentity.objects.get(user=user)
    assert identity.issuer == "ldap" and len(identity.subject) == 36  # the entry's entryUUID


def test_a_directory_user_never_becomes_the_local_user_of_the_same_name(
    ldap_on: Directory, client: Client, unique: str
) -> None:
    User.objects.create_user(f"root{unique}", password="local-pw", is_superuser=True, is_staff=True)
    ldap_on.add_user(f"root{unique}", "dir-pw")
    assert log_in(client, f"root{unique}", "dir-pw") == 302
    assert me(client) == {"authenticated": True, "username": f"root{unique}-2", "is_staff": False}
    # The local account still logs in with its own password, and only with it.
    other = Client()
    assert log_in(other, f"root{unique}", "local-pw") == 302 and me(other)["username"] == f"root{unique}"


def test_a_user_deleted_from_the_directory_cannot_log_in(ldap_on: Directory, client: Client, unique: str) -> None:
    dn = ldap_on.add_user(f"hal{unique}", "dir-pw")
    assert log_in(client, f"hal{unique}", "dir-pw") == 302
    ldap_on.delete(dn)
    fresh = Client()
    assert log_in(fresh, f"hal{unique}", "dir-pw") == 200 and me(fresh)["authenticated"] is False


def test_groups_by_search_and_by_member_of(settings: Any, ldap_on: Directory, unique: str) -> None:
    dn = ldap_on.add_user(f"ivy{unique}", "dir-pw")
    perf = ldap_on.add_group(f"perf{unique}", dn)
    ldap_on.add_group(f"other{unique}")
    user = authenticate(None, username=f"ivy{unique}", password="dir-pw")
    assert user is not None
    assert group_dns(user.ldap_user) == (perf.lower(),)  # type: ignore[attr-defined]
    settings.TANKODROM_LDAP = {**settings.TANKODROM_LDAP, "group_type": "memberOf", "group_base": GROUPS}
    user = authenticate(None, username=f"ivy{unique}", password="dir-pw")
    assert user is not None
    assert group_dns(user.ldap_user) == (perf.lower(),)  # type: ignore[attr-defined]


def test_off_without_a_server_uri(db: None) -> None:
    assert DirectoryBackend().authenticate(None, username="anyone", password="x") is None


def test_local_login_off_leaves_the_directory(settings: Any, ldap_on: Directory, client: Client, unique: str) -> None:
    User.objects.create_user(f"loc{unique}", password="local-pw")
    ldap_on.add_user(f"jo{unique}", "dir-pw")
    settings.TANKODROM_LOCAL_LOGIN = False
    assert 'name="password"' in client.get("/login").content.decode()
    assert log_in(client, f"loc{unique}", "local-pw") == 200 and me(client)["authenticated"] is False
    assert log_in(client, f"jo{unique}", "dir-pw") == 302 and me(client)["username"] == f"jo{unique}"
