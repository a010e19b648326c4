"""Accounts: login/logout pages, the /tokens page, the token API, request limits (see backend/accounts/*.py)."""

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "backend.accounts"
    label = "accounts"
