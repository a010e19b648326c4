"""`manage.py issue_token USERNAME`: creates the user if missing; the last stdout line is a working token."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command

from backend.loadtests.models import ApiToken
from backend.loadtests.tokens import resolve_token


@pytest.mark.django_db
def test_issue_token_creates_user_and_prints_token_last() -> None:
    out = io.StringIO()
    call_command("issue_token", "carol", stdout=out, stderr=io.StringIO())
    raw = out.getvalue().strip().splitlines()[-1]
    token = resolve_token(raw)
    assert token is not None and token.user.username == "carol"
    # Stored hashed only: the raw token appears nowhere in the table.
    assert not ApiToken.objects.filter(key_hash=raw).exists()
    assert raw not in {t.key_hash for t in ApiToken.objects.all()}


@pytest.mark.django_db
def test_issue_token_twice_gives_two_live_tokens_for_one_user() -> None:
    first, second = io.StringIO(), io.StringIO()
    call_command("issue_token", "dave", stdout=first, stderr=io.StringIO())
    call_command("issue_token", "dave", stdout=second, stderr=io.StringIO())
    assert User.objects.filter(username="dave").count() == 1
    a, b = first.getvalue().split()[-1], second.getvalue().split()[-1]
    assert a != b and resolve_token(a) is not None and resolve_token(b) is not None


@pytest.mark.django_db
def test_bootstrap_admin_prints_credentials_only_once() -> None:
    first, second = io.StringIO(), io.StringIO()
    call_command("bootstrap_admin", stdout=first)
    call_command("bootstrap_admin", stdout=second)
    raw = next(line.split()[-1] for line in first.getvalue().splitlines() if "API token:" in line)
    assert resolve_token(raw) is not None
    assert "API token:" not in second.getvalue()
