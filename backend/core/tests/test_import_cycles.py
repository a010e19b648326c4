"""No import cycles among the project's own modules (`analytics`, `backend`, `tankodrom_cli`).

The graph is read from the source with `ast`: an edge for each `import`/`from ... import` of a project module,
at module level or inside a function (an import moved into a function still makes the two modules depend on each
other: it only hides the cycle from the interpreter); imports under `if TYPE_CHECKING:` are not edges.
`from package import name` is an edge to `package.name` when that is a module, else to the package. A package's
`__init__` is imported before any of its modules, so an edge to `a.b.c` is also an edge to `a.b` and `a`. Each
strongly connected component of more than one module is a cycle.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PACKAGES = ("analytics", "backend", "tankodrom_cli")

# Cycles other branches are breaking in parallel; the lead removes these at the merge. Each entry is the sorted
# modules of one strongly connected component.
KNOWN: dict[tuple[str, ...], str] = {}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if ".venv" in path.parts or "node_modules" in path.parts:
                continue
            found[_module_name(path)] = path
    return found


def _imports(tree: ast.Module) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import of the module, at module level or inside a function, except under `if TYPE_CHECKING:`."""
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
            continue
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            pending.extend(node.orelse)
            continue
        pending.extend(ast.iter_child_nodes(node))


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _with_parents(name: str, modules: dict[str, Path]) -> list[str]:
    parts = name.split(".")
    return [p for p in (".".join(parts[:i]) for i in range(1, len(parts) + 1)) if p in modules]


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in _imports(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = node.module or ""
                if node.level:
                    here = name.split(".") if is_package else name.split(".")[:-1]
                    here = here[: len(here) - (node.level - 1)]
                    base = ".".join([*here, base] if base else here)
                for alias in node.names:
                    full = f"{base}.{alias.name}"
                    targets.append(full if full in modules else base)
            for target in targets:
                for module in _with_parents(target, modules):
                    if module != name and not name.startswith(module + "."):
                        graph[name].add(module)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[tuple[str, ...]]:
    """Strongly connected components with more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[tuple[str, ...]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(tuple(sorted(component)))
    return sorted(found)


def _describe(component: tuple[str, ...], graph: dict[str, set[str]]) -> str:
    members = set(component)
    edges = [f"{a} -> {b}" for a in component for b in sorted(graph[a] & members)]
    return f"{', '.join(component)}\n    " + "\n    ".join(edges)


def test_the_finder_sees_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(graph) == [("a", "b", "c")]


def test_an_import_inside_a_function_is_an_edge_and_type_checking_is_not() -> None:
    tree = ast.parse("import backend.a\nif TYPE_CHECKING:\n    import backend.b\ndef f():\n    from backend import c\n")
    assert sorted(alias.name for node in _imports(tree) for alias in node.names) == ["backend.a", "c"]


def test_no_import_cycles() -> None:
    graph = import_graph()
    assert len(graph) > 100  # the walk found the packages
    found = cycles(graph)
    unexpected = [c for c in found if c not in KNOWN]
    assert not unexpected, "import cycles:\n" + "\n".join(_describe(c, graph) for c in unexpected)
    stale = [c for c in KNOWN if c not in found]
    assert not stale, f"cycles listed as known no longer exist, remove them from KNOWN: {stale}"
