"""The widget's register-accumulated inner steps against plain reference loops.

``best_boxes`` and ``keep_values`` are written for the vectorizer (several rows compared
or summed in registers, each row stored once); every figure the project prints depends on
them giving the same numbers, bit for bit, and the same tie-breaks as the plain loops.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from yahtzee_sim import get_rules
from yahtzee_sim._kernels.play import kernel_rules
from yahtzee_sim._kernels.widget import NEG, best_boxes, keep_values


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
