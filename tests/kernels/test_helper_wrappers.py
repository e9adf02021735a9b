"""Kernel helpers compiled without a Python entry point are called from kernels only.

Numba calls a helper declared ``no_cpython_wrapper=True`` from compiled code as any
other, but a call from Python crashes the process instead of raising: no Python code of
the project may name one."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

from numba.core.registry import CPUDispatcher

import yahtzee_sim._kernels as kernels

ROOT = kernels.KERNEL_DIR.parents[1]
#: Folders whose Python code could call a kernel helper.
PYTHON_DIRS = ("yahtzee_sim", "strategies", "analysis", "tests", "benchmarks", "tools")


#: The packages whose modules hold kernels: ``_kernels/`` and the strategies' own.
KERNEL_PACKAGES = {
    "yahtzee_sim._kernels": kernels.KERNEL_DIR,
    "yahtzee_sim.strategies": ROOT / "strategies",
}


def wrapperless_helpers() -> dict[str, Path]:
    """Every kernel of ``_kernels/`` and of the strategies' modules declared without a
    Python entry point, by name."""
    found = {}
    for package, folder in KERNEL_PACKAGES.items():
        for path in sorted(folder.glob("*.py")):
            if path.stem != "__init__":  # imported again under that name: installed again
                found |= _wrapperless_in(f"{package}.{path.stem}", path)
    return found


def _wrapperless_in(module_name: str, path: Path) -> dict[str, Path]:
    """The kernels module ``module_name`` (file ``path``) declares without a Python entry
    point."""
    module = importlib.import_module(module_name)
    return {
        name: path
        for name, value in vars(module).items()
        if isinstance(value, CPUDispatcher)
        and value.py_func.__module__ == module.__name__
        and value.targetoptions.get("no_cpython_wrapper")
    }


def is_kernel(node: ast.AST) -> bool:
    """Whether ``node`` is a function compiled by ``@njit``."""
    return isinstance(node, ast.FunctionDef) and any(
        getattr(d.func if isinstance(d, ast.Call) else d, "id", "") == "njit"
        for d in node.decorator_list
    )


def is_docstring(node: ast.AST, parent: ast.AST) -> bool:
    """Whether ``node`` is the docstring of ``parent`` (a module, class or function)."""
    body = getattr(parent, "body", None)
    return (
        isinstance(body, list)
        and bool(body)
        and body[0] is node
        and (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))
    )


def python_names(path: Path) -> set[str]:
    """The names the Python (not compiled) code of a file uses, imports excluded: names
    read outside ``@njit`` functions, and names called (``name(``) in code held in strings
    (a script a test runs in a subprocess), docstrings excluded. Compiled code calls a
    helper without an entry point as any other."""
    names: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)) or is_kernel(child):
                continue
            if is_docstring(child, node):
                continue
            if isinstance(child, ast.Name):
                names.add(child.id)
            elif isinstance(child, ast.Attribute):
                names.add(child.attr)
            elif isinstance(child, ast.Constant) and isinstance(child.value, str):
                names.update(re.findall(r"(\w+)\(", child.value))
            visit(child)

    visit(ast.parse(path.read_text()))
    return names


def test_the_solvers_helpers_have_no_python_entry_point():
    helpers = wrapperless_helpers()
    assert {"first_roll_mean", "level_records", "best_keep_at"} <= set(helpers)
    assert {"joker_case", "box_legal_points", "roll_options", "box_step"} <= set(helpers)


def test_no_python_code_names_a_helper_without_python_entry_point():
    helpers = wrapperless_helpers()
    files = [
        p
        for folder in PYTHON_DIRS
        for p in (ROOT / folder).rglob("*.py")
        if p.resolve() != Path(__file__).resolve()
    ]
    for path in files:
        named = python_names(path) & set(helpers)
        assert not named, f"{path.relative_to(ROOT)} names {sorted(named)}"


def test_the_check_finds_a_call_from_python_and_from_a_script(tmp_path):
    """The check itself: a helper read outside compiled code, or called in a script held
    in a string, is found; one called from compiled code or named in a docstring is not."""
    path = tmp_path / "module.py"
    path.write_text(
        '''"""Uses joker_case(kr, ...) in compiled code."""
from numba import njit
from yahtzee_sim._kernels.scoring import box_step, joker_case, roll_options


@njit(cache=True)
def kernel(kr):
    return joker_case(kr, 0, 0, 0)


SCRIPT = "roll_options(kr, 0, 0, 0, row)"
alias = box_step
'''
    )
    assert python_names(path) & {"joker_case", "box_step", "roll_options"} == {
        "box_step",
        "roll_options",
    }
