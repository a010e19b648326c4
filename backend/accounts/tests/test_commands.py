"""The first admin and tokens from the command line: `bootstrap_admin` (run by `make run`) and `issue_token`."""

from __future__ import annotations

import io

from django.contrib.auth.models import User
from django.core.management import call_command

from backend.loadtests.tokens import resolve_token


def test_issue_token_creates_the_user_and_prints_a_working_token_last(db: None) -> None:
    out, err = io.StringIO(), io.StringIO()
    call_command("issue_token", "ci-bot", "--name", "pipeline", stdout=out, stderr=err)
    raw = out.getvalue().strip().splitlines()[-1]
    token = resolve_token(raw)
    assert token is not None and token.user.username == "ci-bot" and token.name == "pipeline"
    assert not token.user.has_usable_password()
    # A second call reuses the user and gives another token.
    out2 = io.StringIO()
    call_command("issue_token", "ci-bot", stdout=out2, stderr=io.StringIO())
    second = out2.getvalue().strip().splitlines()[-1]
    assert second != raw and resolve_token(second) is not None
    assert User.objects.filter(username="ci-bot").count() == 1


def test_bootstrap_admin_prints_credentials_once(db: None) -> None:
    out = io.StringIO()
    call_command("bootstrap_admin", stdout=out)
    text = out.getvalue()
    password = text.split("password:")[1].split()[0]
    raw = text.split("API token:")[1].split()[0]
    admin = User.objects.get(username="admin")
    assert admin.is_superuser and admin.check_password(password)
    token = resolve_token(raw)
    assert token is not None and token.user == admin
    again = io.StringIO()
    call_command("bootstrap_admin", stdout=again)
    assert password not in again.getvalue() and raw not in again.getvalue()
