"""Hostile input on the JSON API gets a 4xx `{"error": ...}` naming what is wrong, never a 5xx.

The JSON endpoints are found by walking the URL resolver (every DRF view), so a new one is covered as it lands.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import get_resolver
from rest_framework.views import APIView

from backend.core.parsers import MAX_DEPTH, check_tree, loads_checked
from backend.core.tests.url_examples import example_path, walk
from backend.loadtests.models import Test
from backend.loadtests.tokens import create_token

DEEP = 100_000


def _drf_patterns() -> list[tuple[str, str]]:
    found = []
    for regex, pattern in walk(get_resolver().url_patterns):
        view = getattr(pattern.callback, "cls", None)
        if isinstance(view, type) and issubclass(view, APIView) and regex.startswith(("^api/v1", "^^api/v1")):
            found.append((pattern.name or regex, regex))
    return found


DRF_PATTERNS = _drf_patterns()


@pytest.fixture
def owner_client(db: None, redis_db: object) -> tuple[Client, Test]:
    owner = User.objects.create_user("owner", is_staff=True)
    _token, raw = create_token(owner)
    test = Test.objects.create(owner=owner, name="mine", component="api")
    return Client(HTTP_AUTHORIZATION=f"Token {raw}"), test


def _error_of(response: Any) -> str:
    body = response.json()
    assert isinstance(body, dict) and isinstance(body.get("error"), str), body
    return str(body["error"])


def test_every_json_endpoint_is_found() -> None:
    names = {name for name, _ in DRF_PATTERNS}
    assert {"tests", "test-detail", "api-tokens", "compare"} <= names, names


@pytest.mark.parametrize(("name", "regex"), DRF_PATTERNS, ids=[n for n, _ in DRF_PATTERNS])
@pytest.mark.parametrize("method", ["post", "put", "patch"])
def test_json_nested_100k_deep_is_a_400(owner_client: tuple[Client, Test], name: str, regex: str, method: str) -> None:
    client, test = owner_client
    path = example_path(
        regex, {"test_id": str(test.pk), "pk": "1", "name": "api", "slug": "default", "username": "owner"}
    )
    assert path is not None, regex
    body = "[" * DEEP + "]" * DEEP
    response = getattr(client, method)(path, body, content_type="application/json")
    # 405 where the method is not served, 404/403 where the example names nothing; never a 5xx, always JSON.
    assert response.status_code < 500, (method, path, response.status_code, response.content[:300])
    if response.status_code < 400:
        return  # a view that takes no body (star) ignores it, as it should
    error = _error_of(response)
    if response.status_code == 400 and name not in ("upload-phout", "upload-results", "archives", "monitoring-log"):
        assert "nested deeper" in error, error


def test_deep_json_error_names_the_limit(owner_client: tuple[Client, Test]) -> None:
    client, _test = owner_client
    response = client.post(
        "/api/v1/tests/", '{"name": ' + "[" * DEEP + "]" * DEEP + "}", content_type="application/json"
    )
    assert response.status_code == 400
    assert f"nested deeper than {MAX_DEPTH} levels" in _error_of(response)


@pytest.mark.parametrize(
    ("raw", "field", "what"),
    [
        ('{"name": "a\\u0000b"}', "name", "NUL"),
        ('{"name": "a\\ud800b"}', "name", "lone surrogates"),
        ('{"description": "\\udfff"}', "description", "lone surrogates"),
        ('{"name": "ok", "loadscheme": [{"x": "\\u0000"}]}', "loadscheme: 0.x", "NUL"),
        ('{"name": "ok", "notify": ["a\\udc00"]}', "notify: 0", "lone surrogates"),
    ],
)
def test_nul_and_lone_surrogates_are_a_400_naming_the_field(
    owner_client: tuple[Client, Test], raw: str, field: str, what: str
) -> None:
    client, test = owner_client
    before = Test.objects.count()
    created = client.post("/api/v1/tests/", raw, content_type="application/json")
    assert created.status_code == 400, created.content
    assert field in _error_of(created) and what in _error_of(created)
    assert Test.objects.count() == before
    edited = client.patch(f"/api/v1/tests/{test.pk}/", raw, content_type="application/json")
    assert edited.status_code == 400, edited.content
    assert field in _error_of(edited)


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/components/a%00b/trend",
        "/api/v1/components/a%00b/check/1",
        "/component/a%00b",
        "/api/v1/tests/?search=a%00b",
        "/api/v1/compare?tests=1,2&case=a%00b",
    ],
)
def test_nul_in_a_url_is_a_400(owner_client: tuple[Client, Test], path: str) -> None:
    client, _test = owner_client
    response = client.get(path)
    assert response.status_code == 400, (path, response.status_code, response.content[:300])
    assert "NUL" in _error_of(response)


def test_a_chunked_post_is_refused_not_created_empty(owner_client: tuple[Client, Test]) -> None:
    client, _test = owner_client
    before = Test.objects.count()
    # As a server hands Django a chunked body: no CONTENT_LENGTH, the header says chunked; Django reads it as empty.
    response = client.generic(
        "POST",
        "/api/v1/tests/",
        b'{"name": "from chunks"}',
        content_type="application/json",
        HTTP_TRANSFER_ENCODING="chunked",
        CONTENT_LENGTH="",
    )
    assert response.status_code == 411, response.content
    assert "Content-Length" in _error_of(response)
    assert Test.objects.count() == before


def test_check_tree_is_iterative_and_names_the_place() -> None:
    deep: Any = "x"
    for _ in range(50_000):
        deep = [deep]
    with pytest.raises(Exception, match="nested deeper"):
        check_tree(deep)
    with pytest.raises(Exception, match=r"a\.b\.1: must not contain NUL"):
        check_tree({"a": {"b": ["ok", "n\x00"]}})
    assert loads_checked(b'{"a": [1, 2.5, "\\u00e9"]}') == {"a": [1, 2.5, "é"]}
    with pytest.raises(Exception, match="parse error"):
        loads_checked(b'{"a": NaN}')


# `²` passes str.isdigit() and fails int(); `٣` (Arabic-Indic three) passes both: neither is an id, a time or a size.
@pytest.mark.parametrize("digit", ["²", "٣"])
@pytest.mark.parametrize(
    ("path", "answers"),
    [
        ("/api/v1/tests/?search={d}", {200}),  # a search for the text (no test's id)
        ("/api/v1/tests/?since={d}", {400}),
        ("/api/v1/live?tests={d}", {400}),
        ("/api/v1/compare?tests={d},1", {400}),
    ],
)
def test_digits_of_other_scripts_are_no_numbers(
    owner_client: tuple[Client, Test], digit: str, path: str, answers: set[int]
) -> None:
    client, _test = owner_client
    response = client.get(path.format(d=digit))
    assert response.status_code in answers, (path, digit, response.status_code, response.content[:300])


@pytest.mark.parametrize("digit", ["²", "٣"])
def test_an_upload_piece_naming_its_upload_in_other_digits_is_a_400(
    owner_client: tuple[Client, Test], digit: str
) -> None:
    client, test = owner_client
    response = client.generic(
        "PUT",
        f"/api/v1/tests/{test.pk}/results?upload={digit}",
        b"x" * 10,
        content_type="application/octet-stream",
        HTTP_CONTENT_RANGE="bytes 5-14/100",
    )
    assert response.status_code == 400, response.content
    assert "upload" in _error_of(response)
