"""The generator's instances read off the tank's config (backend/tankapi/config_instances.py)."""

from __future__ import annotations

import pytest

from backend.tankapi.config_instances import configured_instances

PHANTOM = """
phantom:
  enabled: true
  package: yandextank.plugins.Phantom
  instances: 30
  multi:
  - address: other:80
    instances: 10
bfg:
  enabled: false
  package: yandextank.plugins.Bfg
  instances: 4
"""
PANDORA = """
pandora:
  enabled: true
  package: yandextank.plugins.Pandora
  config_content:
    pools:
    - id: HTTP pool
      startup: {type: once, times: 200}
    - id: second
      startup:
      - {type: once, times: 50}
"""


@pytest.mark.parametrize(
    ("text", "instances"),
    [
        (PHANTOM, 40),  # the disabled BFG section does not count
        ("bfg: {enabled: true, package: yandextank.plugins.Bfg, instances: '4'}", 4),
        ("phantom: {enabled: true, package: yandextank.plugins.Phantom}", 1000),  # phantom's default
        (PANDORA, 250),
        ("core: {}", None),
        ("", None),
        ("bfg: [unclosed", None),
        ("- a list", None),
        ("bfg: {enabled: true, package: yandextank.plugins.Bfg, instances: true}", None),
    ],
)
def test_instances_of_the_enabled_generators(text: str, instances: int | None) -> None:
    assert configured_instances(text) == instances
