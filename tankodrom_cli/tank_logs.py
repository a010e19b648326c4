"""`tankodrom import-tank-logs DIR`: years of yandex-tank artifacts (`logs/<date>/` run directories) as tests.

A run directory is one that holds a `phout*.log` (Phantom's) or a `bfgout*.log` (BFG's, the same format).
Each becomes one test: its name, description, component,
version, task, schedule and instances read from the configs the tank left there (2.x YAML: the `overload`,
`uploader` or `lunapark` section and `phantom`/`bfg`/`pandora`; 1.x INI: `[meta]`/`[overload]`/`[phantom]`), its
phout uploaded (exact report), its `monitoring.log` stored as its monitoring. A progress bar counts the runs.

Idempotent by content hash: the SHA-256 of the phout file names the run (`tank-run-<hash>`, a tag on its test),
and a run whose test already has its data is skipped, so the same tree imported twice (or a tree copied elsewhere)
creates no duplicates. Resumable: an interrupted import is run again; a run whose test exists without its data
is uploaded into that test.
"""

from __future__ import annotations

import configparser
import hashlib
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from tqdm import tqdm

from analytics.numbers import is_digits
from tankodrom_cli.transport import Api, FileRange

TAG_PREFIX = "tank-run-"
HASH_CHARS = 40  # of the SHA-256's hex: a tag holds 64 characters at most
CONFIG_NAMES = ("*.yaml", "*.yml", "*.ini", "*.cfg")
# Sections that carry the test's description, as the tank's uploader plugins named them over the years.
META_SECTIONS = ("overload", "uploader", "lunapark", "meta", "data_uploader")
GENERATOR_SECTIONS = ("phantom", "bfg", "pandora", "jmeter")
META_KEYS = {
    "name": ("job_name",),
    "description": ("job_dsc",),
    "component": ("component",),
    "version": ("ver", "version"),
    "task": ("task",),
}
READ_CHUNK = 1024 * 1024


class TankLogsError(Exception):
    pass


@dataclass
class Run:
    directory: Path
    phout: Path
    monitoring: Path | None
    digest: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def tag(self) -> str:
        return f"{TAG_PREFIX}{self.digest[:HASH_CHARS]}"


PHOUT_NAMES = ("phout*.log", "bfgout*.log")


def _phouts(directory: Path) -> list[Path]:
    return [p for name in PHOUT_NAMES for p in directory.glob(name) if p.is_file()]


def run_directories(root: Path) -> Iterator[Run]:
    """Every directory under `root` (itself included) with a phout file, in path order (the dates of logs/)."""
    found = {p.parent for name in PHOUT_NAMES for p in root.rglob(name) if p.is_file()}
    for directory in sorted(found):
        phouts = sorted(_phouts(directory), key=lambda p: p.stat().st_size, reverse=True)
        monitoring = directory / "monitoring.log"
        yield Run(directory, phouts[0], monitoring if monitoring.is_file() else None)


def content_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(READ_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _sections(path: Path) -> dict[str, dict[str, Any]]:
    """A config's sections as dicts; {} when the file is no config of the tank's."""
    text = path.read_text(errors="replace")
    if path.suffix in (".yaml", ".yml"):
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError:
            return {}
        return {str(k): v for k, v in data.items() if isinstance(v, dict)} if isinstance(data, dict) else {}
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return {}
    return {name: dict(parser[name]) for name in parser.sections()}


def _schedule(section: dict[str, Any]) -> str | None:
    profile = section.get("load_profile")
    if isinstance(profile, dict) and profile.get("schedule"):
        return str(profile["schedule"])
    for key in ("rps_schedule", "instances_schedule", "schedule"):
        if section.get(key):
            return str(section[key])
    return None


def read_meta(directory: Path) -> dict[str, Any]:
    """The test's fields from the run's configs (the fullest config wins: the tank leaves several copies)."""
    meta: dict[str, Any] = {}
    configs = sorted({p for pattern in CONFIG_NAMES for p in directory.glob(pattern)}, key=lambda p: p.stat().st_size)
    for path in configs:  # smallest first: the fullest (validated) config is read last and wins
        sections = _sections(path)
        for name in META_SECTIONS:
            section = sections.get(name)
            if not isinstance(section, dict):
                continue
            for field_name, keys in META_KEYS.items():
                for key in keys:
                    if section.get(key) not in (None, ""):
                        meta[field_name] = str(section[key])
                        break
        for name in GENERATOR_SECTIONS:
            section = sections.get(name)
            if not isinstance(section, dict) or str(section.get("enabled", "true")).lower() in ("false", "0"):
                continue
            schedule = _schedule(section)
            if schedule:
                meta["loadscheme"] = [schedule]
            instances = section.get("instances")
            if instances not in (None, "") and is_digits(str(instances)):
                meta["instances"] = int(str(instances))
    meta.setdefault("name", directory.name)
    return meta


def _existing(api: Api, tag: str) -> dict[str, Any] | None:
    response = api.call("GET", "/api/v1/tests/", params={"tag": tag})
    if response.status_code != 200:
        raise TankLogsError(f"could not look for {tag}: {response.error(200)}")
    body = response.json()
    results = body.get("results", body) if isinstance(body, dict) else body
    return results[0] if results else None


@dataclass
class Outcome:
    imported: int = 0
    skipped: int = 0
    failed: int = 0


def import_tree(
    api: Api,
    root: Path,
    upload: Callable[[int, Path], int],
    wait: Callable[[int, int], int],
    quiet: bool,
    say: Callable[[str], None],
) -> Outcome:
    """Import every run under `root`; `upload(test_id, path)` sends a file, `wait(test_id, upload_id)` waits for
    its ingestion (0: ready)."""
    runs = list(run_directories(root))
    if not runs:
        raise TankLogsError(f"no phout*.log or bfgout*.log under {root}: not a tank artifacts tree")
    outcome = Outcome()
    with tqdm(total=len(runs), unit="run", disable=quiet, file=sys.stderr) as bar:
        for run in runs:
            bar.set_description(run.directory.name[:30])
            try:
                done = _import_run(api, run, upload, wait)
            except TankLogsError as exc:
                outcome.failed += 1
                say(f"{run.directory}: {exc}")
            else:
                if done is None:
                    outcome.skipped += 1
                else:
                    outcome.imported += 1
                    say(f"{run.directory}: test {done} {api.server}/{done}")
            bar.update(1)
    return outcome


def _import_run(api: Api, run: Run, upload: Callable[[int, Path], int], wait: Callable[[int, int], int]) -> int | None:
    """The new test's id, or None when the run was imported before."""
    run.digest = content_digest(run.phout)
    found = _existing(api, run.tag)
    if found is not None and found.get("active_upload"):
        return None
    if found is not None:
        test_id = int(found["id"])  # created by an import that stopped before its data was in: finish it
    else:
        run.meta = read_meta(run.directory)
        body = {**run.meta, "tags": [run.tag]}
        response = api.call("POST", "/api/v1/tests/", json_body=body)
        if response.status_code != 201:
            raise TankLogsError(f"could not create the test: {response.error(200)}")
        test_id = int(response.json()["id"])
    if run.monitoring is not None and run.monitoring.stat().st_size > 0:
        with run.monitoring.open("rb") as f:
            body_range = FileRange(f, 0, run.monitoring.stat().st_size, lambda _n: None)
            response = api.call(
                "PUT",
                f"/api/v1/tests/{test_id}/monitoring-log",
                body=body_range,
                headers={"Content-Type": "application/x-ndjson"},
            )
        if response.status_code != 200:
            raise TankLogsError(f"monitoring.log refused: {response.error(200)}")
    upload_id = upload(test_id, run.phout)
    if wait(test_id, upload_id) != 0:
        raise TankLogsError(f"the phout of test {test_id} was not ingested (upload {upload_id})")
    return test_id
