"""The turn outcomes of a level computed in threads, a slice of the states each, are those
of one call over every state, bit for bit, whatever the number of threads."""

from __future__ import annotations

import numpy as np
import pytest

from yahtzee_sim._core.exact import turn_outcomes
from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.exact import forward
from yahtzee_sim.exact.decision_tables import decision_tables
from yahtzee_sim.exact.laws import prepared
from yahtzee_sim.game.state import decode_state


def outcomes(call, kr, states, rules, keep, cat):
    m, n_rolls = len(states), rules.tables.n_rolls
    out = (
        np.zeros((m, n_rolls), np.int8),
        np.zeros((m, n_rolls), np.int16),
        np.zeros((m, n_rolls), np.int8),
        np.zeros((m, n_rolls)),
        np.zeros(m, np.int64),
        np.zeros(m, np.int64),
    )
    call(kr, *decode_state(rules, states), keep, cat, *out)
    return out


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_threads_give_the_outcomes_of_one_call(monkeypatch, threads):
    strategy, rules = prepared("greedy", "yahtzee")
    levels, _ = forward.forward_pass(strategy, rules, turns=3)
    states = np.unique(levels[-1].nxt)  # the states of turn 4
    keep, cat = decision_tables(strategy, rules, states, 3)
    kr = kernel_rules(rules)
    whole = outcomes(turn_outcomes, kr, states, rules, keep, cat)
    monkeypatch.setattr(forward, "MIN_STATES_PER_THREAD", 1)
    monkeypatch.setattr(forward, "get_threads", lambda: threads)
    split = outcomes(forward.outcomes_in_threads, kr, states, rules, keep, cat)
    assert len(states) > 100
    for a, b in zip(whole, split, strict=True):
        assert np.array_equal(a, b)
