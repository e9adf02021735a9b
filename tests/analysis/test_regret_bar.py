"""The regret's progress bar: the value table first (a read when stored, a solve when not),
then the forward pass with its losses charged, each step weighed by its expected seconds."""

from __future__ import annotations

import pytest

from yahtzee_sim.analysis.decisions import regret as regret_module
from yahtzee_sim.engine import compile_costs
from yahtzee_sim.exact.exact_costs import FORWARD_STATE_SECONDS, level_sizes
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.solving import solve_costs, solver

from helpers import assert_each_step_taken_once, bars_made


def test_the_bar_weighs_the_table_and_the_regret_kernel(monkeypatch):
    rules = get_rules("2-yatzy")
    strategy = object()
    solver.TABLES.forget(solver.TABLES.key(rules))
    for path in solver.TABLES.paths(solver.TABLES.key(rules)):
        path.unlink(missing_ok=True)
    monkeypatch.setattr(compile_costs, "kernel_missing", lambda module, name: True)
    cold = regret_module.regret_bar(strategy, rules, False, False)
    assert cold.weights["table"] == pytest.approx(solve_costs.solve_seconds(rules))
    regret_kernel = sum(regret_module.REGRET_KERNELS.values())
    monkeypatch.setattr(compile_costs, "kernel_missing", lambda module, name: False)
    warm = regret_module.regret_bar(strategy, rules, False, False)
    assert cold.weights["setup"] - warm.weights["setup"] > regret_kernel - 1
    per = regret_module.REGRET_STATE_SECONDS
    forward = FORWARD_STATE_SECONDS["batched"] + per  # the decisions, then their losses
    assert cold.weights["forward 1"] == pytest.approx(forward * level_sizes(rules)[1])
    assert warm.weights["forward 1"] == cold.weights["forward 1"]
    assert not any(kind.startswith("pmf") for kind in cold.weights)
    solver.value_table(rules)
    assert regret_module.regret_bar(strategy, rules, True, False).weights["table"] == 0.0
    solver.TABLES.forget(solver.TABLES.key(rules))  # on disk only: read, not solved
    assert regret_module.regret_bar(strategy, rules, True, False).weights["table"] == 0.0


def test_a_stored_table_is_read_within_the_first_step(monkeypatch):
    """A read table (here the shipped one) adds no step of its own: a first step of a
    fraction of a second would make the bar's first estimate tenfold on a first run,
    whose first step is the compiling."""
    monkeypatch.setattr(compile_costs, "kernel_missing", lambda module, name: True)
    bar = regret_module.regret_bar(object(), get_rules("yahtzee"), False, False)
    assert bar.weights["table"] == 0.0
    assert bar.weights["setup"] > 0.5 * bar.total


def test_a_regret_takes_every_step_of_its_bar_once(monkeypatch):
    made = bars_made(monkeypatch, regret_module, "regret_bar")
    regret_module.regret("greedy", "2-yatzy")
    (bar,) = made
    assert_each_step_taken_once(bar)
