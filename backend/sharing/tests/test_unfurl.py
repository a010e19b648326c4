"""Links unfurl in chat: a bot fetching `/<id>` or `/compare/<a>/<b>` gets the card tags, and the og:image URL
answers a real PNG of the quantiles chart; private tests unfurl as a bare title."""

from __future__ import annotations

import re
import struct
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlparse

from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import Client
from pytest_django.fixtures import Settings

from backend.loadtests.models import Test
from backend.loadtests.tokens import create_token
from backend.projects.models import Visibility
from backend.sharing.preview import CACHE_VERSION, _fingerprint
from backend.sharing.tests.rows import START_TS, insert_seconds

SLACKBOT = "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"


class _Meta(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag != "meta":
            return
        found = dict(attrs)
        key = found.get("property") or found.get("name")
        if key and found.get("content") is not None:
            self.tags[key] = str(found["content"])


def unfurl(path: str) -> tuple[int, dict[str, str], str]:
    """Fetch a page as Slack's link expander does (no cookies) and return its status, meta tags and body."""
    response = Client(HTTP_USER_AGENT=SLACKBOT).get(path)
    body = response.content.decode()
    parser = _Meta()
    parser.feed(body)
    return response.status_code, parser.tags, body


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk; fails unless the bytes are a PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", data[:16]
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    assert data.endswith(b"IEND\xaeB`\x82")
    return int(width), int(height)


def fetch_image(url: str) -> bytes:
    parsed = urlparse(url)
    assert f"{parsed.scheme}://{parsed.netloc}" == "https://results.example.com"  # PUBLIC_URL, absolute
    response = Client(HTTP_USER_AGENT=SLACKBOT).get(parsed.path)
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"] == "image/png"
    return bytes(response.content)


def test_bot_unfurls_a_streamed_test_with_summary_and_png(streamed: Test, dist: Path) -> None:
    status, tags, _body = unfurl(f"/{streamed.pk}")
    assert status == 200
    assert tags["og:title"] == f"#{streamed.pk} api v2 const"
    # The page's formatters (analytics.definitions): ms to the µs, RPS in thousands, shares to 0.01 %.
    match = re.fullmatch(r"q99 (\d+\.\d{3}) ms · 5\u2009000 rps · 0\.10 % errors", tags["og:description"])
    assert match, tags["og:description"]
    # From merged histograms: within the 5 ms bin [1045, 1050) that holds the slowest 2%.
    assert 1045 <= float(match.group(1)) <= 1050
    assert tags["og:url"] == f"https://results.example.com/{streamed.pk}"
    assert tags["twitter:card"] == "summary_large_image"
    assert tags["twitter:image"] == tags["og:image"]
    assert tags["og:image"] == f"https://results.example.com/preview/{streamed.pk}.png"
    assert png_size(fetch_image(tags["og:image"])) == (1200, 630)
    head = Client().head(f"/preview/{streamed.pk}.png")
    assert head.status_code == 200 and head["Content-Type"] == "image/png"


def test_exact_summary_from_raw_samples(uploaded: Test, dist: Path) -> None:
    _status, tags, _body = unfurl(f"/{uploaded.pk}")
    # 1000 samples of 1..1000 ms: the 99% order statistic of rank floor(1000 × 0.99) = 990 is 991 ms.
    assert tags["og:description"] == "q99 991.000 ms · 100 rps · 0.00 % errors", tags["og:description"]
    assert png_size(fetch_image(tags["og:image"])) == (1200, 630)


def test_private_test_unfurls_as_a_missing_one(streamed: Test, dist: Path) -> None:
    Test.objects.filter(pk=streamed.pk).update(visibility=Visibility.OWNER, name="secret launch")
    status, tags, body = unfurl(f"/{streamed.pk}")
    assert status == 404
    assert tags == {}
    assert "secret launch" not in body
    assert Client().get(f"/preview/{streamed.pk}.png").status_code == 404
    # Its owner still gets the picture.
    owner = Client()
    owner.force_login(streamed.owner)
    assert png_size(owner.get(f"/preview/{streamed.pk}.png").content) == (1200, 630)


def test_private_instance_shows_nothing_to_a_bot(streamed: Test, dist: Path, settings: Settings) -> None:
    settings.TANKODROM_PRIVATE_INSTANCE = True
    response = Client(HTTP_USER_AGENT=SLACKBOT).get(f"/preview/{streamed.pk}.png")
    assert response.status_code == 404
    assert response.json() == {"error": f"no test {streamed.pk}"}
    status, tags, _body = unfurl(f"/{streamed.pk}")
    assert status == 302  # to the login page
    assert tags == {}


def test_compare_unfurls_both_tests(streamed: Test, uploaded: Test, dist: Path) -> None:
    status, tags, _body = unfurl(f"/compare/{streamed.pk}/{uploaded.pk}")
    assert status == 200
    assert tags["og:title"] == f"Compare #{streamed.pk} vs #{uploaded.pk}"
    description = tags["og:description"]
    assert description.startswith(f"#{streamed.pk}: q99 ") and f" — #{uploaded.pk}: q99 99" in description
    assert tags["og:image"] == f"https://results.example.com/preview/compare/{streamed.pk}/{uploaded.pk}.png"
    assert png_size(fetch_image(tags["og:image"])) == (1200, 630)


def test_a_computed_comparison_unfurls_with_its_own_plain_line(streamed: Test, uploaded: Test, dist: Path) -> None:
    """Once the comparison was computed (the page asked for it), its card says what the page says on top."""
    answer = Client().get("/api/v1/compare", {"tests": f"{streamed.pk},{uploaded.pk}"}).json()
    _status, tags, _body = unfurl(f"/compare/{streamed.pk}/{uploaded.pk}")
    assert tags["og:description"] == " ".join(answer["summary"])
    assert tags["og:description"].startswith(f"#{uploaded.pk} ")


def test_compare_with_a_private_test_is_a_bare_title(streamed: Test, uploaded: Test, dist: Path) -> None:
    Test.objects.filter(pk=uploaded.pk).update(visibility=Visibility.OWNER)
    _status, tags, _body = unfurl(f"/compare/{streamed.pk}/{uploaded.pk}")
    assert tags == {"og:title": f"Compare #{streamed.pk} vs #{uploaded.pk}"}
    assert Client().get(f"/preview/compare/{streamed.pk}/{uploaded.pk}.png").status_code == 404


def test_test_without_results_still_unfurls(owner: User, clickhouse: None, fresh_cache: None, dist: Path) -> None:
    test = Test.objects.create(owner=owner, name="just created", has_stream=True)
    _status, tags, _body = unfurl(f"/{test.pk}")
    assert tags["og:description"] == "no results yet"
    assert png_size(fetch_image(tags["og:image"])) == (1200, 630)


def test_unknown_and_absurd_ids_are_404_not_500(db: None) -> None:
    for path in (
        "/preview/987654.png",
        "/preview/99999999999999999999999.png",
        "/preview/compare/1/99999999999999999999.png",
    ):
        response = Client().get(path)
        assert response.status_code == 404, path
        assert "no test" in response.json()["error"]


def test_picture_is_cached_until_the_test_changes(streamed: Test, dist: Path) -> None:
    first = Client().get(f"/preview/{streamed.pk}.png")
    assert first["Cache-Control"] == "public, max-age=60"  # finished: revalidated with its ETag after a minute
    key = f"sharing:png:v{CACHE_VERSION}:test:{_fingerprint(streamed)}"
    assert cache.get(key) == first.content
    # New seconds arrive, but the test's state is the same: the picture comes from the cache, unchanged.
    insert_seconds(streamed.pk, 0, 5, fast_ms=900, slow_ms=3000, fast=10, slow=10, start_ts=START_TS + 10)
    assert Client().get(f"/preview/{streamed.pk}.png").content == first.content
    # Once the test records its new last second, the picture is drawn anew.
    Test.objects.filter(pk=streamed.pk).update(last_ts=START_TS + 14)
    assert Client().get(f"/preview/{streamed.pk}.png").content != first.content


def test_owner_marks_a_test_private_and_the_card_goes(streamed: Test, dist: Path) -> None:
    _token, raw = create_token(streamed.owner, name="owner")
    owner = Client(HTTP_AUTHORIZATION=f"Token {raw}")
    response = owner.patch(f"/api/v1/tests/{streamed.pk}/", {"is_private": True}, content_type="application/json")
    assert response.status_code == 200, response.content
    _status, tags, body = unfurl(f"/{streamed.pk}")
    assert tags == {}
    assert "api v2 const" not in body
    assert Client().get(f"/preview/{streamed.pk}.png").status_code == 404
