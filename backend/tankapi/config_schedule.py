"""The load schedule the tank's config gave its generator, read off the config it uploads, for a tank whose
create.json sent none: BFG (and anything using the default generator info) sends `loadscheme: []`
(tank-protocol.md §1.3), while its config holds `load_profile: {load_type: rps, schedule: "line(1, 20, 8s) ..."}`.
The online pages' planned duration and the report's load scheme then come from it."""

from __future__ import annotations

from typing import Any

from backend.tankapi.config_instances import config_mapping

GENERATORS = ("yandextank.plugins.Bfg", "yandextank.plugins.Phantom")


def configured_schedule(text: str) -> str | None:
    """The `load_profile.schedule` of the config's one enabled BFG or Phantom generator (None: none, several, or
    not YAML)."""
    config = config_mapping(text)
    if config is None:
        return None
    found = [_schedule(section) for section in config.values() if _is_generator(section)]
    schedules = [schedule for schedule in found if schedule]
    return schedules[0] if len(schedules) == 1 else None


def _is_generator(section: Any) -> bool:
    return isinstance(section, dict) and section.get("enabled") is not False and section.get("package") in GENERATORS


def _schedule(section: dict[str, Any]) -> str | None:
    profile = section.get("load_profile")
    schedule = profile.get("schedule") if isinstance(profile, dict) else None
    return schedule.strip() if isinstance(schedule, str) and schedule.strip() else None
