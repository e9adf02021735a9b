"""Build of the compiled core (``yahtzee_sim/_core/*.pyx``, Cython); everything else about
the package is declared in ``pyproject.toml``.

Compiled for the machine it is built on (``-O3 -march=native``); set
``YAHTZEE_SIM_PORTABLE=1`` for a build that runs on any x86-64 (or other) processor of
its architecture (no ``-march``). Floating-point contraction stays off
(``-ffp-contract=off``: no fused multiply-add), so the values do not move with the CPU.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup

#: Where each installed package's sources live (``pyproject.toml``'s ``package-dir``).
PACKAGE_DIRS = {
    "yahtzee_sim": Path("yahtzee_sim"),
    "yahtzee_sim.strategies": Path("strategies"),
    "yahtzee_sim.analysis": Path("analysis"),
}


def compile_args() -> list[str]:
    """The C compiler's flags: optimised, no FP contraction, OpenMP, native unless
    ``YAHTZEE_SIM_PORTABLE`` is set."""
    args = ["-O3", "-ffp-contract=off", "-fopenmp", "-fno-strict-aliasing"]
    if os.environ.get("YAHTZEE_SIM_PORTABLE", "") in ("", "0"):
        args.append("-march=native")
    return args


def module_name(package: str, root: Path, pyx: Path) -> str:
    """The installed name of the module compiled from ``pyx`` (under ``root``, the sources of
    ``package``): ``strategies/greedy_kernels.pyx`` is ``yahtzee_sim.strategies.greedy_kernels``."""
    parts = pyx.relative_to(root).with_suffix("").parts
    return ".".join((package, *parts))


def extensions() -> list[Extension]:
    """One extension module per ``.pyx`` file: the compiled core (``yahtzee_sim/_core/``) and
    the kernels beside the Python that calls them (the built-in strategies', the analyses')."""
    if sys.platform == "win32":
        raise SystemExit("the compiled core builds with GCC or Clang (Linux, macOS)")
    return [
        Extension(
            module_name(package, root, pyx),
            [str(pyx)],
            extra_compile_args=compile_args(),
            extra_link_args=["-fopenmp"],
        )
        for package, root in PACKAGE_DIRS.items()
        for pyx in sorted(root.rglob("*.pyx"))
    ]


setup(
    ext_modules=cythonize(
        extensions(),
        compiler_directives={"language_level": 3},
        include_path=["."],  # ``cimport yahtzee_sim._core.rules`` from any package
        nthreads=os.cpu_count() or 1,
    ),
    options={"build_ext": {"parallel": os.cpu_count() or 1}},  # one C compile per core
)
