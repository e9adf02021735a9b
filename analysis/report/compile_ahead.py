"""Work a first report does in a second process, on the other core: compiling the exact
stage's kernels, or solving the tables of Glenn's sub-games.

On a machine whose numba cache is empty, numba compiles one kernel at a time on one
core. A report that evaluates strategies (results neither cached nor shipped):
:func:`start` runs :func:`warm` in a background process from the start of the report,
so that the exact stage loads its heaviest kernels from the cache instead of compiling
them: first the exact stage's kernels that do not use the widget, then the decision
fill of the table strategies and the regret. The warm-up fills one state's decisions and
evaluates one turn of ``greedy`` with its regret, against tables of zeros: the kernels
and argument types of the real work, almost none of its work. A report that evaluates
nothing (the default one: its results ship with the package): :func:`start_tables`
compiles the solver and solves the sub-games of Glenn's better heuristic while the report
simulates the other strategies. :func:`first_run_estimate` is the first run's notice.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np

from yahtzee_sim.engine import compile_costs

#: Longest wait for the warm-up before the exact stage starts without it.
TIMEOUT_SECONDS = 300.0


#: The built-in strategies' decision kernels a first report compiles, with their compile
#: seconds (CPU seconds of ``numba:compile``, measured as
#: :data:`~yahtzee_sim.engine.compile_costs.COMPILE_SECONDS` is).
STRATEGY_KERNELS = {
    ("yahtzee_sim.strategies.greedy", "greedy_fill_states"): 19.5,
    ("yahtzee_sim.strategies.rule_based_v2", "program_box"): 8.8,
    ("yahtzee_sim.strategies.defensive", "defensive_keep"): 1.4,
}
#: The kernels a first report compiles, each weighted by its compile seconds (the core's
#: from :data:`~yahtzee_sim.engine.compile_costs.COMPILE_SECONDS`): the share of the
#: compiling still ahead is the weight of those missing from the numba cache.
REPORT_KERNELS = {
    kernel: compile_costs.COMPILE_SECONDS[kernel]
    for kernel in (
        ("yahtzee_sim._kernels.regret", "level_regret"),
        ("yahtzee_sim._core.upper_lane_fill", "upper_lane_decisions"),
        ("yahtzee_sim._kernels.exact", "turn_outcomes"),
        ("yahtzee_sim._kernels.exact", "level_effects"),
    )
} | STRATEGY_KERNELS

#: The kernels a first report that evaluates nothing compiles (its exact results cached
#: or shipped, the solver compiled beside it by :func:`start_tables`), with their compile
#: seconds in the report's process on the reference machine (``python
#: benchmarks/bench_first_run.py --only report``, the kernels of its cold run).
SIMULATION_KERNELS = {
    ("yahtzee_sim._core.upper_lane_fill", "upper_lane_chunks"): 14.7,
    ("yahtzee_sim.strategies.greedy", "greedy_fill_states"): 5.2,
    ("yahtzee_sim.strategies.rule_based_v2", "program_box"): 3.0,
    ("yahtzee_sim._kernels.scoring", "box_options"): 1.1,
    ("yahtzee_sim._kernels.scoring", "bonus_options"): 0.8,
}

#: A first default report against later ones on the reference machine (the development
#: machine, a 2-core Intel Xeon VM; two measurements an hour apart, their means): the
#: compiling, a first report (empty kernel and table caches, 112 s) less one with the
#: kernels cached but no exact result (65 s), and the evaluating, that less one with
#: everything cached (12 s); and the median time
#: :func:`~yahtzee_sim.engine.compile_costs.calibration_seconds` takes there (0.056 s and
#: 0.070 s at those two times: the machine's speed drifts by a tenth either way, and the
#: estimate with it).
REFERENCE_SECONDS = {
    "compile": 47.0,
    "compile_simulations": 31.0,
    "evaluate": 53.0,
    "calibration": 0.063,
}

#: Deterministic strategies of the default report (the reference's evaluations).
REFERENCE_EVALUATIONS = 12


def needed() -> bool:
    """Whether the warm-up's kernels (the decision fill, the exact stage's) are missing
    from the numba cache."""
    return any(
        compile_costs.kernel_missing(*kernel)
        for kernel in (
            ("yahtzee_sim._kernels.regret", "level_regret"),
            ("yahtzee_sim._core.upper_lane_fill", "upper_lane_decisions"),
        )
    )


def compile_share(evaluating: bool = True) -> float:
    """The share of a first report's compiling still ahead: the weight of the
    :data:`REPORT_KERNELS` (:data:`SIMULATION_KERNELS` when the report evaluates nothing)
    missing from the numba cache (an unknown one counts as missing), from 0 (all cached)
    to 1."""
    kernels = REPORT_KERNELS if evaluating else SIMULATION_KERNELS
    missing = sum(
        s for kernel, s in kernels.items() if compile_costs.kernel_missing(*kernel) is not False
    )
    return missing / sum(kernels.values())


def first_run_estimate(
    compiling: float,
    evaluations: int,
    cores: int | None = None,
    calibration: float | None = None,
    evaluating: bool | None = None,
) -> float:
    """Seconds a report has ahead of it more than a later one: the reference machine's
    extra time (:data:`REFERENCE_SECONDS`) for the share ``compiling`` of the compiling
    still ahead (:func:`compile_share`) and the ``evaluations`` strategies not in the
    table cache, scaled by this machine's
    speed (:func:`~yahtzee_sim.engine.compile_costs.calibration_seconds` against the
    reference's; measured when not given) and by its cores (the reference has two; the
    report uses two). ``evaluating``: whether the report evaluates any strategy, a
    plugin's included (default: ``evaluations > 0``); one that evaluates nothing compiles
    only its simulations' kernels (``REFERENCE_SECONDS["compile_simulations"]``)."""
    if evaluating is None:
        evaluating = evaluations > 0
    work = REFERENCE_SECONDS["compile" if evaluating else "compile_simulations"] * compiling
    work += REFERENCE_SECONDS["evaluate"] * evaluations / REFERENCE_EVALUATIONS
    if work <= 0:
        return 0.0
    if calibration is None:
        calibration = compile_costs.calibration_seconds()
    speed = calibration / REFERENCE_SECONDS["calibration"]
    return work * speed * 2 / min(2, cores or os.cpu_count() or 1)


def start(rules) -> subprocess.Popen | None:
    """Start :func:`warm` for preset ``rules`` in a background process if the kernels are
    not compiled yet; ``None`` when there is nothing to do (or no process could start)."""
    name = getattr(rules, "name", rules)
    if not needed():
        return None
    module = "yahtzee_sim.analysis.report.compile_ahead"
    return start_compiling([sys.executable, "-m", module, str(name)])


def start_tables(rules, strategies) -> subprocess.Popen | None:
    """Start :func:`solve_tables` for preset ``rules`` in a background process when a
    first report evaluates nothing (its exact results cached or shipped) but one of its
    ``strategies`` is Glenn's better heuristic, whose sub-games' tables are not stored
    and whose solver is not compiled: the second process compiles the solver and solves
    them while the report simulates the other strategies (the table strategies last),
    and the report reads them from the table cache (a table being solved is waited for,
    not solved twice). ``None`` when there is nothing to do, or ``rules`` are not a preset
    (the second process gets the rules by name)."""
    from yahtzee_sim.game.rules import get_rules

    if not sub_games_pending(rules, strategies):
        return None
    if not compile_costs.kernel_missing("yahtzee_sim._core.solve", "solve_level"):
        return None  # compiled (or unknown: no compiler at work)
    try:
        if get_rules(rules.name).fingerprint() != rules.fingerprint():
            return None
    except ValueError:  # not a preset's name
        return None
    module = "yahtzee_sim.analysis.report.compile_ahead"
    return start_compiling([sys.executable, "-m", module, "--tables", str(rules.name)])


def sub_games_pending(rules, strategies) -> bool:
    """Whether one of ``strategies`` is Glenn's better heuristic and the tables of its
    sub-games on ``rules`` are not stored (its simulation then solves them)."""
    from yahtzee_sim.solving.solver import table_stored
    from yahtzee_sim.strategies.glenn2006 import GlennBetterHeuristic, sub_games

    if not any(isinstance(s, GlennBetterHeuristic) for s in strategies):
        return False
    try:
        games = sub_games(rules)
    except ValueError:  # rules without an upper or a lower section: it refuses them
        return False
    return not all(table_stored(game) for game in games)


def solve_tables(rules="yahtzee") -> None:
    """Solve (or load) the tables of the sub-games of Glenn's better heuristic on preset
    ``rules``, keeping them in the table cache."""
    from yahtzee_sim.game.rules import get_rules
    from yahtzee_sim.solving.solver import value_table
    from yahtzee_sim.strategies.glenn2006 import sub_games

    for game in sub_games(get_rules(rules)):
        value_table(game)


def start_compiling(argv: list[str]) -> subprocess.Popen | None:
    """Start a process that compiles kernels into the numba cache (``argv``: its command
    line), on one numba thread, in a session of its own: an interrupt of the command
    (Ctrl-C) does not reach it while it writes a cache entry. ``None`` when no process
    could start."""
    try:
        return subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=dict(os.environ, NUMBA_NUM_THREADS="1"),
            start_new_session=True,
        )
    except OSError:
        return None


#: The compiling processes no longer waited for, still running (kept so that Python
#: does not warn about them while they end on their own).
LEFT_RUNNING: list[subprocess.Popen] = []


def finish(proc: subprocess.Popen | None, timeout: float = TIMEOUT_SECONDS) -> None:
    """Wait for a compiling process for at most ``timeout`` seconds. Its outcome does not
    matter: a kernel it did not compile is compiled when first used. One still running
    then is left to end on its own (its work is bounded): stopping it could cut numba's
    cache writing between an entry's index and its data, and a later run would load
    whatever data file the index then names."""
    if proc is None:
        return
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        LEFT_RUNNING[:] = [p for p in LEFT_RUNNING if p.poll() is None] + [proc]


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


if __name__ == "__main__":  # python -m ... [--tables] RULES
    if sys.argv[1:2] == ["--tables"]:
        solve_tables(sys.argv[2])
    else:
        warm(sys.argv[1] if len(sys.argv) > 1 else "yahtzee")
