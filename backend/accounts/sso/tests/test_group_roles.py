"""The group-to-role mapping's syntax and choice (pure)."""

from __future__ import annotations

import pytest

from backend.accounts.sso.group_roles import GroupRole, normalize_group, parse, roles_for

EXAMPLE = "perf-team=payments:maintainer; cn=qa,ou=groups,dc=example,dc=org=payments:viewer\n/ops=infra:admin;"


def test_parse_splits_at_the_last_equals_sign() -> None:
    assert parse(EXAMPLE) == (
        GroupRole("perf-team", "payments", "maintainer"),
        GroupRole("cn=qa,ou=groups,dc=example,dc=org", "payments", "viewer"),
        GroupRole("/ops", "infra", "admin"),
    )
    assert parse("  \n ; ") == ()


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("perf-team", "expected GROUP=PROJECT:ROLE"),
        ("perf-team=payments", "expected GROUP=PROJECT:ROLE"),
        ("=payments:viewer", "expected GROUP=PROJECT:ROLE"),
        ("perf-team=Payments:viewer", "is not a project slug"),
        ("perf-team=payments:owner", "the role must be one of"),
    ],
)
def test_a_wrong_entry_is_named(text: str, named: str) -> None:
    with pytest.raises(ValueError, match=named) as raised:
        parse(f"ok=payments:viewer;{text}")
    assert repr(text) in str(raised.value)


def test_the_highest_role_per_project_counts_and_dns_match_in_any_spelling() -> None:
    rules = parse(EXAMPLE)
    chosen = roles_for(rules, ["CN=QA, OU=Groups,DC=example,DC=org", "perf-team", "unrelated"])
    assert chosen == {"payments": GroupRole("perf-team", "payments", "maintainer")}
    assert roles_for(rules, ["cn=qa,ou=groups,dc=example,dc=org"])["payments"].role == "viewer"
    assert roles_for(rules, ["Perf-Team", "/OPS"]) == {}  # claim values match exactly
    assert normalize_group(" cn = a , dc = B ") == "cn=a,dc=b"
