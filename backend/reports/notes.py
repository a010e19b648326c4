"""Notes on a test's timeline: their list as the API answers it, adding and deleting them.

The views check access first: reading the notes needs read access to the test (a private test's notes are as
hidden as the test); adding and deleting them needs write access, as every other change of a test does.
"""

from __future__ import annotations

from typing import Any

from rest_framework.exceptions import NotFound, ValidationError

from backend.loadtests.models import Test
from backend.loadtests.permissions import can_write
from backend.reports.models import TestNote
from backend.reports.serializers import NoteSerializer

# A test's notes are for marking moments, not a chat: a bound keeps the charts readable.
MAX_NOTES_PER_TEST = 200


def listed(user: Any, test: Test) -> list[dict[str, Any]]:
    rows = list(TestNote.objects.filter(test=test).select_related("author"))
    writer = bool(user is not None and user.is_authenticated and can_write(user, test))
    context = {"can_delete": {n.pk: writer for n in rows}}
    return list(NoteSerializer(rows, many=True, context=context).data)


def add(user: Any, test: Test, data: Any) -> dict[str, Any]:
    serializer = NoteSerializer(data=data)
    serializer.is_valid(raise_exception=True)
    if TestNote.objects.filter(test=test).count() >= MAX_NOTES_PER_TEST:
        raise ValidationError({"ts": f"a test holds at most {MAX_NOTES_PER_TEST} notes"})
    note = serializer.save(test=test, author=user)
    return dict(NoteSerializer(note, context={"can_delete": {note.pk: True}}).data)


def delete(user: Any, test: Test, note_id: int) -> None:
    note = TestNote.objects.filter(test=test, pk=note_id).first()
    if note is None:
        raise NotFound(f"note {note_id} of test {test.pk} not found")
    note.delete()
