"""The report's progress bar, each step weighted by its expected seconds.

A bar that counts steps makes its first estimate from the first step, the value table,
which on a first run also compiles the solver: 26 s of an 88 s run, one step of 30, so the
bar first announced a quarter of an hour. Here every step advances the bar by its
expected seconds (:data:`STEP_SECONDS`; compiling included when its kernel is not in the
numba cache, evaluating when its result is neither in the table cache nor shipped), so the remaining
time tqdm shows is the expected seconds still ahead at the rate measured so far. Only the
ratios of the weights matter: a slower machine slows every step alike.
"""

from __future__ import annotations

from yahtzee_sim.analysis.report import exact_cache
from yahtzee_sim.engine import compile_costs
from yahtzee_sim.engine.weighted_bar import WeightedBar
from yahtzee_sim.solving import solver

#: Wall seconds of each step of a default report (100,000 games, 14 strategies simulated,
#: 12 evaluated exactly) on the reference machine (the development machine, a 2-core
#: Intel Xeon VM, 2026-11-29), from ``python benchmarks/bench_report.py`` (the warm split,
#: ``benchmarks/results/report.json``) and the bar's steps in first reports (empty numba
#: cache; the value table shipped): ``tables_compile``, the solver compiled (31.4 s) and
#: a table solved; ``tables``, a table read or solved with the solver compiled, weighed 0
#: so that the first estimate comes from the first simulation, not from a step too short
#: to time; ``simulations``, the 14 strategies' games warm, proportional to the games;
#: ``play_compile``, the kernels of play every strategy shares, compiled by the first
#: simulation; ``fill_compile``, the decision fill of the table strategies, compiled by
#: the first of them; ``strategy_compile``, each other strategy's own kernels (their
#: mean); ``exact``, one strategy evaluated (57.1 s for 12), nothing when read from the
#: table cache or shipped; ``kim_nelson``, the selection. Only the ratios matter.
STEP_SECONDS = {
    "tables_compile": 31.7,
    "tables": 0.0,
    "simulations": 8.2,
    "play_compile": 4.4,
    "fill_compile": 15.4,
    "strategy_compile": 1.1,
    "exact": 57.1 / 12,
    "exact_cached": 0.01,
    "ranking": 0.05,
    "kim_nelson": 0.9,
}
#: The games and strategies of the measured report (:data:`STEP_SECONDS`).
REFERENCE_GAMES, REFERENCE_STRATEGIES = 100_000, 14
#: The kernels whose absence adds compiling to a step (the solver's; the kernels of play;
#: the table strategies' decision fill).
STEP_KERNELS = {
    "tables": ("yahtzee_sim._core.solve", "solve_level"),
    "play": ("yahtzee_sim._kernels.scoring", "box_options"),
    "fill": ("yahtzee_sim._core.upper_lane_fill", "upper_lane_chunks"),
}


def report_weights(
    games: int, quick: bool, table_stored: bool = False, solver_ahead: bool = False
) -> dict[str, float]:
    """Expected seconds of each kind of report step on the reference machine: ``tables``,
    ``simulation`` (one strategy's ``games`` games and its own kernels), ``exact`` and
    ``exact_cached`` (one strategy), ``exact_stage`` (the stage's own bookkeeping),
    ``ranking``, ``kim_nelson``; and what :func:`simulation_weights` adds to the
    simulation that compiles them: ``play_compile``, ``fill_compile``,
    ``solver_compile``. Compiling is included where
    :func:`~yahtzee_sim.engine.compile_costs.kernel_missing` finds a kernel missing (an
    unknown one counts as missing). With the value table stored (``table_stored``:
    shipped or cached) the ``tables`` step only reads it, and the solver compiles in the
    simulation of Glenn's better heuristic (for its sub-games) instead, unless a second
    process solves them meanwhile or they are stored (``solver_ahead``:
    :func:`~yahtzee_sim.analysis.report.compile_ahead.start_tables`)."""
    missing = {s: compile_costs.kernel_missing(*k) is not False for s, k in STEP_KERNELS.items()}
    simulation = STEP_SECONDS["simulations"] * games / REFERENCE_GAMES / REFERENCE_STRATEGIES
    solver_in_tables = missing["tables"] and not table_stored
    solver_later = missing["tables"] and table_stored and not solver_ahead
    return {
        "tables": STEP_SECONDS["tables_compile" if solver_in_tables else "tables"],
        "simulation": simulation + (STEP_SECONDS["strategy_compile"] if missing["play"] else 0),
        "play_compile": STEP_SECONDS["play_compile"] if missing["play"] else 0.0,
        "fill_compile": STEP_SECONDS["fill_compile"] if missing["fill"] else 0.0,
        "solver_compile": STEP_SECONDS["tables_compile"] if solver_later else 0.0,
        "exact": STEP_SECONDS["exact"],
        "exact_cached": STEP_SECONDS["exact_cached"],
        "exact_stage": 0.0,
        "ranking": STEP_SECONDS["ranking"],
        "kim_nelson": 0.0 if quick else STEP_SECONDS["kim_nelson"],
    }


def simulation_weights(strategies: list, weights: dict[str, float]) -> list[float]:
    """The expected seconds of each simulation of ``strategies`` (in the order simulated;
    ``weights`` from :func:`report_weights`): the first also compiles the kernels of play,
    the first table strategy the decision fill, the first of Glenn's better heuristics
    the solver (for its sub-games)."""
    from yahtzee_sim.strategies.glenn2006 import GlennBetterHeuristic
    from yahtzee_sim.strategies.optimal import TableStrategy

    out = []
    firsts = {"play_compile": object, "fill_compile": TableStrategy}
    firsts["solver_compile"] = GlennBetterHeuristic
    for strategy in strategies:
        seconds = weights["simulation"]
        for part, cls in list(firsts.items()):
            if isinstance(strategy, cls):
                seconds += weights[part]
                del firsts[part]  # compiled once
        out.append(seconds)
    return out


def simulation_step(i: int) -> str:
    """The bar's kind of the ``i``-th simulation (each has its own weight)."""
    return f"simulation {i}"


def evaluations(strategies: list, rules, top: int) -> int:
    """How many of the deterministic ``strategies`` the exact stage evaluates: those whose
    result (``top`` costliest situations) is neither in the table cache nor shipped
    (:func:`~yahtzee_sim.analysis.report.exact_cache.available`)."""
    return sum(not exact_cache.available(s, rules, top) for s in strategies)


def report_bar(
    simulated: list, deterministic: list, rules, top: int, games: int, quick: bool,
    solver_ahead: bool = False, **options,
) -> WeightedBar:  # fmt: skip
    """The bar of a report that simulates the strategies ``simulated`` (in that order,
    ``games`` games each) and evaluates the ``deterministic`` ones (:func:`evaluations`
    of them neither cached nor shipped); ``solver_ahead``: see :func:`report_weights`;
    ``options`` go to tqdm."""
    evaluated = evaluations(deterministic, rules, top)
    weights = report_weights(games, quick, solver.table_stored(rules), solver_ahead)
    steps = simulation_weights(simulated, weights)
    weights |= {simulation_step(i): w for i, w in enumerate(steps)}
    counts = dict.fromkeys(map(simulation_step, range(len(steps))), 1)
    counts |= {
        "tables": 1,
        "exact": evaluated,
        "exact_cached": len(deterministic) - evaluated,
        "exact_stage": 1,
        "ranking": 1,
        "kim_nelson": 1,
    }
    return WeightedBar(weights, counts, **options)
