"""Compile the kernels of the report's exact stage in a second process.

On a machine whose numba cache is empty, numba compiles one kernel at a time on one
core. :func:`start` runs :func:`warm` in a background process while the report solves
its value table and simulates (the first of those steps compiles on one core too), so
that the exact stage later loads the kernels from the cache instead of compiling them.
The warm-up evaluates one turn of ``greedy`` with its regret against a table of zeros:
the kernels and argument types of the real evaluation, almost none of its work.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np

#: Longest wait for the warm-up before the exact stage starts without it.
TIMEOUT_SECONDS = 300.0


def needed() -> bool:
    """Whether the exact stage's kernels are missing from the numba cache."""
    from yahtzee_sim._kernels.regret import level_regret

    try:
        index = level_regret._cache._cache_file._index_path
    except AttributeError:  # numba internals changed: no warm-up
        return False
    return not os.path.exists(index)


def start(rules) -> subprocess.Popen | None:
    """Start :func:`warm` for preset ``rules`` in a background process if the kernels are
    not compiled yet; ``None`` when there is nothing to do (or no process could start)."""
    name = getattr(rules, "name", rules)
    if not needed():
        return None
    env = dict(os.environ, NUMBA_NUM_THREADS="1")
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "yahtzee_sim.analysis.warmup", str(name)],
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
    """Compile (or load) the kernels of :func:`~yahtzee_sim.analysis.regret.evaluate_with_regret`
    for ``rules``: one turn of ``greedy``, its regret against a table of zeros and its
    score law."""
    from yahtzee_sim.analysis.regret import RegretAccumulator
    from yahtzee_sim.exact.laws import exact_result, forward_pass, prepared
    from yahtzee_sim.game.state import n_states

    strategy, rules = prepared("greedy", rules)
    acc = RegretAccumulator(rules, 1, values=np.zeros(n_states(rules)))
    levels, fw = forward_pass(strategy, rules, on_decisions=acc, turns=1)
    exact_result(strategy, rules, levels, fw)


if __name__ == "__main__":
    warm(sys.argv[1] if len(sys.argv) > 1 else "yahtzee")
