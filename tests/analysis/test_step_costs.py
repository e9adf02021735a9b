"""The report's progress bar weighs each step by its expected seconds, compiling included
when the kernel is missing, so that its first estimate is near the truth."""

from __future__ import annotations

import io

import pytest

from yahtzee_sim.analysis.report import step_costs
from yahtzee_sim.engine import compile_costs
from yahtzee_sim.game.rules import get_rules


def test_a_missing_kernel_adds_its_compiling(monkeypatch):
    monkeypatch.setattr(compile_costs, "kernel_missing", lambda module, name: True)
    cold = step_costs.report_weights(100_000, quick=False)
    monkeypatch.setattr(compile_costs, "kernel_missing", lambda module, name: None)
    assert step_costs.report_weights(100_000, quick=False) == cold  # unknown counts as missing
    monkeypatch.setattr(compile_costs, "kernel_missing", lambda module, name: False)
    warm = step_costs.report_weights(100_000, quick=False)
    seconds = step_costs.STEP_SECONDS
    assert cold["tables"] == seconds["tables_compile"] and warm["tables"] == seconds["tables"]
    for part in ("play_compile", "fill_compile"):
        assert cold[part] > 0 and warm[part] == 0
    assert cold["solver_compile"] == warm["solver_compile"] == 0  # (the table is solved first)
    assert cold["simulation"] > warm["simulation"]
    # warm simulations scale with the games; a quick report has no Kim–Nelson selection
    assert step_costs.report_weights(10_000, quick=True)["simulation"] == pytest.approx(
        warm["simulation"] / 10
    )
    assert step_costs.report_weights(10_000, quick=True)["kim_nelson"] == 0.0


def test_the_first_simulations_compile_play_the_fill_and_the_solver(monkeypatch):
    from yahtzee_sim.strategies import get_strategy

    monkeypatch.setattr(compile_costs, "kernel_missing", lambda module, name: True)
    w = step_costs.report_weights(100_000, False, table_stored=True)
    ids = ["greedy", "glenn-greedy", "random", "optimal", "glenn-better-heuristic"]
    got = step_costs.simulation_weights([get_strategy(s) for s in ids], w)
    one = w["simulation"]
    assert got == [
        one + w["play_compile"], one + w["fill_compile"], one, one, one + w["solver_compile"]
    ]  # fmt: skip
    alone = step_costs.simulation_weights([get_strategy("optimal"), get_strategy("greedy")], w)
    assert alone == [one + w["play_compile"] + w["fill_compile"], one]
    assert step_costs.simulation_weights([], w) == []


def _first_estimate(weights: dict, steps: list[float], exact: int, first_seconds: float) -> float:
    """The bar's estimate of the whole run after its first simulation took
    ``first_seconds`` (the ``tables`` step before it weighs 0: its table is stored)."""
    total = sum(steps) + exact * weights["exact"]
    total += weights["ranking"] + weights["kim_nelson"] + weights["tables"]
    return total * first_seconds / (weights["tables"] + steps[0])


def _default_order() -> list:
    from yahtzee_sim.analysis.report.build import REFERENCE, simulation_order
    from yahtzee_sim.strategies import default_strategy_ids, get_strategy

    resolved = {s: get_strategy(s) for s in [*default_strategy_ids(), REFERENCE]}
    return [resolved[s] for s in simulation_order(resolved, resolved)]


def test_the_first_estimates_of_the_measured_cold_reports_are_within_a_factor_1_5(monkeypatch):
    """The two first default reports measured (empty numba cache, table shipped; bar
    seconds, first simulation 5 s in each): the exact results shipped, the sub-games
    solved beside (42 s on the bar), and none shipped, every strategy evaluated (121 s)."""
    monkeypatch.setattr(compile_costs, "kernel_missing", lambda module, name: True)
    order = _default_order()
    assert len(order) == step_costs.REFERENCE_STRATEGIES
    shipped = step_costs.report_weights(100_000, False, table_stored=True, solver_ahead=True)
    steps = step_costs.simulation_weights(order, shipped)
    assert 1 / 1.5 <= _first_estimate(shipped, steps, 0, 5.0) / 42 <= 1.5
    evaluated = step_costs.report_weights(100_000, False, table_stored=True)
    steps = step_costs.simulation_weights(order, evaluated)
    assert 1 / 1.5 <= _first_estimate(evaluated, steps, 12, 5.0) / 121 <= 1.5


def test_the_bar_ends_at_its_total(monkeypatch):
    from yahtzee_sim.strategies import get_strategy

    monkeypatch.setattr(step_costs, "evaluations", lambda strategies, rules, top: 1)
    out = io.StringIO()
    simulated = [get_strategy(s) for s in ("greedy", "optimal", "random")]
    bar = step_costs.report_bar(
        simulated, ["a", "b"], get_rules("yahtzee"), 10, 1000, True, file=out
    )
    for i in range(len(simulated)):
        bar.step(step_costs.simulation_step(i))
    for kind, n in (("tables", 1), ("exact", 1), ("exact_cached", 1)):
        bar.step(kind, n)
    for kind in ("exact_stage", "ranking", "kim_nelson"):
        bar.step(kind)
    assert bar.bar.n == pytest.approx(bar.bar.total)
    bar.close()
    assert "100%" in out.getvalue()


def test_a_stored_table_moves_the_solver_s_compiling_to_the_simulations(monkeypatch):
    """With the value table stored (shipped or cached), the first step only reads it, and
    the solver compiles later, for Glenn's sub-games: the total stays; with the sub-games
    solved in a second process, it compiles there, off the report's path."""
    monkeypatch.setattr(compile_costs, "kernel_missing", lambda module, name: True)
    solving = step_costs.report_weights(100_000, quick=False)
    stored = step_costs.report_weights(100_000, quick=False, table_stored=True)
    ahead = step_costs.report_weights(100_000, False, table_stored=True, solver_ahead=True)
    seconds = step_costs.STEP_SECONDS
    assert stored["tables"] == ahead["tables"] == seconds["tables"]
    assert solving["tables"] == stored["solver_compile"] == seconds["tables_compile"]
    assert solving["solver_compile"] == ahead["solver_compile"] == 0.0
    monkeypatch.setattr(compile_costs, "kernel_missing", lambda module, name: False)
    assert step_costs.report_weights(100_000, False, True) == step_costs.report_weights(
        100_000, False
    )
