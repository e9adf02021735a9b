"""The widget's register-accumulated inner steps against plain reference loops.

``best_boxes``, ``keep_values`` and ``best_subkeeps`` are written for the vectorizer
(several rows compared or summed in registers, each row stored once); every figure the
project prints depends on them giving the same numbers, bit for bit, and the same
tie-breaks as the plain loops. Games with saved rolls have kernel rules of their own
type, so the other games' kernels are compiled without the saved-roll steps.
"""

from __future__ import annotations

import dataclasses

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yahtzee_sim import get_rules
from yahtzee_sim._kernels.box_step import NEG, best_boxes
from yahtzee_sim._kernels.keep_steps import best_subkeeps, keep_values
from yahtzee_sim._kernels.scoring import keep_subs, kernel_rules

from helpers import small_saved_game


def reference_best_boxes(V, rows, boxes, n, src, mul, add, nu):
    """One roll's best box per lane: the first strictly better box in the order given."""
    W = np.full(nu, NEG)
    cat = np.full(nu, -1, dtype=np.int64)
    for t in range(nu):
        for i in range(n):
            v = V[rows[i], src + t] * mul + add
            if v > W[t]:
                W[t], cat[t] = v, boxes[i]
    return W, cat


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(0, 15),
    nu=st.integers(1, 11),
    src=st.integers(0, 3),
    levels=st.integers(1, 4),  # few distinct values: many exact ties
    mul=st.sampled_from([1.0, 0.5, 2.0]),
    add=st.sampled_from([0.0, 50.0]),
    seed=st.integers(0, 2**32 - 1),
)
def test_best_boxes_matches_the_plain_loop_ties_included(n, nu, src, levels, mul, add, seed):
    rng = np.random.default_rng(seed)
    n_slots = 20
    V = rng.integers(0, levels, size=(n_slots, nu + src)).astype(np.float64)
    V[rng.random(V.shape) < 0.1] = NEG  # boxes filled in some lanes
    rows = rng.integers(0, n_slots, size=15).astype(np.int64)
    boxes = np.sort(rng.choice(15, size=15, replace=False)).astype(np.int64)
    W = np.full(nu, 123.0)  # overwritten
    cat = np.full(nu, 99, dtype=np.int64)
    best_boxes(W, cat, True, V, rows, boxes, n, src, mul, add, nu)
    W_ref, cat_ref = reference_best_boxes(V, rows, boxes, n, src, mul, add, nu)
    np.testing.assert_array_equal(W, W_ref)
    np.testing.assert_array_equal(cat, cat_ref)
    W2 = np.full(nu, 123.0)  # without recording: the same values, the record untouched
    untouched = np.full(nu, 7, dtype=np.int64)
    best_boxes(W2, untouched, False, V, rows, boxes, n, src, mul, add, nu)
    np.testing.assert_array_equal(W2, W_ref)
    assert (untouched == 7).all()


def reference_keep_values(kr, W):
    """Partial keeps' expected values, one rerolled die at a time, faces in order."""
    W = W.copy()
    F = kr.keep_add.shape[1]
    for k in range(kr.keep_add.shape[0] - 1, -1, -1):
        if kr.keep_size[k] == kr.n_dice:
            continue
        acc = np.zeros(W.shape[1])
        for f in range(F):
            acc = acc + W[kr.keep_add[k, f]]
        W[k] = acc * (1.0 / F)
    return W


@settings(max_examples=20, deadline=None)
@given(
    rules=st.sampled_from(["yatzy", "yahtzee", "2-yatzy"]),  # six faces; two (general loop)
    nu=st.integers(1, 70),
    seed=st.integers(0, 2**32 - 1),
)
def test_keep_values_are_the_plain_sums_bit_for_bit(rules, nu, seed):
    kr = kernel_rules(get_rules(rules))
    rng = np.random.default_rng(seed)
    W = rng.normal(size=(kr.keep_add.shape[0], nu)) * 10.0 ** rng.integers(-3, 4)
    expected = reference_keep_values(kr, W)
    keep_values(kr, W, nu)
    np.testing.assert_array_equal(W, expected)  # same sums in the same order: no tolerance


def reference_best_subkeeps(kr, W):
    """Each keep's best sub-keep value and which sub-keep: the keep itself, then one
    die fewer, faces in ascending order, each a strictly better running best."""
    W = W.copy()
    A = np.tile(np.arange(W.shape[0], dtype=np.int32)[:, None], (1, W.shape[1]))
    for k in range(W.shape[0]):
        for f in range(kr.keep_remove.shape[1]):
            kk = kr.keep_remove[k, f]
            if kk < 0:
                continue
            better = W[kk] > W[k]
            W[k] = np.where(better, W[kk], W[k])
            A[k] = np.where(better, A[kk], A[k])
    return W, A


def six_dice_rules():
    """Yatzy with six dice: keeps of six distinct faces (past the widget's five rows)."""
    return dataclasses.replace(get_rules("yatzy"), n_dice=6, name="yatzy-six-dice")


@settings(max_examples=20, deadline=None)
@given(
    rules=st.sampled_from(["yatzy", "yahtzee", "2-yatzy", "six dice"]),
    nu=st.integers(1, 70),
    levels=st.integers(1, 5),  # few distinct values: many exact ties
    seed=st.integers(0, 2**32 - 1),
)
def test_best_subkeeps_match_the_plain_loop_ties_included(rules, nu, levels, seed):
    kr = kernel_rules(six_dice_rules() if rules == "six dice" else get_rules(rules))
    rng = np.random.default_rng(seed)
    W0 = rng.integers(0, levels, size=(kr.keep_add.shape[0], nu)).astype(np.float64)
    W_ref, A_ref = reference_best_subkeeps(kr, W0)
    W, A = W0.copy(), np.full(W0.shape, -5, dtype=np.int32)
    best_subkeeps(kr, W, A, nu, True)
    np.testing.assert_array_equal(W, W_ref)
    np.testing.assert_array_equal(A, A_ref)
    W, untouched = W0.copy(), np.full(W0.shape, -5, dtype=np.int32)
    best_subkeeps(kr, W, untouched, nu, False)  # the values in registers, no record
    np.testing.assert_array_equal(W, W_ref)
    assert (untouched == -5).all()


def test_best_subkeeps_reach_the_sixth_face_of_a_six_face_keep():
    kr = kernel_rules(six_dice_rules())
    k6 = int(np.flatnonzero(kr.keep_sub_count == 6)[0])  # one of each face
    k5 = int(kr.keep_remove[k6, 5])  # the sixes removed: read past the five rows
    for record in (True, False):
        W, A = np.zeros((kr.keep_add.shape[0], 3)), np.zeros((kr.keep_add.shape[0], 3), np.int32)
        W[k5] = 1.0
        best_subkeeps(kr, W, A, 3, record)
        assert (W[k6] == 1.0).all()
        if record:
            assert (A[k6] == k5).all()


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


def test_only_games_with_saved_rolls_compile_the_saved_roll_steps():
    plain = [kernel_rules(get_rules(name)) for name in ("yahtzee", "yatzy", "2-yatzy")]
    saving = kernel_rules(small_saved_game(cap=2))
    assert all(kr.saving is None for kr in plain) and saving.saving is True
    # one kernel type for every game without saved rolls, another with them
    assert len({numba.typeof(kr) for kr in plain}) == 1
    assert numba.typeof(saving) != numba.typeof(plain[0])
