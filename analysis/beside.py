"""Warm-up steps run beside a first command, in a second process: both cores compile.

On a first run (an empty numba cache) a command compiles its kernels one at a time on
one core. :func:`solve_while_compiling` solves a value table while a step of
:data:`yahtzee_sim.analysis.warmup.STEPS` compiles the kernels the command needs next;
:func:`compile_beside` starts such a step while the command compiles others. Each step
runs as ``python -m yahtzee_sim.analysis.warmup STEP RULES``; the command loads from the
cache whatever the step has compiled when it first calls it, and compiles the rest itself,
so the outcome is the same either way.
"""

from __future__ import annotations

import subprocess
import sys

__all__ = ["AHEAD_KERNELS", "compile_beside", "solve_while_compiling"]

#: A kernel of each warm-up step :func:`solve_while_compiling` runs beside a solve (and
#: :func:`compile_beside` beside a command): when it is in the kernel cache, the step has
#: nothing to do.
AHEAD_KERNELS = {
    "table_fill": ("yahtzee_sim._core.upper_lane_fill", "upper_lane_chunks"),
    "advisor_kernels": ("yahtzee_sim._kernels.decisions", "position_values"),
    "mixed_widget": ("yahtzee_sim._kernels.widget", "widget_mixed"),
    "exact_tail": ("yahtzee_sim._kernels.exact", "level_effects"),
}


def solve_while_compiling(step: str, rules) -> None:
    """Solve (or load) the value table of ``rules`` while step ``step`` of
    :data:`AHEAD_KERNELS` compiles the kernels the command needs next in a second process
    (both cores at work on a first run), then wait for that process, so that the command
    loads those kernels from the cache instead of compiling them after the solve.

    Nothing runs ahead when the step's kernels are cached already or the table is stored
    (no solve to overlap); a step that fails costs nothing but
    its time: a kernel it did not compile is compiled when first used.
    """
    from yahtzee_sim.analysis.report import compile_ahead
    from yahtzee_sim.solving.solver import table_stored, value_table

    proc = None
    if not table_stored(rules):
        proc = compile_beside(step, rules)
    try:
        value_table(rules)
    finally:
        compile_ahead.finish(proc, compile_ahead.TIMEOUT_SECONDS)


def compile_beside(step: str, rules) -> subprocess.Popen | None:
    """Start step ``step`` of :data:`AHEAD_KERNELS` in a second process when its kernel is
    missing from the cache, and return the process (``None``: nothing to do, or no
    process could start). The command goes on meanwhile: a kernel the second process has
    put in the cache when the command first calls it is loaded, any other compiled as
    usual, so the outcome is the same either way. Stop it with
    :func:`~yahtzee_sim.analysis.report.compile_ahead.finish`."""
    from yahtzee_sim.analysis.report.compile_ahead import start_compiling
    from yahtzee_sim.engine.compile_costs import kernel_missing

    if not kernel_missing(*AHEAD_KERNELS[step]):  # cached (or unknown: no compiler at work)
        return None
    return start_compiling(
        [sys.executable, "-m", "yahtzee_sim.analysis.warmup", step, _rules_name(rules)]
    )


def _rules_name(rules) -> str:
    """The name a step process gets the rules by (a preset and its house rules)."""
    return str(getattr(rules, "name", rules))
