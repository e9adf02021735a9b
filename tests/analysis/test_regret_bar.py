"""The regret's progress bar: the value table first (nothing when stored, a solve's widget
lanes when not), then the forward pass with its losses charged, each level weighed by its
states."""

from __future__ import annotations

from yahtzee_sim.analysis.decisions import regret as regret_module
from yahtzee_sim.exact.exact_costs import level_sizes
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.solving import solver

from helpers import assert_each_step_taken_once, bars_made


def test_the_bar_weighs_the_table_s_solve_and_each_level_s_states():
    rules = get_rules("2-yatzy")
    solver.TABLES.forget(solver.TABLES.key(rules))
    for path in solver.TABLES.paths(solver.TABLES.key(rules)):
        path.unlink(missing_ok=True)
    bar = regret_module.regret_bar(rules, False, False)
    assert bar.weights["table"] == sum(solver.level_lanes(rules))
    assert bar.weights["forward 1"] == level_sizes(rules)[1]
    assert not any(kind.startswith("pmf") for kind in bar.weights)
    solver.value_table(rules)
    assert regret_module.regret_bar(rules, True, False).weights["table"] == 0
    solver.TABLES.forget(solver.TABLES.key(rules))  # on disk only: read, not solved
    assert regret_module.regret_bar(rules, True, False).weights["table"] == 0


def test_a_regret_takes_every_step_of_its_bar_once(monkeypatch):
    made = bars_made(monkeypatch, regret_module, "regret_bar")
    regret_module.regret("greedy", "2-yatzy")
    (bar,) = made
    assert_each_step_taken_once(bar)
