"""How many instances the tank's config gave its generator, read off the config it uploads (configinfo).

The uploader's `edit.json` says `instances` from the generator's `get_info()`, which is the configured count for
phantom only: BFG sends 1 and Pandora 0 whatever they run with (tank-protocol.md §1.3). The config it sends as
`configinfo` (the effective config, every plugin with its `package` and `enabled`) has the real figure:
- Phantom (`yandextank.plugins.Phantom`): `instances` (1000 by default), plus each `multi` stream's;
- BFG (`yandextank.plugins.Bfg`): `instances`;
- Pandora (`yandextank.plugins.Pandora`): the sum over its pools of `startup` `{type: once, times: N}`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import yaml

from analytics.numbers import is_digits

# A config is a few KB; anything much larger is not one worth reading on a request's path.
MAX_CONFIG_BYTES = 1 << 20
PHANTOM_DEFAULT_INSTANCES = 1000


def _count(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and value > 0:
        return value
    if isinstance(value, str) and is_digits(value.strip()) and int(value) > 0:
        return int(value)
    return None


def _phantom(section: dict[str, Any]) -> int | None:
    total = _count(section.get("instances", PHANTOM_DEFAULT_INSTANCES)) or 0
    streams = section.get("multi")
    for stream in streams if isinstance(streams, list) else []:
        if isinstance(stream, dict):
            total += _count(stream.get("instances", PHANTOM_DEFAULT_INSTANCES)) or 0
    return total or None


def _pandora(section: dict[str, Any]) -> int | None:
    content = section.get("config_content")
    pools = content.get("pools") if isinstance(content, dict) else None
    total = 0
    for pool in pools if isinstance(pools, list) else []:
        startup = pool.get("startup") if isinstance(pool, dict) else None
        for step in startup if isinstance(startup, list) else [startup]:
            if isinstance(step, dict) and step.get("type") == "once":
                total += _count(step.get("times")) or 0
    return total or None


READERS = {
    "yandextank.plugins.Phantom": _phantom,
    "yandextank.plugins.Bfg": lambda section: _count(section.get("instances")),
    "yandextank.plugins.Pandora": _pandora,
}


def config_mapping(text: str) -> dict[Any, Any] | None:
    """The tank's config (YAML) as a mapping; None when it is empty, too large, not YAML or not a mapping."""
    if not text or len(text) > MAX_CONFIG_BYTES:
        return None
    try:
        config = yaml.safe_load(text)
    except yaml.YAMLError:
        return None
    return config if isinstance(config, dict) else None


def configured_instances(text: str) -> int | None:
    """The instances of the config's enabled generators, added up; None when it names none (or is not YAML)."""
    config = config_mapping(text)
    if config is None:
        return None
    found = [count for count in _generators(config.values()) if count is not None]
    return sum(found) if found else None


def _generators(sections: Iterable[Any]) -> Iterable[int | None]:
    for section in sections:
        if not isinstance(section, dict) or section.get("enabled") is False:
            continue
        reader = READERS.get(str(section.get("package", "")))
        if reader is not None:
            yield reader(section)
