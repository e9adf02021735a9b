"""The exact evaluator's progress bar: one bar over the forward and the backward pass, each
level weighed by its encoded states."""

from __future__ import annotations

import pytest

from yahtzee_sim.exact import laws
from yahtzee_sim.exact.exact_costs import exact_bar, level_sizes
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.game.state import n_states

from helpers import assert_each_step_taken_once, bars_made


@pytest.mark.parametrize("name", ["yahtzee", "yatzy", "2-yatzy"])
def test_the_levels_hold_every_encoded_state(name):
    rules = get_rules(name)
    states = level_sizes(rules)
    assert len(states) == rules.n_boxes
    full = level_sizes(rules)[0]  # one used-mask: the empty sheet's upper totals and flags
    assert sum(states) + full == n_states(rules)  # and the full score sheets


def test_each_level_of_each_pass_weighs_its_states():
    rules = get_rules("yahtzee")
    bar = exact_bar(rules, False, law=True, before={"table": 3})
    states = level_sizes(rules)
    assert list(bar.weights)[:2] == ["table", "forward 0"]  # the caller's steps come first
    for k, n in enumerate(states):
        assert bar.weights[f"forward {k}"] == bar.weights[f"pmf {k}"] == n
    assert bar.total == 3 + 2 * sum(states)
    moments = exact_bar(rules, False)
    assert not any(kind.startswith("pmf") for kind in moments.weights)
    assert moments.total == sum(states)


def test_an_evaluation_takes_every_step_of_its_one_bar(monkeypatch):
    made = bars_made(monkeypatch, laws, "exact_bar")
    laws.evaluate("greedy", "2-yatzy")
    (bar,) = made
    assert_each_step_taken_once(bar)
    laws.evaluate("greedy", "2-yatzy", distribution=False)
    assert made[1].taken == dict.fromkeys(made[1].weights, 1)
    assert not any(kind.startswith("pmf") for kind in made[1].weights)
