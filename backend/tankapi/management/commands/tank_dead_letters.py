"""List the tank buffer's dead letters (entries the flush could not read or ClickHouse refused), put them back into
the stream, or delete them: `manage.py tank_dead_letters [--requeue ID ...] [--delete ID ...]`."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from backend.tankapi import buffer


class Command(BaseCommand):
    help = "List the tank buffer's dead letters; --requeue or --delete some by id."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--requeue", nargs="+", default=[], metavar="ID", help="put back into the stream")
        parser.add_argument("--delete", nargs="+", default=[], metavar="ID", help="delete for good")
        parser.add_argument("--limit", type=int, default=1000)

    def handle(self, *args: Any, **options: Any) -> None:
        letters = {letter.entry_id: letter for letter in buffer.dead_letters(options["limit"])}
        for entry_id in options["requeue"]:
            letter = letters.get(entry_id)
            if letter is None:
                self.stderr.write(f"no dead letter {entry_id}")
                continue
            buffer.requeue_dead_letter(letter)
            self.stdout.write(f"{entry_id} put back into the stream")
        for entry_id in options["delete"]:
            deleted = buffer.delete_dead_letter(entry_id)
            self.stdout.write(f"{entry_id} deleted" if deleted else f"no dead letter {entry_id}")
        if options["requeue"] or options["delete"]:
            return
        for letter in letters.values():
            received = datetime.fromtimestamp(letter.received_at_us / 1e6, tz=UTC).isoformat(timespec="seconds")
            self.stdout.write(
                f"{letter.entry_id}  test {letter.test_id}  kind {letter.kind}  received {received}"
                f"  {len(letter.body)} bytes  {letter.reason}"
            )
        self.stdout.write(f"{len(letters)} dead letter(s)")
