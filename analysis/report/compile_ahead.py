"""Compile the kernels of the report's simulations and exact stage in a second process.

On a machine whose numba cache is empty, numba compiles one kernel at a time on one
core. :func:`start` runs :func:`warm` in a background process from the start of the
report, while the report compiles the solver and solves its value table on the other
core, so that the later steps load their heaviest kernels from the cache instead of
compiling them: first the exact stage's kernels that do not use the widget (while the
report compiles the widget with the solver and puts it in the cache), then the decision
fill of the table strategies (``optimal`` and Glenn's heuristics, simulated first) and
the regret, which load the widget from the cache. The warm-up fills one state's
decisions and evaluates one turn of ``greedy`` with its regret, against tables of zeros:
the kernels and argument types of the real work, almost none of its work.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np

#: Longest wait for the warm-up before the exact stage starts without it.
TIMEOUT_SECONDS = 300.0


#: The report's heaviest kernels (module, name) and about how many seconds each takes to
#: compile on one core of a 2-core AMD EPYC (``numba:compile`` events of a cold report):
#: what :func:`compile_estimate` announces.
HEAVY_KERNELS = {
    ("yahtzee_sim._kernels.solve", "solve_level"): 24.0,
    ("yahtzee_sim._kernels.regret", "level_regret"): 18.0,
    ("yahtzee_sim._kernels.decisions", "fill_lanes"): 15.0,
    ("yahtzee_sim._kernels.exact", "turn_outcomes"): 5.0,
    ("yahtzee_sim._kernels.exact", "level_effects"): 3.0,
    ("yahtzee_sim.strategies.greedy", "greedy_fill_states"): 3.0,
    ("yahtzee_sim.strategies.rule_based_program", "program_box"): 2.5,
}
#: Compiling of every other kernel of a report, together (seconds on one core).
OTHER_KERNELS_SECONDS = 8.0


def kernel_missing(module: str, name: str) -> bool | None:
    """Whether kernel ``module.name`` is missing from the numba cache (``None``: unknown)."""
    import importlib

    try:
        kernel = getattr(importlib.import_module(module), name)
        return not os.path.exists(kernel._cache._cache_file._index_path)
    except (AttributeError, ImportError):  # numba internals changed
        return None


def needed() -> bool:
    """Whether the warm-up's kernels (the decision fill, the exact stage's) are missing
    from the numba cache."""
    return any(
        kernel_missing(*kernel)
        for kernel in (
            ("yahtzee_sim._kernels.regret", "level_regret"),
            ("yahtzee_sim._kernels.decisions", "fill_lanes"),
        )
    )


def compile_estimate(cores: int | None = None) -> float:
    """Seconds of compiling a report has ahead of it (0 when the kernels are cached): the
    heavy kernels missing from the cache and the others, shared by the report's process
    and the warm-up's when there are two cores."""
    missing = [s for kernel, s in HEAVY_KERNELS.items() if kernel_missing(*kernel)]
    if not missing:
        return 0.0
    total = sum(missing) + OTHER_KERNELS_SECONDS
    return total / min(2, cores or os.cpu_count() or 1)


def start(rules) -> subprocess.Popen | None:
    """Start :func:`warm` for preset ``rules`` in a background process if the kernels are
    not compiled yet; ``None`` when there is nothing to do (or no process could start)."""
    name = getattr(rules, "name", rules)
    if not needed():
        return None
    env = dict(os.environ, NUMBA_NUM_THREADS="1")
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "yahtzee_sim.analysis.report.compile_ahead", str(name)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
        )
    except OSError:
        return None


def finish(proc: subprocess.Popen | None, timeout: float = TIMEOUT_SECONDS) -> None:
    """Wait for the warm-up (stopped after ``timeout`` seconds). Its outcome does not
    matter: a kernel it did not compile is compiled when first used."""
    if proc is None:
        return
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def warm(rules="yahtzee") -> None:
    """Compile (or load) the kernels of a table strategy's decision fill and of
    :func:`~yahtzee_sim.analysis.decisions.regret.evaluate_with_regret` for ``rules``: one turn of
    ``greedy`` and its score law, one state's decisions against a table of zeros, then
    greedy's regret against a table of zeros."""
    from yahtzee_sim.analysis.decisions.regret import RegretAccumulator
    from yahtzee_sim.exact.laws import exact_result, forward_pass, prepared
    from yahtzee_sim.game.rules import get_rules
    from yahtzee_sim.game.state import n_states
    from yahtzee_sim.strategies.optimal import TableStrategy

    class Zeros(TableStrategy):
        def state_values(self, rules) -> np.ndarray:
            return np.zeros(n_states(rules))

    # first the kernels without the widget, while the report compiles it (with the
    # solver) and puts it in the cache: the later ones load it from there
    strategy, prepared_rules = prepared("greedy", rules)
    levels, fw = forward_pass(strategy, prepared_rules, turns=1)
    exact_result(strategy, prepared_rules, levels, fw)
    Zeros().decision_table(get_rules(rules), np.zeros(1, dtype=np.int64))
    acc = RegretAccumulator(prepared_rules, 1, values=np.zeros(n_states(prepared_rules)))
    forward_pass(strategy, prepared_rules, on_decisions=acc, turns=1)


if __name__ == "__main__":
    warm(sys.argv[1] if len(sys.argv) > 1 else "yahtzee")
