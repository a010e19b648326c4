"""The one env reader: parsing rules, and every variable the code reads is documented in deploy/env.example."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from backend import env

ROOT = Path(__file__).resolve().parents[3]


def test_database_url_parts() -> None:
    parsed = env.parse_database_url("postgres://u:p%40ss@db.example:6543/results")
    assert (parsed.host, parsed.port, parsed.user, parsed.password, parsed.name) == (
        "db.example",
        6543,
        "u",
        "p@ss",
        "results",
    )


def test_database_url_rejects_other_schemes() -> None:
    with pytest.raises(ValueError, match="postgres://"):
        env.parse_database_url("mysql://root@localhost/x")


def test_empty_values_fall_back_to_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TDM_X", "")
    assert env.get_str("TDM_X", "dflt") == "dflt"
    assert env.get_int("TDM_X", 7) == 7
    assert env.get_bool("TDM_X", True) is True
    assert env.get_list("TDM_X", ["a"]) == ["a"]


def test_bad_values_name_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TDM_FLAG", "maybe")
    with pytest.raises(ValueError, match="TDM_FLAG"):
        env.get_bool("TDM_FLAG", False)
    monkeypatch.setenv("TDM_N", "ten")
    with pytest.raises(ValueError, match="TDM_N"):
        env.get_int("TDM_N", 1)


def test_every_variable_read_is_documented() -> None:
    documented = set(re.findall(r"^([A-Z][A-Z0-9_]+)=", (ROOT / "deploy" / "env.example").read_text(), re.M))
    read: set[str] = set()
    sources = [*ROOT.joinpath("backend").rglob("*.py"), ROOT / "deploy" / "gunicorn.conf.py"]
    for path in sources:
        if "tests" in path.parts:
            continue
        read |= set(re.findall(r"env\.get_(?:str|int|bool|list)\(\s*\"([A-Z][A-Z0-9_]+)\"", path.read_text()))
    assert read, "no variables found: the pattern above no longer matches the code"
    assert read - documented == set(), "add these to deploy/env.example"
