"""Tables the widget reads and the fills that record its decisions: the sub-keeps of each
keep (``keep_subs``), the lanes of sorted states (``upper_total_lanes_of``), and a
strategy's grouped decision fills against one-lane widget runs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yahtzee_sim import get_rules
from yahtzee_sim._kernels.scoring import keep_subs, kernel_rules


def test_keep_subs_list_each_keeps_distinct_one_die_fewer_keeps_padded():
    # keeps of three faces: {a}, {b}, {a, b}, {a, a}, ... keep_remove by face, -1 absent
    keep_remove = np.array([[-1, -1, -1], [0, -1, -1], [-1, 0, -1], [1, 2, -1], [3, 1, 4]])
    sub, count = keep_subs(keep_remove)
    assert count.tolist() == [0, 1, 1, 2, 3]
    assert sub.shape == (5, 5)
    assert sub[0].tolist() == [0] * 5  # none: the keep itself
    assert sub[3].tolist() == [1, 2, 2, 2, 2]  # face order, the last one repeated
    assert sub[4].tolist() == [3, 1, 4, 4, 4]
    wide = np.arange(7)[None, :]  # a keep with seven faces: no padding needed
    assert keep_subs(wide)[0].shape == (1, 7)


# ------------------------------------------- lanes of sorted states (table fills)
@settings(max_examples=100, deadline=None)
@given(
    rules=st.sampled_from(["yahtzee", "yatzy", "2-yatzy"]),
    n=st.integers(0, 400),
    seed=st.integers(0, 2**32 - 1),
)
def test_upper_total_lanes_cover_each_sorted_state_once(rules, n, seed):
    from yahtzee_sim.game.state import decode_state, n_states, state_runs, upper_total_lanes_of

    rules = get_rules(rules)
    rng = np.random.default_rng(seed)
    states = np.unique(rng.integers(0, n_states(rules), size=n))
    used, upper, flag = decode_state(rules, states)
    runs = state_runs(used, flag)
    first, lo, nu, row0, lane = upper_total_lanes_of(used, upper, flag)
    assert runs[0] == 0 and runs[-1] == len(states) and (np.diff(runs) > 0).all()
    np.testing.assert_array_equal(first, runs[:-1])
    assert len(np.unique(lane)) == len(states)  # one lane per state
    assert lane.max(initial=-1) < nu.sum()
    g = np.repeat(np.arange(len(first)), np.diff(runs))  # each state's run
    assert (used == used[first][g]).all() and (flag == flag[first][g]).all()
    np.testing.assert_array_equal(lane - row0[g], upper - lo[g])  # its upper total's lane
    assert ((0 <= upper - lo[g]) & (upper - lo[g] < nu[g])).all()


@pytest.mark.slow
def test_grouped_table_fills_decide_as_one_lane_widget_runs():
    """A strategy's decision cache, filled one widget run per (used, flag) over the upper
    totals of the states a simulation reaches, holds the decisions of one-lane runs."""
    from yahtzee_sim._core.decisions import fill_states
    from yahtzee_sim.game.state import decode_state, n_states
    from yahtzee_sim.strategies import get_strategy

    rules = get_rules("yahtzee")
    s = get_strategy("optimal")
    s.prepare(rules)
    rng = np.random.default_rng(5)
    states = np.unique(rng.integers(0, n_states(rules), size=3000))
    used, upper, flag = decode_state(rules, states)
    states = states[used != (1 << rules.n_boxes) - 1]
    k_grouped, c_grouped = s.decision_table(rules, states[::-1].copy())
    used, upper, flag = decode_state(rules, states[::-1])
    k_one = np.zeros_like(k_grouped)
    c_one = np.empty_like(c_grouped)
    slots = np.arange(len(states), dtype=np.int64)
    fill_states(kernel_rules(rules), s.lanes(), used, upper, flag, upper, slots, k_one, c_one)
    np.testing.assert_array_equal(k_grouped, k_one)
    np.testing.assert_array_equal(c_grouped, c_one)
    # the simulation's lazy fill (grouped too) gives the same decisions
    s2 = get_strategy("optimal")
    s2.prepare(rules)
    for j in range(1, rules.rolls_per_turn):
        roll = rng.integers(0, rules.tables.n_rolls, size=len(states))
        got = s2.decisions(rules, states[::-1], roll, j)
        np.testing.assert_array_equal(got, k_one[np.arange(len(states)), j - 1, roll])
    roll = rng.integers(0, rules.tables.n_rolls, size=len(states))
    got = s2.decisions(rules, states[::-1], roll, 0)
    np.testing.assert_array_equal(got, c_one[np.arange(len(states)), roll])
