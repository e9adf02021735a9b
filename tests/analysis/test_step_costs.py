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
    assert cold["simulation"] > warm["simulation"]
    # warm simulations scale with the games; a quick report has no Kim–Nelson selection
    assert step_costs.report_weights(10_000, quick=True)["simulation"] == pytest.approx(
        warm["simulation"] / 10
    )
    assert step_costs.report_weights(10_000, quick=True)["kim_nelson"] == 0.0


def test_the_first_estimate_of_the_measured_cold_report_is_within_a_factor_1_5(monkeypatch):
    """The cold report the weights come from: after its first step (the value table,
    26.6 s) the bar's estimate of the rest (its weight over the rate so far) against the
    measured rest (simulations 18.9 s, exact 37.2 s, Kim–Nelson 0.4 s, figures 2.6 s)."""
    monkeypatch.setattr(compile_costs, "kernel_missing", lambda module, name: True)
    weights = step_costs.report_weights(100_000, quick=False)
    counts = {"tables": 1, "simulation": 14, "exact": 12, "ranking": 1, "kim_nelson": 1}
    total = sum(weights[k] * n for k, n in counts.items())
    first = 26.6
    estimate = (total - weights["tables"]) * first / weights["tables"]
    truth = 18.9 + 37.2 + 0.4 + 2.6
    assert 1 / 1.5 <= estimate / truth <= 1.5


def test_the_bar_ends_at_its_total(monkeypatch):
    monkeypatch.setattr(step_costs, "evaluations", lambda strategies, rules, top: 1)
    out = io.StringIO()
    bar = step_costs.report_bar(3, ["a", "b"], get_rules("yahtzee"), 10, 1000, True, file=out)
    for kind, n in (("tables", 1), ("simulation", 3), ("exact", 1), ("exact_cached", 1)):
        bar.step(kind, n)
    for kind in ("exact_stage", "ranking", "kim_nelson"):
        bar.step(kind)
    assert bar.bar.n == pytest.approx(bar.bar.total)
    bar.close()
    assert "100%" in out.getvalue()


def test_a_stored_table_moves_the_solver_s_compiling_to_the_simulations(monkeypatch):
    """With the value table stored (shipped or cached), the first step only reads it, and
    the solver compiles later, for Glenn's sub-games: the total stays."""
    monkeypatch.setattr(compile_costs, "kernel_missing", lambda module, name: True)
    solving = step_costs.report_weights(100_000, quick=False)
    stored = step_costs.report_weights(100_000, quick=False, table_stored=True)
    seconds, n = step_costs.STEP_SECONDS, step_costs.REFERENCE_STRATEGIES
    assert stored["tables"] == seconds["tables"]
    assert stored["tables"] + n * stored["simulation"] == pytest.approx(
        solving["tables"] + n * solving["simulation"]
    )
    monkeypatch.setattr(compile_costs, "kernel_missing", lambda module, name: False)
    assert step_costs.report_weights(100_000, False, True) == step_costs.report_weights(
        100_000, False
    )
