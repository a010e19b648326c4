"""Example URLs for every URL pattern, walked from the resolver: tests that must cover every endpoint use these, so
that an endpoint added later is covered without anyone remembering to list it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from django.urls import URLPattern, URLResolver
from django.urls.resolvers import RegexPattern, RoutePattern

# Values for the other path parameters.
OTHER_VALUES = {"name": ["quantiles", "configinitial"], "upload_id": ["1"]}


def walk(patterns: list[URLPattern | URLResolver], prefix: str = "") -> Iterator[tuple[str, URLPattern]]:
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            if str(pattern.pattern).startswith("admin/"):
                continue  # staff only: everyone else is sent to the login page before any lookup
            yield from walk(pattern.url_patterns, prefix + _regex_of(pattern.pattern))
        else:
            yield prefix + _regex_of(pattern.pattern), pattern


def _regex_of(pattern: Any) -> str:
    if isinstance(pattern, RoutePattern):
        return pattern.regex.pattern
    assert isinstance(pattern, RegexPattern)
    return pattern.regex.pattern


def _first_alternative(group: str) -> str:
    depth = 0
    for i, char in enumerate(group):
        depth += char == "("
        depth -= char == ")"
        if char == "|" and depth == 0:
            return group[:i]
    return group


def example_path(regex: str, values: dict[str, str]) -> str | None:
    """A path matched by `regex`, with `values` for its named groups; None when a group has no fitting value."""
    text = re.sub(r"(\\Z|\$)", "", regex.replace("^^", "").removeprefix("^"))
    missing: list[str] = []

    def named(match: re.Match[str]) -> str:
        name, body = match.group(1), match.group(2)
        # Any other id (a note, a target, a subscription) gets 1: the tests that use these care about the test id.
        fallback = ["1"] if name.endswith("_id") or name == "pk" else []
        for candidate in [values.get(name, ""), *OTHER_VALUES.get(name, []), *fallback]:
            if candidate and re.fullmatch(body, candidate):
                return candidate
        missing.append(name)
        return ""

    text = re.sub(r"\(\?P<(\w+)>((?:[^()]|\([^()]*\)(?:\{[^}]*\}|[+*?])?)*)\)", named, text)
    text = re.sub(r"\(\?:([^()]*)\)", lambda m: _first_alternative(m.group(1)), text)
    text = text.replace("/?", "/").replace("\\.", ".").replace("\\-", "-")
    text = re.sub(r"\[\^/\]\+", "x", text).replace("^", "")
    return None if missing else "/" + text
