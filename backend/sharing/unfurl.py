"""The <head> tags that make a pasted link unfurl in chat (OpenGraph and Twitter cards).

`head_tags(request, kind, ids)` is called by the page view of `backend.web` for `/<id>` (kind "test") and
`/compare/<a>/<b>` (kind "compare"); it returns the tags as a list of (attribute, name, content) triples,
which the template escapes and renders.
"""

from __future__ import annotations

from django.http import HttpRequest

from backend.loadtests.models import Test
from backend.loadtests.permissions import can_read

MetaTag = tuple[str, str, str]  # ("property" or "name", key, content)


def head_tags(request: HttpRequest, kind: str, ids: list[int]) -> list[MetaTag]:
    tests = {t.pk: t for t in Test.objects.filter(pk__in=ids)}
    if kind == "test" and ids and ids[0] in tests:
        test = tests[ids[0]]
        if not can_read(request.user, test):
            return []
        title = f"#{test.pk} {test.name}".strip()
        return [("property", "og:title", title), ("property", "og:type", "website")]
    if kind == "compare" and ids:
        title = "Compare " + " vs ".join(f"#{i}" for i in ids)
        return [("property", "og:title", title), ("property", "og:type", "website")]
    return []
