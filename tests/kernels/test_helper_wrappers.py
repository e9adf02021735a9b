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


def wrapperless_helpers() -> dict[str, Path]:
    """Every kernel of ``_kernels/`` declared without a Python entry point, by name."""
    found = {}
    for path in sorted(kernels.KERNEL_DIR.glob("*.py")):
        if path.stem == "__init__":  # imported again under that name, it would install again
            continue
        module = importlib.import_module(f"yahtzee_sim._kernels.{path.stem}")
        for name, value in vars(module).items():
            if isinstance(value, CPUDispatcher) and value.py_func.__module__ == module.__name__:
                if value.targetoptions.get("no_cpython_wrapper"):
                    found[name] = path
    return found


def is_kernel(node: ast.AST) -> bool:
    """Whether ``node`` is a function compiled by ``@njit``."""
    return isinstance(node, ast.FunctionDef) and any(
        isinstance(d, ast.Call) and getattr(d.func, "id", "") == "njit" for d in node.decorator_list
    )


def python_names(path: Path) -> set[str]:
    """The names the Python (not compiled) code of a kernel file uses, imports excluded."""
    names = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, (ast.Import, ast.ImportFrom)) or is_kernel(node):
            continue
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name):
                names.add(sub.id)
            elif isinstance(sub, ast.Attribute):
                names.add(sub.attr)
    return names


def test_the_solvers_helpers_have_no_python_entry_point():
    helpers = wrapperless_helpers()
    assert {"first_roll_mean", "level_records", "best_keep_at"} <= set(helpers)


def test_no_python_code_names_a_helper_without_python_entry_point():
    helpers = wrapperless_helpers()
    used_in_python = set().union(*(python_names(p) for p in kernels.KERNEL_DIR.glob("*.py")))
    assert not used_in_python & set(helpers)
    outside = [
        p
        for folder in PYTHON_DIRS
        for p in (ROOT / folder).rglob("*.py")
        if kernels.KERNEL_DIR not in p.parents and p.resolve() != Path(__file__).resolve()
    ]
    for path in outside:
        named = set(re.findall(r"\w+", path.read_text())) & set(helpers)
        assert not named, f"{path.relative_to(ROOT)} names {sorted(named)}"
