"""Notes on a test's timeline: who may add and delete them, and their list as the API answers it.

The views check that the caller may read the test first; a private test's notes are as hidden as the test.
"""

from __future__ import annotations

from typing import Any

from rest_framework.exceptions import NotFound, PermissionDenied, ValidationError

from backend.loadtests.models import Test
from backend.loadtests.permissions import can_write
from backend.reports.models import TestNote
from backend.reports.serializers import NoteSerializer

# A test's notes are for marking moments, not a chat: a bound keeps the charts readable.
MAX_NOTES_PER_TEST = 200


def _may_delete(user: Any, test: Test, note: TestNote) -> bool:
    if user is None or not user.is_authenticated:
        return False
    return note.author_id == user.pk or can_write(user, test)


def listed(user: Any, test: Test) -> list[dict[str, Any]]:
    rows = list(TestNote.objects.filter(test=test).select_related("author"))
    context = {"can_delete": {n.pk: _may_delete(user, test, n) for n in rows}}
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
    if not _may_delete(user, test, note):
        raise PermissionDenied("only the note's author or whoever may change the test deletes it")
    note.delete()
