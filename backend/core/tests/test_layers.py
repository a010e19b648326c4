"""The backend's apps stand in layers, and every import between two apps goes down a layer or sideways in its own.

The layers, bottom up (docs/ARCHITECTURE.md draws them):

- base: what every app stands on: the models and their facts (`loadtests`, `projects`), access (`permissions.py`),
  the ClickHouse door, shared definitions (`core`), accounts, and the live channel the tank stream publishes into
  and the pages watch (`live`).
- ingest: data coming in: the tank stream (`tankapi`) and uploads.
- read: what the pages and the API show of the data: reports, comparisons, chat unfurls, the web pages.
- analysis and follow-up: what runs after the data landed and judges or acts on it: diagnosis, regressions,
  notifications, retention. What follows a stage is queued through backend/core/pipeline.py, so the chain
  ingest → report → diagnosis → notify needs no import upward.

`backend/fastpaths` is a room by kind (the tricks on libraries' internals), not a layer: each of its modules is a
unit of its own, in the layer of the code it serves; every other unit is an app. The modules directly under
`backend/` (settings, urls, asgi, celery_app, warm, testing) are the project's shell, not an app, and are not
checked; nor are tests directories.

The rule has no exceptions: an import up a layer fails, and so does a cycle among the apps of one layer (sideways
imports that loop make two apps one). Imports under `if TYPE_CHECKING:` do not count (the graph is the one the
cycle test reads, backend/core/tests/test_import_cycles.py).
"""

from __future__ import annotations

from backend.core.tests.test_import_cycles import ROOT, cycles, import_graph

BASE, INGEST, READ, ANALYSIS = "base", "ingest", "read", "analysis and follow-up"
ORDER = (BASE, INGEST, READ, ANALYSIS)

LAYERS: dict[str, str] = {
    "backend.core": BASE,
    "backend.clickhouse": BASE,
    "backend.projects": BASE,
    "backend.loadtests": BASE,
    "backend.accounts": BASE,
    "backend.live": BASE,
    "backend.fastpaths.driver_internals": BASE,  # the ClickHouse door's native insert
    "backend.fastpaths.live_direct": BASE,  # the live channel's writes to its watchers
    "backend.tankapi": INGEST,
    "backend.uploads": INGEST,
    "backend.fastpaths.asgi_door": INGEST,  # the tank stream's (and the live channel's) door on the event loop
    "backend.fastpaths.buffer_async": INGEST,
    "backend.fastpaths.socket_body": INGEST,
    "backend.fastpaths.direct_io": INGEST,
    "backend.fastpaths.memory": INGEST,
    "backend.reports": READ,
    "backend.compare": READ,
    "backend.sharing": READ,
    "backend.web": READ,
    "backend.fastpaths.shared_answers": READ,  # the reports' cached answers, served before Django
    "backend.diagnosis": ANALYSIS,
    "backend.regressions": ANALYSIS,
    "backend.notify": ANALYSIS,
    "backend.retention": ANALYSIS,
}

ROOM = "fastpaths"  # the package whose modules are units of their own


def unit_of(module: str) -> str | None:
    """The app (or fastpaths module) a module belongs to; None for the project's shell and for other packages."""
    parts = module.split(".")
    if parts[0] != "backend" or len(parts) < 2 or not (ROOT / "backend" / parts[1]).is_dir():
        return None  # analytics, the CLI, or a module directly under backend/
    if parts[1] == ROOM:
        return ".".join(parts[:3]) if len(parts) > 2 else None
    return ".".join(parts[:2])


def unit_graph(graph: dict[str, set[str]]) -> dict[str, dict[str, set[str]]]:
    """Unit -> unit it imports -> the module edges behind it (tests directories left out)."""
    units: dict[str, dict[str, set[str]]] = {}
    for module, targets in graph.items():
        if "tests" in module.split("."):
            continue
        here = unit_of(module)
        if here is None:
            continue
        units.setdefault(here, {})
        for target in targets:
            there = unit_of(target)
            if there is not None and there != here and "tests" not in target.split("."):
                units[here].setdefault(there, set()).add(f"{module} -> {target}")
    return units


def _deepest(edges: set[str]) -> str:
    """The edge that names the modules (an import of `a.b.c` is also an edge to the packages `a.b` and `a`)."""
    return sorted(edges, key=lambda edge: (-len(edge), edge))[0]


def violations(units: dict[str, dict[str, set[str]]], layers: dict[str, str]) -> list[str]:
    """Every import up a layer, every unit without a layer, and every cycle among units, described."""
    found: list[str] = []
    for unit in sorted(units):
        if unit not in layers:
            found.append(f"{unit} has no layer: place it in LAYERS")
            continue
        for target, edges in sorted(units[unit].items()):
            if target not in layers:
                continue
            if ORDER.index(layers[target]) > ORDER.index(layers[unit]):
                found.append(
                    f"{unit} ({layers[unit]}) imports {target} ({layers[target]}), a layer up: {_deepest(edges)}"
                    + (f" (+{len(edges) - 1})" if len(edges) > 1 else "")
                )
    for component in cycles({unit: set(targets) for unit, targets in units.items()}):
        found.append("apps import each other: " + ", ".join(component))
    return found


def test_the_rule_sees_an_import_up_a_cycle_and_an_app_without_a_layer() -> None:
    layers = {"backend.a": BASE, "backend.b": BASE, "backend.c": READ, "backend.d": INGEST}
    units: dict[str, dict[str, set[str]]] = {
        "backend.a": {"backend.c": {"backend.a.x -> backend.c.y"}, "backend.b": {"backend.a.x -> backend.b"}},
        "backend.b": {"backend.a": {"backend.b.z -> backend.a.x"}},
        "backend.c": {"backend.d": {"backend.c.y -> backend.d"}},
        "backend.d": {},
        "backend.e": {"backend.a": {"backend.e -> backend.a"}},
    }
    assert violations(units, layers) == [
        "backend.a (base) imports backend.c (read), a layer up: backend.a.x -> backend.c.y",
        "backend.e has no layer: place it in LAYERS",
        "apps import each other: backend.a, backend.b",
    ]


def test_a_fastpaths_module_is_its_own_unit_and_the_shell_none() -> None:
    assert unit_of("backend.fastpaths.asgi_door") == "backend.fastpaths.asgi_door"
    assert unit_of("backend.reports.views") == "backend.reports"
    assert unit_of("backend.fastpaths") is None
    assert unit_of("backend.settings") is None
    assert unit_of("analytics.compare") is None


def test_every_import_between_apps_goes_down_or_sideways() -> None:
    units = unit_graph(import_graph())
    assert {"backend.reports", "backend.tankapi", "backend.notify"} <= set(units)  # the walk found the apps
    found = violations(units, LAYERS)
    assert not found, "the layers are broken:\n" + "\n".join(found)
    assert not set(LAYERS) - set(units), f"LAYERS names units that do not exist: {sorted(set(LAYERS) - set(units))}"
