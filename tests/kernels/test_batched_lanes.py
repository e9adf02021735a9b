"""Many games' turns in few widget calls: need lanes batched by shared boxes, and the grouping
of games by key (mixed-state max-EV lanes: ``tests/kernels/test_fill_kernels.py``)."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.game.state import decode_state
from yahtzee_sim.solving.solver import value_table


@given(st.lists(st.integers(-(2**40), 2**40), min_size=1, max_size=300), st.integers(1, 20))
@settings(max_examples=50, deadline=None)
def test_distinct_keys_match_numpy_unique(values, spread):
    """Table play groups games by (state, lane) with ``distinct``: the same groups, in the
    same key order, as ``np.unique``; each representative holds its group's key."""
    from yahtzee_sim._core.batched import distinct

    keys = np.array(values, dtype=np.int64) // spread  # many repeats
    rep, inverse = distinct(keys)
    uniq, inv = np.unique(keys, return_inverse=True)
    assert np.array_equal(keys[rep], uniq)
    assert np.array_equal(inverse, inv.reshape(-1))


@pytest.mark.parametrize("rules_name", ["yahtzee", "yahtzee-single-bonus", "yatzy"])
def test_batched_need_lanes_decide_as_one_lane_widget_runs(rules_name):
    """Score-dependent table play batches (state, lane) pairs sharing filled boxes as the
    lanes of one widget call with given box values; on a random need-lane table its
    decisions equal one-lane need-lane widget runs, pair by pair (Yahtzee bonus and
    bonus limit included)."""
    from yahtzee_sim._core.batched import (
        SPAN,
        decision_buffers,
        lane_order,
        need_lane_decisions,
        read_decisions,
    )
    from yahtzee_sim._core.decisions import fill_states
    from yahtzee_sim._kernels.lanes import points_needed_lanes
    from yahtzee_sim.game.state import n_states

    rules = get_rules(rules_name)
    kr = kernel_rules(rules)
    rng = np.random.default_rng(3)
    size, width = n_states(rules), 6
    first = rng.integers(0, 40, size=size)
    table = points_needed_lanes(
        rng.random(size * width),
        np.arange(size, dtype=np.int64) * width,
        np.full(size, width, dtype=np.int64),
        first,
        top=1.0,
        bottom=0.0,
    )
    V = value_table(rules).values
    reachable = np.flatnonzero(V > 0)
    states = np.sort(rng.choice(reachable, size=150, replace=False))
    # one to three lanes per state: runs of pairs of one state share a box-value fill, a
    # lone pair or a run spread over more than SPAN lanes is filled pair by pair
    states = np.repeat(states, rng.integers(1, 4, size=len(states)))
    used, upper, flag = decode_state(rules, states)
    lane = first[states] + rng.integers(-2, width + 2, size=len(states))
    lane += np.where(rng.random(len(states)) < 0.2, SPAN + 8, 0)  # spread, past the row
    layers, n_rolls = max(rules.rolls_per_turn - 1, 1), rules.tables.n_rolls
    keep_a = np.empty((len(states), layers, n_rolls), np.int16)
    cat_a = np.empty((len(states), n_rolls), np.int8)
    fill_states(kr, table, used, upper, flag, lane, np.arange(len(states)), keep_a, cat_a)
    order = lane_order(states)
    p = np.arange(len(states))  # pair order[p] in row p
    none = np.zeros(0, dtype=np.int64)
    keep_b, cat_b = decision_buffers(threading.local(), len(states), rules)
    need_lane_decisions(kr, table, order, used, upper, flag, lane, none, none, keep_b, cat_b, none)
    for left in range(layers + 1):  # every roll recorded
        got = read_decisions(keep_b, cat_b, p, left, np.arange(n_rolls)[:, None]).T
        assert np.array_equal(got, cat_a[order] if left == 0 else keep_a[order, left - 1])
    # the first roll's keeps taken at given rolls: here every roll of every pair, some
    # twice, in a shuffled order within each row
    per_row = np.tile(np.r_[np.arange(n_rolls), np.arange(0, n_rolls, 7)], (len(p), 1))
    per_row = rng.permuted(per_row, axis=1)
    first_ptr = np.arange(len(p) + 1, dtype=np.int64) * per_row.shape[1]
    first_keep = np.full(per_row.size, -1, dtype=np.int64)
    keep_c, cat_c = decision_buffers(threading.local(), len(states), rules)
    need_lane_decisions(kr, table, order, used, upper, flag, lane, first_ptr,
                        per_row.ravel().astype(np.int64), keep_c, cat_c, first_keep)  # fmt: skip
    expected = np.take_along_axis(keep_a[order, layers - 1], per_row, axis=1)
    assert np.array_equal(first_keep.reshape(per_row.shape), expected)
    for left in range(layers):  # the later rolls as before
        got = read_decisions(keep_c, cat_c, p, left, np.arange(n_rolls)[:, None]).T
        assert np.array_equal(got, cat_a[order] if left == 0 else keep_a[order, left - 1])
