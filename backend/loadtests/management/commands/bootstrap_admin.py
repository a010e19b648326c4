"""First run only: create the admin user with a random password and an API token, and print them once."""

import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from backend.loadtests.tokens import create_token


class Command(BaseCommand):
    help = "Create the first admin (if no superuser exists) and print its password and an API token once."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--username", default="admin")

    def handle(self, *args: Any, **options: Any) -> None:
        user_model = get_user_model()
        if user_model.objects.filter(is_superuser=True).exists():
            self.stdout.write("Admin exists; not printing credentials again (use `manage.py issue_token`).")
            return
        password = secrets.token_urlsafe(12)
        user = user_model.objects.create_superuser(options["username"], "", password)
        _token, raw = create_token(user, name="first token")
        self.stdout.write(
            "\n".join(
                [
                    "=" * 72,
                    "First run: an admin account and an API token were created. They are shown only now.",
                    f"  login:     {user.username}",
                    f"  password:  {password}",
                    f"  API token: {raw}",
                    "Put the token in the tank's token_file (see README).",
                    "=" * 72,
                ]
            )
        )
