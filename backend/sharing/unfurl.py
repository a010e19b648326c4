"""The <head> tags that make a pasted link unfurl in chat (OpenGraph and Twitter cards).

`head_tags(request, kind, ids)` is called by the page view of `backend.web` for `/<id>` (kind "test") and
`/compare/<a>/<b>` (kind "compare"); it returns the tags as a list of (attribute, name, content) triples,
which the template escapes and renders.

A link-preview bot fetches the page without a session, so what it sees is what anyone with the link may read.
A test that the requester may not read (private, or a private instance) unfurls exactly as a missing one (no card;
a comparison: a bare title naming only the numbers of its URL): its name, figures and picture stay behind the
login, and so does the fact that it exists.
"""

from __future__ import annotations

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from django.urls import reverse

from backend.clickhouse.client import ClickHouseUnavailable
from backend.compare import service as compare
from backend.loadtests.models import Test
from backend.loadtests.permissions import readable_test
from backend.sharing.summary import summarize, summary_line

MetaTag = tuple[str, str, str]  # ("property" or "name", key, content)
SITE_NAME = "Tankodrom"


def _absolute(path: str) -> str:
    # Chat servers fetch og:image on their own: it must be absolute, on the public address of this instance.
    return f"{settings.PUBLIC_URL}{path}"


def _card(title: str, description: str, page_path: str, image_path: str) -> list[MetaTag]:
    image = _absolute(image_path)
    return [
        ("property", "og:site_name", SITE_NAME),
        ("property", "og:type", "website"),
        ("property", "og:title", title),
        ("property", "og:description", description),
        ("property", "og:url", _absolute(page_path)),
        ("property", "og:image", image),
        ("property", "og:image:type", "image/png"),
        ("property", "og:image:width", "1200"),
        ("property", "og:image:height", "630"),
        ("property", "og:image:alt", f"Response time quantiles: {title}"),
        ("name", "twitter:card", "summary_large_image"),
        ("name", "twitter:title", title),
        ("name", "twitter:description", description),
        ("name", "twitter:image", image),
    ]


def _bare(title: str) -> list[MetaTag]:
    return [("property", "og:title", title)]


def title_of(test: Test) -> str:
    return f"#{test.pk} {test.name}".strip()


def _line(test: Test) -> str:
    # The page must still load when ClickHouse does not answer: the preview then just lacks its figures.
    try:
        return summary_line(summarize(test))
    except ClickHouseUnavailable:
        return "results temporarily unavailable"


def head_tags(request: HttpRequest, kind: str, ids: list[int]) -> list[MetaTag]:
    if kind == "test" and ids:
        test = readable_test(request.user, ids[0])
        if test is None:  # missing, or not readable: the same (permissions.py)
            return []
        return _card(
            title_of(test),
            _line(test),
            f"/{test.pk}",
            reverse("sharing-preview-test", args=[test.pk]),
        )
    if kind == "compare" and ids:
        title = "Compare " + " vs ".join(f"#{i}" for i in ids)
        ordered = [readable_test(request.user, i) for i in ids]
        readable = [t for t in ordered if t is not None]
        if len(readable) < len(ordered):
            return _bare(title)
        # The comparison's own plain lines when it was computed (a bot must not start one); else each test's line.
        compared = cache.get(compare.cache_key(compare.CompareParams(tuple(ids)), readable))
        lines = compared.get("summary") if isinstance(compared, dict) else None
        description = " ".join(lines) if lines else " — ".join(f"#{t.pk}: {_line(t)}" for t in readable)
        joined = "/".join(str(i) for i in ids)
        return _card(title, description, f"/compare/{joined}", f"/preview/compare/{joined}.png")
    return []
