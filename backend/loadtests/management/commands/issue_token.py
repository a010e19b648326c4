"""`manage.py issue_token USERNAME`: create the user if missing, print a new API token as the last line."""

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser

from backend.loadtests.tokens import create_token


class Command(BaseCommand):
    help = "Create USERNAME if missing and print a new API token for it (last line of stdout)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--name", default="issued by manage.py", help="a label for the token")

    def handle(self, *args: Any, **options: Any) -> None:
        user_model = get_user_model()
        user, created = user_model.objects.get_or_create(username=options["username"])
        if created:
            user.set_unusable_password()
            user.save()
            self.stderr.write(f"created user {user.username}")
        _token, raw = create_token(user, name=options["name"])
        self.stdout.write(raw)
