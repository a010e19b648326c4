"""The real servers the sign-on tests log in through, started by the tests themselves:

- Debian's slapd (OpenLDAP 2.5): a private instance on a free port, its config and data in a temporary directory,
  seeded with ldapadd; the memberof overlay keeps each user's `memberOf` as Active Directory does.
- panva's certified `oidc-provider` (deploy/oidc-dev/server.mjs) under node, its accounts in a JSON file the tests
  edit to disable a user or change their groups.

deploy/setup.sh installs both (slapd and ldap-utils from Debian, deploy/oidc-dev/node_modules with npm ci).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from html import unescape
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

import requests

from backend.testing import ROOT, free_port, wait_until_up

SUFFIX = "dc=example,dc=org"
ROOT_DN = f"cn=admin,{SUFFIX}"
ROOT_PW = "root-secret"
READER_DN = f"cn=reader,{SUFFIX}"  # the service account Tankodrom searches with
READER_PW = "reader-secret"
PEOPLE = f"ou=people,{SUFFIX}"
GROUPS = f"ou=groups,{SUFFIX}"
SLAPD = "/usr/sbin/slapd"
OIDC_DEV = ROOT / "deploy" / "oidc-dev"

SLAPD_CONF = """\
include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
modulepath /usr/lib/ldap
moduleload back_mdb
moduleload memberof
pidfile {dir}/slapd.pid
database mdb
suffix "{suffix}"
rootdn "{root_dn}"
rootpw {root_pw}
directory {dir}/data
overlay memberof
access to attrs=userPassword by anonymous auth by self write by * none
access to * by users read by * none
"""

SEED_LDIF = f"""\
dn: {SUFFIX}
objectClass: dcObject
objectClass: organization
o: Example
dc: example

dn: {READER_DN}
objectClass: organizationalRole
objectClass: simpleSecurityObject
cn: reader
userPassword: {READER_PW}

dn: {PEOPLE}
objectClass: organizationalUnit
ou: people

dn: {GROUPS}
objectClass: organizationalUnit
ou: groups
"""


def _ldap_cli(tool: str, uri: str, ldif: str) -> None:
    subprocess.run(
        [tool, "-x", "-H", uri, "-D", ROOT_DN, "-w", ROOT_PW],
        input=ldif.encode(),
        check=True,
        capture_output=True,
        timeout=30,
    )


@dataclass
class Directory:
    """A running slapd and the writes the tests make to it (as the directory's administrator, with ldap-utils)."""

    uri: str

    def add_user(self, uid: str, password: str, *, mail: str = "", given: str = "", sn: str = "") -> str:
        dn = f"uid={uid},{PEOPLE}"
        _ldap_cli(
            "ldapadd",
            self.uri,
            f"dn: {dn}\nobjectClass: inetOrgPerson\nuid: {uid}\ncn: {given or uid} {sn or uid}\n"
            f"sn: {sn or uid}\ngivenName: {given or uid}\nmail: {mail or uid + '@example.org'}\n"
            f"userPassword: {password}\n",
        )
        return dn

    def add_group(self, cn: str, *member_dns: str) -> str:
        dn = f"cn={cn},{GROUPS}"
        members = "".join(f"member: {m}\n" for m in (READER_DN, *member_dns))  # groupOfNames needs a member
        _ldap_cli("ldapadd", self.uri, f"dn: {dn}\nobjectClass: groupOfNames\ncn: {cn}\n{members}")
        return dn

    def add_to_group(self, group_dn: str, member_dn: str) -> None:
        _ldap_cli("ldapmodify", self.uri, f"dn: {group_dn}\nchangetype: modify\nadd: member\nmember: {member_dn}\n")

    def remove_from_group(self, group_dn: str, member_dn: str) -> None:
        _ldap_cli("ldapmodify", self.uri, f"dn: {group_dn}\nchangetype: modify\ndelete: member\nmember: {member_dn}\n")

    def delete(self, dn: str) -> None:
        subprocess.run(
            ["ldapdelete", "-x", "-H", self.uri, "-D", ROOT_DN, "-w", ROOT_PW, dn],
            check=True,
            capture_output=True,
            timeout=30,
        )


@contextmanager
def running_slapd(base_dir: Path) -> Iterator[Directory]:
    if not Path(SLAPD).exists():
        raise RuntimeError(f"{SLAPD} is missing: run deploy/setup.sh (it installs Debian's slapd and ldap-utils)")
    (base_dir / "data").mkdir(parents=True)
    conf = base_dir / "slapd.conf"
    conf.write_text(SLAPD_CONF.format(dir=base_dir, suffix=SUFFIX, root_dn=ROOT_DN, root_pw=ROOT_PW))
    uri = f"ldap://127.0.0.1:{free_port()}"
    # -d 0: stay in the foreground (a child of the test run), printing nothing but fatal errors.
    proc = subprocess.Popen(
        [SLAPD, "-f", str(conf), "-h", f"{uri}/", "-d", "0"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )

    def binds() -> bool:
        whoami = ["ldapwhoami", "-x", "-H", uri, "-D", ROOT_DN, "-w", ROOT_PW]
        return subprocess.run(whoami, capture_output=True, timeout=10).returncode == 0

    def failure() -> str:
        err = proc.stderr.read().decode(errors="replace") if proc.stderr and proc.poll() is not None else ""
        return f"slapd did not come up on {uri}: {err[-2000:]}"

    try:
        wait_until_up(proc, binds, 20, failure, poll_s=0.1)
        _ldap_cli("ldapadd", uri, SEED_LDIF)
        yield Directory(uri=uri)
    finally:
        _stop(proc)


def _stop(proc: subprocess.Popen[Any]) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@dataclass
class Provider:
    """A running OpenID provider and its accounts file."""

    issuer: str
    client_id: str
    client_secret: str
    accounts_file: Path
    accounts: dict[str, dict[str, Any]] = field(default_factory=dict)

    def set_account(self, login: str, **fields: Any) -> None:
        """Adds or changes an account; the provider reads the file at each use."""
        self.accounts[login] = {**self.accounts.get(login, {}), **fields}
        self.accounts_file.write_text(json.dumps(self.accounts))

    def sign_in(
        self,
        authorize_url: str,
        login: str,
        password: str,
        callback_prefix: str,
        browser: requests.Session | None = None,
    ) -> str:
        """Goes through the provider's own login and consent pages as a browser would (its forms, its cookies: pass
        the same `browser` to keep its session at the provider) and returns the URL it finally redirects to on
        `callback_prefix` (the relying party's callback). Raises SignInRefused with the page's text when the
        provider does not let the user through."""
        browser = browser or requests.Session()
        url = authorize_url
        for _step in range(12):
            answer = browser.get(url, allow_redirects=False, timeout=10)
            while True:
                if answer.is_redirect:
                    url = urljoin(url, answer.headers["Location"])
                    if url.startswith(callback_prefix):
                        return url
                    answer = browser.get(url, allow_redirects=False, timeout=10)
                    continue
                break
            page = answer.text
            action = re.search(r'<form[^>]*\smethod="post"[^>]*\saction="([^"]+)"', page)
            if answer.status_code != 200 or action is None:
                raise SignInRefused(answer.status_code, _text(page))
            target = urljoin(url, unescape(action.group(1)))
            form: dict[str, str] = {}
            if 'name="login"' in page:
                form = {"login": login, "password": password}
            else:
                # the consent page, or the provider's own logout confirmation: its hidden fields and "yes"
                form = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page))
                form = {name: unescape(value) for name, value in form.items()}
                if 'name="logout"' in page:
                    form["logout"] = "yes"
            answer = browser.post(target, data=form, allow_redirects=False, timeout=10)
            if not answer.is_redirect:
                raise SignInRefused(answer.status_code, _text(answer.text))
            url = urljoin(target, answer.headers["Location"])
            if url.startswith(callback_prefix):
                return url
        raise SignInRefused(0, "too many pages")


class SignInRefused(Exception):
    def __init__(self, status: int, text: str) -> None:
        super().__init__(f"{status}: {text}")
        self.status = status
        self.text = text


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


@contextmanager
def running_provider(base_dir: Path, redirect_uri: str, post_logout_redirect_uri: str) -> Iterator[Provider]:
    node = shutil.which("node")
    if node is None or not (OIDC_DEV / "node_modules" / "oidc-provider").is_dir():
        raise RuntimeError(
            "node or deploy/oidc-dev/node_modules is missing: run deploy/setup.sh (it runs npm ci there)"
        )
    port = free_port()
    provider = Provider(
        issuer=f"http://127.0.0.1:{port}",
        client_id="tankodrom-tests",
        client_secret="tests-client-secret",
        accounts_file=base_dir / "accounts.json",
    )
    provider.accounts_file.write_text("{}")
    clients = base_dir / "clients.json"
    clients.write_text(
        json.dumps(
            [
                {
                    "client_id": provider.client_id,
                    "client_secret": provider.client_secret,
                    "redirect_uris": [redirect_uri],
                    "post_logout_redirect_uris": [post_logout_redirect_uri],
                }
            ]
        )
    )
    env = {
        **os.environ,
        "OIDC_DEV_PORT": str(port),
        "OIDC_DEV_ACCOUNTS": str(provider.accounts_file),
        "OIDC_DEV_CLIENTS": str(clients),
    }
    log = base_dir / "provider.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [node, str(OIDC_DEV / "server.mjs")], env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )

    def serves() -> bool:
        try:
            return requests.get(f"{provider.issuer}/.well-known/openid-configuration", timeout=2).ok
        except requests.ConnectionError:
            return False

    def failure() -> str:
        return f"the OpenID provider did not come up: {log.read_text(errors='replace')[-2000:]}"

    try:
        wait_until_up(proc, serves, 30, failure, poll_s=0.1)
        yield provider
    finally:
        _stop(proc)


def path_of(url: str) -> str:
    """The path and query of a URL on this site, for Django's test client."""
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}" if parts.query else parts.path
