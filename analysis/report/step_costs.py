"""The report's progress bar, each step weighted by its expected seconds.

A bar that counts steps makes its first estimate from the first step, the value table,
which on a first run also compiles the solver: 26 s of an 88 s run, one step of 30, so the
bar first announced a quarter of an hour. Here every step advances the bar by its
expected seconds (:data:`STEP_SECONDS`; compiling included when its kernel is not in the
numba cache, evaluating when its result is not in the table cache), so the remaining
time tqdm shows is the expected seconds still ahead at the rate measured so far. Only the
ratios of the weights matter: a slower machine slows every step alike.
"""

from __future__ import annotations

from yahtzee_sim.analysis.report import exact_cache
from yahtzee_sim.engine import compile_costs
from yahtzee_sim.engine.weighted_bar import WeightedBar
from yahtzee_sim.solving import solver

#: Wall seconds of each step of a default report (100,000 games, 14 strategies simulated,
#: 12 evaluated exactly) on the reference machine (2-core AMD EPYC, quiet), from the split
#: ``python benchmarks/bench_report.py`` prints for its cold run (empty caches) and its
#: warm run (``benchmarks/results/report.json``, 2026-11-27): ``tables`` 26.6 s cold
#: (the solver compiled, then the table solved); with the solver compiled, 0.26 s to solve
#: (``benchmarks/results/solver.json``) or less to load, weighed 0 so that the first
#: estimate comes from the first simulation, not from a step too short to time; ``simulations``
#: 3.8 s warm and 18.9 s cold, spread over the strategies and proportional to the games;
#: ``exact`` 37.2 s over 12 strategies when evaluated, nothing when read from the
#: table cache; ``kim_nelson`` 0.4 s. Re-measure with ``python benchmarks/bench_report.py``
#: (``--skip-cold`` for the warm split alone) and update the figures here.
STEP_SECONDS = {
    "tables_compile": 26.6,
    "tables": 0.0,
    "simulations": 3.8,
    "simulations_compile": 18.9 - 3.8,
    "exact": 37.2 / 12,
    "exact_cached": 0.01,
    "ranking": 0.05,
    "kim_nelson": 0.4,
}
#: The games and strategies of the measured report (:data:`STEP_SECONDS`).
REFERENCE_GAMES, REFERENCE_STRATEGIES = 100_000, 14
#: The kernels whose absence adds compiling to a step (the solver's; the simulations':
#: the table strategies' decision fill).
STEP_KERNELS = {
    "tables": ("yahtzee_sim._kernels.solve", "solve_level"),
    "simulations": ("yahtzee_sim._kernels.batched", "upper_lane_chunks"),
}


def report_weights(games: int, quick: bool, table_stored: bool = False) -> dict[str, float]:
    """Expected seconds of each kind of report step on the reference machine: ``tables``,
    ``simulation`` (one strategy's ``games`` games), ``exact`` and ``exact_cached`` (one
    strategy), ``exact_stage`` (the stage's own bookkeeping), ``ranking``, ``kim_nelson``;
    compiling included where :func:`~yahtzee_sim.engine.compile_costs.kernel_missing`
    finds a kernel missing (an unknown one counts as missing). With the value table
    stored (``table_stored``: shipped or cached) the ``tables`` step only reads it, and
    the solver compiles in the simulations instead (Glenn's heuristics solve their
    sub-games there)."""
    compiling = {s: compile_costs.kernel_missing(*k) is not False for s, k in STEP_KERNELS.items()}
    simulation = STEP_SECONDS["simulations"] * games / REFERENCE_GAMES
    if compiling["simulations"]:  # each strategy's kernels, compiled once whatever the games
        simulation += STEP_SECONDS["simulations_compile"]
    solver_in_tables = compiling["tables"] and not table_stored
    if compiling["tables"] and table_stored:
        simulation += STEP_SECONDS["tables_compile"]
    return {
        "tables": STEP_SECONDS["tables_compile" if solver_in_tables else "tables"],
        "simulation": simulation / REFERENCE_STRATEGIES,  # per strategy
        "exact": STEP_SECONDS["exact"],
        "exact_cached": STEP_SECONDS["exact_cached"],
        "exact_stage": 0.0,
        "ranking": STEP_SECONDS["ranking"],
        "kim_nelson": 0.0 if quick else STEP_SECONDS["kim_nelson"],
    }


def evaluations(strategies: list, rules, top: int) -> int:
    """How many of the deterministic ``strategies`` the exact stage evaluates: those whose
    result (``top`` costliest situations) is neither in the table cache nor shipped
    (:func:`~yahtzee_sim.analysis.report.exact_cache.available`)."""
    return sum(not exact_cache.available(s, rules, top) for s in strategies)


def report_bar(
    simulations: int, deterministic: list, rules, top: int, games: int, quick: bool, **options
) -> WeightedBar:
    """The bar of a report that simulates ``simulations`` strategies (``games`` games each)
    and evaluates the ``deterministic`` ones (strategies; :func:`evaluations` of them not
    cached); ``options`` go to tqdm."""
    evaluated = evaluations(deterministic, rules, top)
    counts = {
        "tables": 1,
        "simulation": simulations,
        "exact": evaluated,
        "exact_cached": len(deterministic) - evaluated,
        "exact_stage": 1,
        "ranking": 1,
        "kim_nelson": 1,
    }
    weights = report_weights(games, quick, solver.table_stored(rules))
    return WeightedBar(weights, counts, **options)
