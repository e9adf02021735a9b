"""The exact evaluator's progress bar: one bar over the forward and the backward pass, each
level weighed by its encoded states, each pass's first level by its kernels' compiling
when they are missing from the numba cache."""

from __future__ import annotations

import pytest

from yahtzee_sim.engine import compile_costs
from yahtzee_sim.exact import exact_costs, laws
from yahtzee_sim.exact.exact_costs import (
    BACKWARD_KERNELS,
    BACKWARD_STATE_SECONDS,
    BATCHED_KERNELS,
    FILL_COMPILE_SECONDS,
    FORWARD_KERNELS,
    FORWARD_STATE_SECONDS,
    exact_bar,
    level_sizes,
)
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.game.state import n_states

from helpers import assert_each_step_taken_once, bars_made


class Batched:
    """Stands for a strategy asked through views (no ``decision_table``)."""


@pytest.mark.parametrize("name", ["yahtzee", "yatzy", "2-yatzy"])
def test_the_levels_hold_every_encoded_state(name):
    rules = get_rules(name)
    states = level_sizes(rules)
    assert len(states) == rules.n_boxes
    full = level_sizes(rules)[0]  # one used-mask: the empty sheet's upper totals and flags
    assert sum(states) + full == n_states(rules)  # and the full score sheets


def test_each_level_weighs_its_states_by_the_pass_s_seconds(monkeypatch):
    monkeypatch.setattr(compile_costs, "kernel_missing", lambda module, name: False)
    rules = get_rules("yahtzee")
    bar = exact_bar(Batched(), rules, False, law=True, before={"table": 3.0})
    states = level_sizes(rules)
    per = FORWARD_STATE_SECONDS["batched"]
    assert list(bar.weights)[:2] == ["table", "setup"]  # the caller's steps come first
    for k, n in enumerate(states):
        assert bar.weights[f"forward {k}"] == pytest.approx(per * n)
        assert bar.weights[f"pmf {k}"] == pytest.approx(BACKWARD_STATE_SECONDS * n)
    kernels = (FORWARD_KERNELS, BATCHED_KERNELS, BACKWARD_KERNELS)
    loads = compile_costs.LOAD_SHARE * sum(sum(k.values()) for k in kernels)
    expected = 3.0 + loads + (per + BACKWARD_STATE_SECONDS) * sum(states)
    assert bar.total == pytest.approx(expected)
    moments = exact_bar(Batched(), rules, False, per_state=1e-6)
    assert not any(kind.startswith("pmf") for kind in moments.weights)
    assert moments.weights["forward 3"] == pytest.approx((per + 1e-6) * states[3])


def test_a_missing_kernel_adds_its_compiling_to_its_pass_s_first_step(monkeypatch):
    rules = get_rules("yahtzee")
    extra = {("yahtzee_sim._kernels.regret", "level_regret"): 27.0}
    forward = sum(FORWARD_KERNELS.values()) + sum(BATCHED_KERNELS.values()) + 27.0
    monkeypatch.setattr(compile_costs, "kernel_missing", lambda module, name: True)
    cold = exact_bar(Batched(), rules, False, law=True, kernels=extra)
    assert cold.weights["setup"] == pytest.approx(forward)
    assert cold.weights["pmf setup"] == pytest.approx(sum(BACKWARD_KERNELS.values()))
    monkeypatch.setattr(compile_costs, "kernel_missing", lambda module, name: False)
    warm = exact_bar(Batched(), rules, False, law=True, kernels=extra)
    assert warm.weights["setup"] == pytest.approx(forward * compile_costs.LOAD_SHARE)
    # the levels weigh the same cold and warm: only the setup steps differ
    assert {k: v for k, v in cold.weights.items() if "setup" not in k} == {
        k: v for k, v in warm.weights.items() if "setup" not in k
    }


def test_a_strategy_s_own_fill_compiles_on_a_first_run_only(monkeypatch):
    rules = get_rules("yahtzee")
    table = type("Table", (), {"decision_table": lambda self, rules, states: None})()
    forward = sum(FORWARD_KERNELS.values())
    monkeypatch.setattr(compile_costs, "kernel_missing", lambda module, name: True)
    cold = exact_bar(table, rules, False).weights["setup"]
    assert cold == pytest.approx(forward + FILL_COMPILE_SECONDS)  # no batched views' kernels
    monkeypatch.setattr(compile_costs, "kernel_missing", lambda module, name: False)
    warm = exact_bar(table, rules, False).weights["setup"]
    assert warm == pytest.approx((forward + FILL_COMPILE_SECONDS) * compile_costs.LOAD_SHARE)


def test_a_strategy_that_fills_its_tables_weighs_less_than_one_asked_by_views():
    rules = get_rules("yahtzee")
    table = type("Table", (), {"decision_table": lambda self, rules, states: None})()
    assert exact_costs.decisions_kind(table) == "table"
    assert exact_costs.decisions_kind(Batched()) == "batched"
    light = exact_bar(table, rules, False).weights["forward 6"]
    assert light < exact_bar(Batched(), rules, False).weights["forward 6"]


def test_an_evaluation_takes_every_step_of_its_one_bar(monkeypatch):
    made = bars_made(monkeypatch, laws, "exact_bar")
    laws.evaluate("greedy", "2-yatzy")
    (bar,) = made
    assert_each_step_taken_once(bar)
    laws.evaluate("greedy", "2-yatzy", distribution=False)
    assert made[1].taken == dict.fromkeys(made[1].weights, 1)
    assert not any(kind.startswith("pmf") for kind in made[1].weights)
