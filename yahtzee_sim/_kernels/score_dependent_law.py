"""The exact law of score-dependent strategies: one level of the forward pass over positions.

A position is a score-augmented state (turn-start state, points so far); the strategies
are those played from need lanes (target, win, utility), :mod:`yahtzee_sim.exact.score_dependent`.
Flat in ``_kernels/``: the kernel cache keys each kernel on this folder's files (see ``__init__``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from yahtzee_sim._kernels.exact import (
    box_outcome_keys,
    final_roll_law,
    outcome_effects,
    roll_outcomes,
    tally_outcome,
)
from yahtzee_sim._kernels.lanes import lane_live
from yahtzee_sim._kernels.widget import widget
from yahtzee_sim._kernels.work_buffers import new_work


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _push(kr, used, upper, flag, x, mass, acc, touched, n_touched, width, sink):
    """Move ``mass`` at ``x`` points along the outcomes ``acc[touched[:n_touched]]``
    into ``sink = (next_off, next_mass, turn, stats, cat_sum, cat_zero, cat_turn)``
    (the arrays of :func:`augmented_level`)."""
    next_off, next_mass, turn, stats, cat_sum, cat_zero, cat_turn = sink
    for m in range(n_touched):
        key = touched[m]
        c = key // width
        raw = (key % width) // 2
        yb = key % 2
        nxt, pts, ub = outcome_effects(kr, used, upper, flag, c, raw, yb)
        w = acc[key] * mass
        next_mass[next_off[nxt] + x + pts] += w
        tally_outcome(cat_sum, cat_zero, cat_turn, stats, c, raw, yb, ub, w, turn)


@njit(cache=True, nogil=True)
def augmented_level(
    kr,
    lanes,
    anchor,
    items,
    opt_keep,
    opt_cat,
    off,
    mass,
    next_off,
    next_mass,
    turn,
    tile,
    stats,
    cat_sum,
    cat_zero,
    cat_turn,
):
    """Push the mass of every score-augmented position of one level to the next level.

    ``items[i] = (used, upper, flag, state)`` with mass ``mass[off[state] + x]`` at ``x``
    points so far (``x < off[state + 1] - off[state]``). Live lanes
    (:func:`~.lanes.lane_live`, lane ``anchor - x``) are played by the widget's
    recorded decisions, ``tile`` lanes per run; the others by the fallback decisions
    ``opt_keep[i], opt_cat[i]`` (max-EV). Returns the first item with an illegal
    fallback box (-1 if none).
    """
    n_rolls = kr.roll_keep_index.shape[0]
    n_keeps = kr.keep_size.shape[0]
    layers = opt_keep.shape[1]
    width = box_outcome_keys(kr)
    p = np.empty(n_rolls)
    fin = np.empty(n_rolls)
    w = np.empty(n_keeps)
    acc = np.zeros(kr.n_boxes * width)
    touched = np.empty(n_rolls, dtype=np.int64)
    keep_dec = np.zeros((layers, n_rolls), dtype=np.int64)
    cat_row = np.empty(n_rolls, dtype=np.int64)
    work = new_work(kr, tile, 1)
    sink = (next_off, next_mass, turn, stats, cat_sum, cat_zero, cat_turn)
    for i in range(items.shape[0]):
        used, upper, flag, s = items[i, 0], items[i, 1], items[i, 2], items[i, 3]
        o = off[s]
        n = off[s + 1] - o
        # fallback (max-EV) outcomes, applied to every dead lane
        final_roll_law(kr, opt_keep[i], p, w, fin)
        nd, bad = roll_outcomes(kr, used, flag, opt_cat[i], fin, acc, touched, width)
        if bad >= 0:
            return i
        t_lo, t_hi = 1 << 40, -(1 << 40)
        for x in range(n):
            if mass[o + x] == 0.0:
                continue
            t = anchor - x
            if lane_live(lanes, s, t):
                t_lo = min(t_lo, t)
                t_hi = max(t_hi, t)
            else:
                _push(kr, used, upper, flag, x, mass[o + x], acc, touched, nd, width, sink)
        for m in range(nd):
            acc[touched[m]] = 0.0
        for lo in range(t_lo, t_hi + 1, tile):
            nu = min(tile, t_hi + 1 - lo)
            _, cat, keep, _, _ = widget(kr, lanes, used, upper, flag, lo, nu, work, np.int64(1))
            for k in range(nu):
                x = anchor - lo - k
                if x < 0 or x >= n or mass[o + x] == 0.0 or not lane_live(lanes, s, lo + k):
                    continue
                for r in range(n_rolls):
                    cat_row[r] = cat[r, k]
                    for j in range(1, kr.rolls):
                        keep_dec[j - 1, r] = keep[j, r, k]
                final_roll_law(kr, keep_dec, p, w, fin)
                nl, _ = roll_outcomes(kr, used, flag, cat_row, fin, acc, touched, width)
                _push(kr, used, upper, flag, x, mass[o + x], acc, touched, nl, width, sink)
                for m in range(nl):
                    acc[touched[m]] = 0.0
    return -1
