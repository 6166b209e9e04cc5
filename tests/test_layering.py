"""The house's layering, read from the code's own imports: nothing runs back up, nothing circles.

The packages stand in floors; a package imports only packages on floors below its own (the
testbed imports only the shared file and provenance helpers; the CLI sits on top and calls
everything):

    harness_cli              the `harness` command
    harness | leaderboards   the round loop | the boards (neither imports the other)
    run_records              the record contract both of them rely on
    designers
    tasks                    what is learned and judged, behind one interface
    mapf_env                 the first task's domain: the testbed
    envdesign_common         atomic files and provenance, which the testbed writes with too

Every import counts, the ones inside functions (optional SDKs) and under `TYPE_CHECKING`
included: a lazy import that runs back up is still a dependency, only a later one. Within the
floors no two modules import each other, directly or round a longer circle; a name imported
from a package is followed to the module that defines it, so importing a package's public API
from inside it is no circle.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FLOORS: dict[str, int] = {
    "envdesign_common": 0,
    "mapf_env": 1,
    "tasks": 2,
    "designers": 3,
    "run_records": 4,
    "harness": 5,
    "leaderboards": 5,
    "harness_cli": 6,
}


@dataclass(frozen=True)
class Import:
    """One imported name (or whole module) at one line of one module."""

    module: str
    target: str
    name: str | None
    line: int


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {
        module_name(path): path
        for package in FLOORS
        for path in sorted((ROOT / package).rglob("*.py"))
    }


MODULES = modules()


@cache
def imports_of(module: str, path: Path) -> tuple[Import, ...]:
    found: list[Import] = []
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.append(Import(module, alias.name, None, node.lineno))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                found.append(Import(module, base, alias.name, node.lineno))
    return tuple(found)


def top(name: str) -> str:
    return name.split(".")[0]


def test_the_floors_cover_every_package() -> None:
    packages = {p.parent.name for p in ROOT.glob("*/__init__.py")} - {"tests", "benchmarks"}
    assert packages == set(FLOORS), "give every top-level package its floor in FLOORS"


def test_no_import_runs_back_up() -> None:
    wrong = dict.fromkeys(
        f"{MODULES[i.module].relative_to(ROOT)}:{i.line} imports {i.target} "
        f"(floor {FLOORS[top(i.target)]}) from floor {FLOORS[top(i.module)]}"
        for module, path in MODULES.items()
        for i in imports_of(module, path)
        if top(i.target) in FLOORS
        and top(i.target) != top(module)
        and FLOORS[top(i.target)] >= FLOORS[top(module)]
    )  # one line per import statement, however many names it takes
    assert not wrong, "\n".join(wrong)


def defining_module(target: str, name: str | None, seen: frozenset[str] = frozenset()) -> str:
    """The module a name really comes from: a submodule, or through a package's re-export."""
    if name is not None and f"{target}.{name}" in MODULES:
        return f"{target}.{name}"
    if name is None or target not in MODULES or target in seen:
        return target
    for i in imports_of(target, MODULES[target]):
        if i.name == name and i.target in MODULES and top(i.target) == top(target):
            return defining_module(i.target, name, seen | {target})
    return target


def import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {module: set() for module in MODULES}
    for module, path in MODULES.items():
        for i in imports_of(module, path):
            if i.target in MODULES or top(i.target) in FLOORS:
                found = defining_module(i.target, i.name)
                if found in MODULES and found != module:
                    graph[module].add(found)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_modules_import_each_other() -> None:
    found = circles(import_graph())
    assert not found, "\n".join(" <-> ".join(c) for c in found)


@pytest.mark.parametrize(
    ("graph", "expected"),
    [
        ({"a": {"b"}, "b": {"a"}, "c": set()}, [["a", "b"]]),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, [["a", "b", "c"]]),
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
    ],
)
def test_circles_are_found(graph: dict[str, set[str]], expected: list[list[str]]) -> None:
    assert circles(graph) == expected


def test_an_upward_import_is_seen() -> None:
    lazy = [
        i for i in imports_of("harness.loop", MODULES["harness.loop"]) if i.target == "designers"
    ]
    assert lazy, "the scanner must see harness.loop's imports of designers"
    assert defining_module("designers", "Proposal") == "designers.proposal"
