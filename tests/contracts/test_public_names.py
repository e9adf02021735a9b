"""No public name means two things: across every module of the package (``yahtzee_sim.*``,
``yahtzee_sim.strategies.*``, ``yahtzee_sim.analysis.*``), a public name is defined by one
module only. A module's public names are its ``__all__``, or, without one, the classes and
functions it defines whose names do not start with ``_``. Re-exports of the same object
are one definition; the check is shown failing on two modules defining one name."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import types
from collections import defaultdict
from collections.abc import Iterable

import yahtzee_sim
import yahtzee_sim.analysis
import yahtzee_sim.strategies

#: The packages whose modules are checked (the two subpackages live in folders of their own).
PACKAGES = (yahtzee_sim, yahtzee_sim.strategies, yahtzee_sim.analysis)


def package_modules() -> list[types.ModuleType]:
    """Every module of :data:`PACKAGES`, imported (``__main__`` modules left out: importing
    one runs the command line)."""
    names = {package.__name__ for package in PACKAGES}
    for package in PACKAGES:
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if info.name.rpartition(".")[2] != "__main__":
                names.add(info.name)
    return [importlib.import_module(name) for name in sorted(names)]


def public_names(module: types.ModuleType) -> dict[str, object]:
    """The public names of ``module`` and their objects: its ``__all__``, or the classes
    and functions it defines itself."""
    listed = getattr(module, "__all__", None)
    if listed is not None:
        return {name: getattr(module, name) for name in listed}
    return {
        name: obj
        for name, obj in vars(module).items()
        if not name.startswith("_")
        and (inspect.isclass(obj) or inspect.isfunction(obj))
        and obj.__module__ == module.__name__
    }


def definition(obj: object) -> tuple:
    """What makes two public objects one definition: a class's or a function's module and
    qualified name, any other object's identity (a constant re-exported is one object)."""
    if inspect.isclass(obj) or inspect.isfunction(obj):
        return (obj.__module__, obj.__qualname__)
    return ("object", id(obj))


def ambiguous_names(modules: Iterable[types.ModuleType]) -> dict[str, list[str]]:
    """Each public name with more than one definition, and the modules defining it (a
    class's or a function's own module; for another object, the first module listing it)."""
    where: dict[str, dict[tuple, str]] = defaultdict(dict)
    for module in modules:
        for name, obj in public_names(module).items():
            key = definition(obj)
            where[name].setdefault(key, key[0] if key[0] != "object" else module.__name__)
    return {name: sorted(homes.values()) for name, homes in where.items() if len(homes) > 1}


def test_every_module_of_the_package_is_collected():
    names = {m.__name__ for m in package_modules()}
    for expected in (
        "yahtzee_sim",
        "yahtzee_sim.multiplayer.win_probability",
        "yahtzee_sim.strategies.win_seeking_blind",
        "yahtzee_sim.strategies.win_seeking_visible",
        "yahtzee_sim.analysis.headtohead",
    ):
        assert expected in names


def test_no_public_name_is_defined_by_two_modules():
    found = ambiguous_names(package_modules())
    assert not found, "public names defined by more than one module: " + "; ".join(
        f"{name} in {', '.join(where)}" for name, where in sorted(found.items())
    )


def _module(name: str, source: str, all_: list[str] | None = None) -> types.ModuleType:
    module = types.ModuleType(name)
    exec(source, module.__dict__)  # defines its classes and functions with __module__ = name
    if all_ is not None:
        module.__all__ = all_
    return module


def test_a_name_defined_by_two_modules_is_found():
    strategy = _module("pkg.strategy", "class WinProbability:\n    pass\n")
    result = _module("pkg.result", "class WinProbability:\n    pass\n", ["WinProbability"])
    assert ambiguous_names([strategy, result]) == {"WinProbability": ["pkg.result", "pkg.strategy"]}


def test_a_re_export_of_the_same_object_is_one_definition():
    home = _module("pkg.home", "def win_probability():\n    pass\n\nLIMIT = object()\n")
    facade = types.ModuleType("pkg")
    facade.win_probability, facade.LIMIT = home.win_probability, home.LIMIT
    facade.__all__ = ["LIMIT", "win_probability"]
    home.__all__ = ["LIMIT", "win_probability"]
    assert ambiguous_names([home, facade]) == {}
    other = _module("pkg.other", "LIMIT = object()\n", ["LIMIT"])
    assert list(ambiguous_names([home, facade, other])) == ["LIMIT"]


def test_private_names_and_imported_names_are_not_public():
    module = _module(
        "pkg.mod", "from math import fsum\n\ndef _helper():\n    pass\n\ndef shown():\n    pass\n"
    )
    assert list(public_names(module)) == ["shown"]
