"""What the first screen of a report needs, inside the page itself.

Opening `/<id>` used to cost the page, its assets and then eight API calls (who am I, the test, report, summary,
analysis, notes, the Overview tab's three charts), each a full trip through Django, for a test that never changes
again (bench/report_burst/README.md). The page now carries those answers as JSON in a
`<script type="application/json" id="first-screen">` tag, keyed by the URL the app would ask; the app's HTTP client
(frontend/src/api/client.ts) takes an answer from there once instead of asking.

Each answer is made by the API's own view, on a copy of the page's request (same user, same session, same token):
the same access check (backend.loadtests.permissions; a test the viewer may not read is missing), the same bytes.
An answer that is not a 200 is left out: the app then asks for it and shows the error as before.
"""

from __future__ import annotations

import copy
import logging
from typing import Any

from django.http import HttpRequest, QueryDict
from django.urls import Resolver404, resolve

from backend.loadtests.models import Test
from backend.reports.cache import FINAL_STATUSES

log = logging.getLogger(__name__)

SCRIPT_ID = "first-screen"
# The Overview tab's charts (frontend/src/pages/TestReport/tabs/OverviewTab.tsx), with the query the app sends for
# the default view (compress_ratio=auto, no window).
OVERVIEW_CHARTS = ("quantiles", "http_codes", "net_codes")


def urls_for(test: Test) -> list[str]:
    """The API URLs whose answers the page carries: all of the first screen for a finished test; for one whose data
    still moves (online, processing), only who is asking and the test (the app polls the rest)."""
    base = f"/api/v1/tests/{test.pk}"
    urls = ["/api/v1/me", f"{base}/"]
    if test.status in FINAL_STATUSES:
        urls += [f"{base}/report", f"{base}/summary", f"{base}/analysis", f"{base}/notes"]
        urls += [f"{base}/charts/{name}?compress_ratio=auto" for name in OVERVIEW_CHARTS]
    return urls


def _subrequest(request: HttpRequest, url: str) -> HttpRequest:
    path, _, query = url.partition("?")
    sub = copy.copy(request)
    sub.path = sub.path_info = path
    sub.method = "GET"
    sub.GET = QueryDict(query)
    meta = {**request.META, "PATH_INFO": path, "QUERY_STRING": query, "HTTP_ACCEPT": "application/json"}
    for conditional in ("HTTP_IF_NONE_MATCH", "HTTP_IF_MODIFIED_SINCE"):
        meta.pop(conditional, None)  # the page's validators are not the answer's: the answer is wanted whole
    sub.META = meta
    return sub


def answer(request: HttpRequest, url: str) -> bytes | None:
    """The body the API answers at `url` to this request's user, when it is a 200; else None."""
    path = url.partition("?")[0]
    try:
        match = resolve(path)
    except Resolver404:
        return None
    sub = _subrequest(request, url)
    sub.resolver_match = match
    try:
        response: Any = match.func(sub, *match.args, **match.kwargs)
        if hasattr(response, "render") and not getattr(response, "is_rendered", True):
            response.render()
    except Exception:  # the page must load whatever one answer does: the app asks for it and shows its error
        log.exception("first-screen answer %s failed", url)
        return None
    if response.status_code != 200 or not response.get("Content-Type", "").startswith("application/json"):
        return None
    body: bytes = response.content
    return body


def script_json(request: HttpRequest, test: Test) -> bytes:
    """The first screen's answers as one JSON object {url: answer}, safe inside a <script> element: `<`, `>` and
    `&` only occur inside JSON strings, where their \\u escapes mean the same, so no `</script>` or `<!--` can end
    or change the element whatever the answers hold."""
    parts = []
    for url in urls_for(test):
        body = answer(request, url)
        if body is not None:
            parts.append(b'"' + url.encode("ascii") + b'":' + body)
    joined = b"{" + b",".join(parts) + b"}"
    return joined.replace(b"<", b"\\u003c").replace(b">", b"\\u003e").replace(b"&", b"\\u0026")
