"""The layer order of the package is a contract: a module imports only from its own layer's
package or from the layers below it, never from above.

Every import counts: module-level and function-local ``import``/``from`` statements, and
import strings (``"yahtzee_sim.x.y"``, ``"yahtzee_sim.x.y:Name"``) a module hands to
``importlib``, a subprocess or the registry. The modules of one layer's packages do not
import each other when they share a layer (``analysis`` and ``learning``). No module imports
a private name (``_name``) from another module, and no module imports itself in a circle.
No layer below ``strategies`` names a built-in strategy by its id (``"optimal"``,
``"win-aware"``): what it needs of a strategy comes from its caller or the strategy's
declared capabilities.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Folder of each top-level package, as the installed package names it.
FOLDERS = {
    "yahtzee_sim": ROOT / "yahtzee_sim",
    "yahtzee_sim.strategies": ROOT / "strategies",
    "yahtzee_sim.analysis": ROOT / "analysis",
}
#: The layers, bottom to top; the packages of one layer are independent of each other.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("yahtzee_sim.errors", "yahtzee_sim._kernels", "yahtzee_sim._core"),
    ("yahtzee_sim.validation",),  # argument checks, raising the errors below
    ("yahtzee_sim.game",),
    ("yahtzee_sim.engine",),
    ("yahtzee_sim.solving",),
    ("yahtzee_sim.exact",),
    ("yahtzee_sim.multiplayer",),
    # what every strategy must satisfy; strategies written as functions or policies (both
    # re-exported by strategies)
    ("yahtzee_sim.checks", "yahtzee_sim.adapters"),
    ("yahtzee_sim.strategies",),
    ("yahtzee_sim.checks.rule_sets",),  # what every rule set must satisfy: plays strategies
    ("yahtzee_sim.analysis", "yahtzee_sim.learning"),
    ("yahtzee_sim.apps",),
    ("yahtzee_sim",),  # the facade: yahtzee_sim/__init__.py re-exports the public API
    ("yahtzee_sim.cli",),
    ("yahtzee_sim.__main__",),
)
IMPORT_STRING = re.compile(r"^(yahtzee_sim(?:\.\w+)+)(?::[\w.]+)?$")


def modules() -> dict[str, tuple[Path, str]]:
    """Every module by dotted name: its path and its source."""
    out = {}
    for package, folder in FOLDERS.items():
        for path in folder.rglob("*.py"):
            parts = path.relative_to(folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join((package, *parts))] = (path, path.read_text())
        for path in folder.rglob("*.pyx"):  # compiled modules: known by name (their cimports
            parts = path.relative_to(folder).with_suffix("").parts  # are C, not imports)
            out[".".join((package, *parts))] = (path, "")
    return out


def package_of(module: str) -> str:
    """The layer package a module belongs to (the longest listed prefix)."""
    best = ""
    for layer in LAYERS:
        for package in layer:
            if (module == package or module.startswith(package + ".")) and len(package) > len(best):
                best = package
    if not best:
        raise AssertionError(f"module {module} is in no layer: add its package to LAYERS")
    return best


def layer_of(package: str) -> int:
    return next(i for i, layer in enumerate(LAYERS) if package in layer)


def imports(name: str, path: Path, source: str, known) -> list[tuple[str, str, int]]:
    """``(imported module, imported name, line)`` of every import of a module, the
    function-local ones and the import strings included."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, *([node.module] if node.module else [])])
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in known:  # a module: private when its own name is
                    private = alias.name if alias.name.startswith("_") else ""
                    found.append((sub, private, node.lineno))
                else:
                    found.append((base, alias.name, node.lineno))
        elif isinstance(node, ast.Import):
            found.extend((alias.name, "", node.lineno) for alias in node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            match = IMPORT_STRING.match(node.value.strip())
            if match:
                found.append((match.group(1), "", node.lineno))
    return [(m, n, line) for m, n, line in found if m.split(".")[0] == "yahtzee_sim"]


def resolve(target: str, known) -> str:
    """The module of a dotted import target (``pkg.mod.Name`` → ``pkg.mod``)."""
    while target not in known and "." in target:
        target = target.rpartition(".")[0]
    return target


def violations(sources: dict[str, tuple[Path, str]]) -> list[str]:
    """Every import against the contract, one line each."""
    out = []
    for name, (path, source) in sorted(sources.items()):
        own = package_of(name)
        for target, imported, line in imports(name, path, source, sources):
            module = resolve(target, sources)
            where = f"{path.relative_to(ROOT)}:{line}"
            if imported.startswith("_") and not imported.startswith("__") and module != name:
                what = module if module.endswith("." + imported) else f"{module}.{imported}"
                out.append(f"{where}: {name} imports the private name {what}")
            if module == name:
                continue
            theirs = package_of(module)
            if theirs == own:
                continue
            if layer_of(theirs) > layer_of(own):
                out.append(
                    f"{where}: {own} (layer {layer_of(own)}) imports {module} (layer "
                    f"{layer_of(theirs)}) above it"
                )
            elif layer_of(theirs) == layer_of(own):
                out.append(f"{where}: {own} imports {module} of the same layer")
    return out


def circles(sources: dict[str, tuple[Path, str]]) -> list[list[str]]:
    """Strongly connected groups of two or more modules (Tarjan's algorithm)."""
    graph = {
        name: {resolve(t, sources) for t, _, _ in imports(name, p, s, sources)}
        & sources.keys() - {name}
        for name, (p, s) in sources.items()
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

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
                found.append(sorted(group))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def built_in_ids() -> set[str]:
    """Every built-in strategy id, versioned (``greedy-v1``) and bare (``greedy``)."""
    from yahtzee_sim.strategies.builtin import BUILT_IN

    return set(BUILT_IN) | {key.rpartition("-v")[0] for key in BUILT_IN}


def _table_kinds(tree: ast.AST) -> set[int]:
    """The string nodes naming a kind of table cache (``TableCache("target")``,
    ``table_cache("target")``: a file name prefix, not a strategy)."""
    kinds = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in ("TableCache", "table_cache"):
                kinds.add(id(node.args[0]))
    return kinds


def strategy_ids_named(sources: dict[str, tuple[Path, str]], ids: set[str]) -> list[str]:
    """Every string literal that is a built-in strategy id in a module of a layer below
    ``yahtzee_sim.strategies``, one line each."""
    strategies = layer_of("yahtzee_sim.strategies")
    out = []
    for name, (path, source) in sorted(sources.items()):
        if layer_of(package_of(name)) >= strategies:
            continue
        tree = ast.parse(source)
        kinds = _table_kinds(tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and node.value in ids
                and id(node) not in kinds
            ):
                out.append(
                    f"{path.relative_to(ROOT)}:{node.lineno}: {package_of(name)} names the "
                    f"strategy {node.value!r} (layer {layer_of(package_of(name))}, below "
                    f"strategies)"
                )
    return out


def test_every_import_goes_down_the_layers():
    assert violations(modules()) == []


def test_no_module_imports_itself_in_a_circle():
    # a package's own __init__ re-exporting its modules is not a circle of logic
    sources = modules()
    groups = circles(sources)
    assert groups == [], groups


def test_every_module_is_in_a_layer():
    for name in modules():
        package_of(name)  # raises for a module outside every layer


@pytest.mark.parametrize(
    ("module", "source", "expected"),
    [
        # a function-local import of a strategy from the engine
        (
            "yahtzee_sim.engine.injected",
            "def f():\n    from yahtzee_sim.strategies.greedy import Greedy\n",
            "yahtzee_sim.engine (layer 3) imports yahtzee_sim.strategies.greedy (layer 8)",
        ),
        # an import string handed to importlib from the game layer
        (
            "yahtzee_sim.game.injected",
            "import importlib\nM = importlib.import_module('yahtzee_sim.analysis.report.build')\n",
            "yahtzee_sim.game (layer 2) imports yahtzee_sim.analysis.report.build (layer 10)",
        ),
        # an entry-point string naming a strategy, in the solvers
        (
            "yahtzee_sim.solving.injected",
            "ENTRY = 'yahtzee_sim.strategies.optimal:Optimal'\n",
            "yahtzee_sim.solving (layer 4) imports yahtzee_sim.strategies.optimal (layer 8)",
        ),
        # the facade, from a strategy
        (
            "yahtzee_sim.strategies.injected",
            "from yahtzee_sim import simulate\n",
            "yahtzee_sim.strategies (layer 8) imports yahtzee_sim (layer 12)",
        ),
        # two packages of one layer
        (
            "yahtzee_sim.learning.injected",
            "import yahtzee_sim.analysis.ranking.stats\n",
            "yahtzee_sim.learning imports yahtzee_sim.analysis.ranking.stats of the same layer",
        ),
        # a private module of another package
        (
            "yahtzee_sim.cli.injected",
            "from yahtzee_sim.engine import _private_module\n",
            "imports the private name yahtzee_sim.engine._private_module",
        ),
        # a private name of another module
        (
            "yahtzee_sim.exact.injected",
            "from yahtzee_sim.exact.laws import _private_helper\n",
            "imports the private name yahtzee_sim.exact.laws._private_helper",
        ),
    ],
)
def test_an_injected_back_import_is_caught(module, source, expected):
    sources = modules()
    folder = FOLDERS["yahtzee_sim"]
    path = folder.joinpath(*module.split(".")[1:]).with_suffix(".py")
    sources[module] = (path, source)
    found = violations(sources)
    assert any(expected in line for line in found), found


def test_no_layer_below_strategies_names_a_strategy():
    assert strategy_ids_named(modules(), built_in_ids()) == []


@pytest.mark.parametrize(
    ("module", "source", "expected"),
    [
        # a table of decision keys by strategy id, in the exact layer
        (
            "yahtzee_sim.exact.injected",
            "DEFAULT_MODES = {'optimal': 'state', 'win-aware': 'match'}\n",
            "yahtzee_sim.exact names the strategy 'optimal' (layer 5, below strategies)",
        ),
        # a default strategy, in the multiplayer layer
        (
            "yahtzee_sim.multiplayer.injected",
            "def win_probability(cards, strategy='win-aware'):\n    return strategy\n",
            "yahtzee_sim.multiplayer names the strategy 'win-aware'",
        ),
        # a versioned id handed to the registry, in the engine
        (
            "yahtzee_sim.engine.injected",
            "def f(get):\n    return get('greedy-v1')\n",
            "yahtzee_sim.engine names the strategy 'greedy-v1'",
        ),
    ],
)
def test_an_injected_strategy_id_is_caught(module, source, expected):
    sources = modules()
    path = FOLDERS["yahtzee_sim"].joinpath(*module.split(".")[1:]).with_suffix(".py")
    sources[module] = (path, source)
    found = strategy_ids_named(sources, built_in_ids())
    assert any(expected in line for line in found), found


def test_strategy_ids_are_free_above_strategies_and_as_table_kinds():
    sources = modules()
    injected = {
        "yahtzee_sim.strategies.injected": "DEFAULT = 'optimal'\n",
        "yahtzee_sim.cli.injected": "DEFAULT = 'win-aware'\n",
        "yahtzee_sim.solving.injected": "TABLES = cache.TableCache('target', max_entries=2)\n",
    }
    for module, source in injected.items():
        path = FOLDERS["yahtzee_sim"].joinpath(*module.split(".")[1:]).with_suffix(".py")
        sources[module] = (path, source)
    found = strategy_ids_named(sources, built_in_ids())
    assert not [line for line in found if "injected" in line], found


def test_an_injected_circle_is_caught():
    sources = modules()
    path = FOLDERS["yahtzee_sim"] / "game" / "rules.py"
    sources["yahtzee_sim.game.rules"] = (
        path,
        sources["yahtzee_sim.game.rules"][1] + "\nimport yahtzee_sim.game.state\n",
    )
    assert any("yahtzee_sim.game.rules" in group for group in circles(sources))
