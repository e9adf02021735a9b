"""The package's modules import each other without circles (module-level and
function-local imports both count): a module depends only on modules below it."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Folder of each package, as the installed package names them.
PACKAGES = {
    "yahtzee_sim": ROOT / "yahtzee_sim",
    "yahtzee_sim.strategies": ROOT / "strategies",
    "yahtzee_sim.analysis": ROOT / "analysis",
}
#: Subpackages built on the core (strategies, analysis).
PLUGINS = ("yahtzee_sim.strategies", "yahtzee_sim.analysis")


def modules() -> dict[str, Path]:
    """Every module of the package by dotted name."""
    out = {}
    for package, folder in PACKAGES.items():
        for path in folder.rglob("*.py"):
            parts = path.relative_to(folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join((package, *parts))] = path
    return out


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The package's modules that module ``name`` imports anywhere in its body."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, *([node.module] if node.module else [])])
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.add(sub if sub in known else base)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {m for m in found if m in known and m != name}


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of two or more modules (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while not group or group[-1] != v:
                group.append(stack.pop())
            if len(group) > 1:
                circles.append(sorted(group))

    for v in graph:
        if v not in index:
            visit(v)
    return circles


def package_graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def test_core_has_no_import_circles():
    core = {m: deps for m, deps in package_graph().items() if not m.startswith(PLUGINS)}
    assert import_circles({m: deps & core.keys() for m, deps in core.items()}) == []


def test_no_import_circles():
    assert import_circles(package_graph()) == []


def test_core_layers_import_downwards():
    graph = package_graph()
    assert "yahtzee_sim.game.state" not in graph["yahtzee_sim._kernels.scoring"]
    assert "yahtzee_sim.game.rules" not in graph["yahtzee_sim.game.dice"]


def test_circle_finder_finds_a_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert import_circles(graph) == [["a", "b", "c"]]
