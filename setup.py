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

CORE = Path("yahtzee_sim") / "_core"


def compile_args() -> list[str]:
    """The C compiler's flags: optimised, no FP contraction, OpenMP, native unless
    ``YAHTZEE_SIM_PORTABLE`` is set."""
    args = ["-O3", "-ffp-contract=off", "-fopenmp", "-fno-strict-aliasing"]
    if os.environ.get("YAHTZEE_SIM_PORTABLE", "") in ("", "0"):
        args.append("-march=native")
    return args


def extensions() -> list[Extension]:
    """One extension module per ``.pyx`` file of the compiled core."""
    if sys.platform == "win32":
        raise SystemExit("the compiled core builds with GCC or Clang (Linux, macOS)")
    return [
        Extension(
            f"yahtzee_sim._core.{pyx.stem}",
            [str(pyx)],
            extra_compile_args=compile_args(),
            extra_link_args=["-fopenmp"],
        )
        for pyx in sorted(CORE.glob("*.pyx"))
    ]


setup(
    ext_modules=cythonize(
        extensions(),
        compiler_directives={"language_level": 3},
        nthreads=os.cpu_count() or 1,
    ),
    options={"build_ext": {"parallel": os.cpu_count() or 1}},  # one C compile per core
)
