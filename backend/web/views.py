"""The HTML pages: every page URL answers with the built single-page app (frontend/dist/index.html).

The SPA decides what to draw from the path and the hash; the server only adds what must be in the first
response: the unfurl tags for chat previews (`backend.sharing.unfurl.head_tags`), a 404 status for a test
that does not exist, and the login redirect of a private instance.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse, HttpResponseNotFound
from django.http.response import HttpResponseBase
from django.middleware.csrf import get_token
from django.utils.html import format_html, format_html_join
from django.views.decorators.http import require_safe

from backend.loadtests.permissions import may_browse, readable_test
from backend.projects.access import readable_projects
from backend.sharing.unfurl import head_tags
from backend.web import first_screen, shared_page

# index.html and the manifest are read once per build: keyed by path and mtime, so a rebuild is picked up
# without a restart.
_file_cache: dict[tuple[str, float], Any] = {}
# Pages that draw charts: the chart library's chunk is preloaded with the page, in parallel with the app's first
# API calls, instead of after the first chart's data arrived (it is most of the time to the first chart).
_CHART_KINDS = ("test", "compare", "component")

_NOT_BUILT = (
    "<!doctype html><title>Tankodrom</title><p>The frontend bundle is not built "
    "(frontend/dist/index.html is missing): run <code>make setup</code> or "
    "<code>cd frontend &amp;&amp; npm ci &amp;&amp; npm run build</code>.</p>"
)


def _read_cached(path: Path, parse: bool) -> Any:
    try:
        mtime = path.stat().st_mtime
    except FileNotFoundError:
        return None
    key = (str(path), mtime)
    if key not in _file_cache:
        for old in [k for k in _file_cache if k[0] == key[0]]:
            del _file_cache[old]
        text = path.read_text(encoding="utf-8")
        _file_cache[key] = json.loads(text) if parse else text
    return _file_cache[key]


def _index_html() -> str | None:
    html = _read_cached(Path(settings.FRONTEND_DIST) / "index.html", parse=False)
    return html if isinstance(html, str) else None


def _chart_chunks() -> list[str]:
    """The built files of the `plotly` chunk (vite's manifest), as static paths."""
    manifest = _read_cached(Path(settings.FRONTEND_DIST) / ".vite" / "manifest.json", parse=True)
    if not isinstance(manifest, dict):
        return []
    return [
        f"{settings.STATIC_URL}{entry['file']}"
        for entry in manifest.values()
        if isinstance(entry, dict) and entry.get("name") == "plotly" and isinstance(entry.get("file"), str)
    ]


def _render(
    request: HttpRequest, kind: str, ids: list[int], *, status: int = 200, first_screen_json: bytes | None = None
) -> HttpResponse:
    if not may_browse(request.user):
        return redirect_to_login(request.get_full_path(), settings.LOGIN_URL)
    html = _index_html()
    if html is None:
        # A missing page stays a 404 (what a stranger sees of a project must not depend on the build either).
        return HttpResponse(_NOT_BUILT, status=404 if status == 404 else 503)
    tags = head_tags(request, kind, ids) if kind in ("test", "compare") else []
    # The attribute name is one of two fixed words; anything else from head_tags is dropped, never echoed.
    safe = [(attr, key, content) for attr, key, content in tags if attr in ("property", "name")]
    head = format_html_join("", '<meta {}="{}" content="{}">', safe)
    if kind in _CHART_KINDS:
        preload = format_html_join("", '<link rel="modulepreload" href="{}">', ((f,) for f in _chart_chunks()))
        head = format_html("{}{}", head, preload)
    title = next((c for a, k, c in safe if k == "og:title"), "")
    if title:
        head = format_html("<title>{} · Tankodrom</title>{}", title, head)
        html = html.replace("<title>Tankodrom</title>", "", 1)
    body = html.replace("</head>", f"{head}</head>", 1)
    if first_screen_json is not None:
        # Escaped for the element by first_screen.script_json; not executed (CSP), only read by the app.
        script = f'<script type="application/json" id="{first_screen.SCRIPT_ID}">'.encode() + first_screen_json
        body = body.replace("</body>", script.decode("utf-8") + "</script></body>", 1)
    if request.user.is_authenticated:
        # Sets the csrftoken cookie: the SPA's session writes (star, notes, logout) send it back as X-CSRFToken.
        # An anonymous visitor writes nothing (the login form sets its own), so its page carries no cookie and can
        # be shared by caches.
        get_token(request)
    response = HttpResponse(body, status=status, content_type="text/html; charset=utf-8")
    # The page is small and names hashed assets: always revalidate so a new build is seen at once.
    response["Cache-Control"] = "no-cache"
    return response


@require_safe
def test_list(request: HttpRequest) -> HttpResponse:
    return _render(request, "list", [])


@require_safe
def test_report(request: HttpRequest, test_id: int) -> HttpResponseBase:
    # A missing test still gets the app (it shows a readable "not found"), but with a 404 status for robots; a
    # test this user may not read is answered exactly as a missing one (permissions.py).
    test = readable_test(request.user, test_id)
    if test is None:
        return _render(request, "test", [test_id], status=404)

    def build() -> HttpResponse:
        return _render(request, "test", [test_id], first_screen_json=first_screen.script_json(request, test))

    return shared_page.answer(request, test, build)


@require_safe
def compare(request: HttpRequest, ids: str) -> HttpResponse:
    # The URL pattern admits only two or more numeric ids, so every part converts.
    return _render(request, "compare", [int(p) for p in ids.split("/") if p])


@require_safe
def component(request: HttpRequest, name: str) -> HttpResponse:
    return _render(request, "component", [])


@require_safe
def project(request: HttpRequest, slug: str) -> HttpResponse:
    # A project the reader holds no role in gets the app with a 404 exactly like a missing one (as a test's report
    # does); the app asks the API, which answers both alike too.
    known = readable_projects(request.user).filter(slug=slug).exists()
    return _render(request, "project", [], status=200 if known else 404)


@require_safe
def storage(request: HttpRequest) -> HttpResponse:
    return _render(request, "storage", [])


def not_found(request: HttpRequest, path: str = "") -> HttpResponse:
    """Any other path: the app draws its "page not found" with the navigation, answered with a 404 status.
    Other methods keep the plain 404 they had (a client posting to a wrong URL must not get a 405 or a page)."""
    if request.method not in ("GET", "HEAD"):
        return HttpResponseNotFound(b"Not Found", content_type="text/plain")
    return _render(request, "notfound", [], status=404)
