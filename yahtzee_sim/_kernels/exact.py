"""A turn's roll law and outcomes under fixed decisions, for the numba kernels that still
inline them (regret, saved-roll regret, the score-dependent laws); the exact evaluator's
own kernels are compiled (:mod:`yahtzee_sim._core.exact`, :mod:`yahtzee_sim._core.reach`,
:mod:`yahtzee_sim._core.outcomes`), with the same arithmetic.

A *turn outcome* of a state is a triple ``(box, raw points, Yahtzee bonus?)``
with its probability under the strategy's fixed decisions; the next state and
the points scored (bonuses included) follow from it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from yahtzee_sim._kernels.scoring import (
    box_legal_points,
    flag_after_roll,
    joker_case,
    scored_state,
    yahtzee_bonus_points,
)


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def reach_layer(kr, keep_row, p, w, fin):
    """Push the law ``p`` of the rolls at one decision layer through the strategy's keeps
    ``keep_row[r]``: turns that keep every die end here (their mass is added to ``fin``,
    as in the engine); the others reroll, the dice added one at a time through
    ``keep_add`` (keeps are sorted by size, so larger keeps come later). ``p`` becomes
    the law of the next roll; ``w`` (keeps) is scratch."""
    n_rolls = p.shape[0]
    n_partial = w.shape[0] - n_rolls  # full keeps (= rolls) come last
    inv = 1.0 / kr.keep_add.shape[1]
    for k in range(w.shape[0]):
        w[k] = 0.0
    for r in range(n_rolls):
        if p[r] == 0.0:
            continue
        k = keep_row[r]
        if kr.keep_size[k] == kr.n_dice:
            fin[r] += p[r]
        else:
            w[k] += p[r]
    for k in range(n_partial):
        wk = w[k]
        if wk == 0.0:
            continue
        wk *= inv
        for f in range(kr.keep_add.shape[1]):
            w[kr.keep_add[k, f]] += wk
    for r in range(n_rolls):
        p[r] = w[kr.roll_keep_index[r]]


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def final_roll_law(kr, keep_dec, p, w, fin):
    """Probability of each roll the turn ends with, into ``fin``.

    ``keep_dec[j - 1, r]`` is the keep index chosen at roll ``r`` with ``j``
    rerolls left. ``p`` (rolls) and ``w`` (keeps) are scratch.
    """
    for r in range(p.shape[0]):
        p[r] = kr.first_roll_prob[r]
        fin[r] = 0.0
    for j in range(kr.rolls - 1, 0, -1):
        reach_layer(kr, keep_dec[j - 1], p, w, fin)
    for r in range(p.shape[0]):
        fin[r] += p[r]


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def box_outcome_keys(kr) -> int:
    """The keys of one box's outcomes in :func:`roll_outcomes`' accumulator: two (Yahtzee
    bonus or not) per points from 0 to the most any box scores (a loop: ``ndarray.max``
    compiles in half a second)."""
    most = 0
    for c in range(kr.box_max.shape[0]):
        most = max(most, kr.box_max[c])
    return 2 * (most + 1)


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def roll_outcomes(kr, used, flag, cat_row, fin, acc, touched, width):
    """Group the law ``fin`` of a turn's final roll by outcome ``(box cat_row[r], legal
    points, Yahtzee bonus?)``: ``acc[c * width + 2 * points + bonus]`` += P, the keys
    listed in ``touched``. Returns ``(number of keys, first reachable roll whose box is
    illegal or -1)``; with an illegal box nothing is accumulated."""
    C = kr.n_boxes
    n_touched = 0
    for r in range(fin.shape[0]):
        if fin[r] == 0.0:
            continue
        c = np.int64(cat_row[r])  # (the helpers' one compiled version: int64 arguments)
        pts = -1
        yb = 0
        if 0 <= c < C:
            if kr.yahtzee_face[r] >= 0:
                case = joker_case(kr, r, used, flag)
                pts = box_legal_points(kr, case, r, used, c)
                yb = 1 if yahtzee_bonus_points(kr, r, used, flag) > 0 else 0
            elif (used >> c) & 1 == 0:
                pts = kr.score_table[r, c]
        if pts < 0:
            for m in range(n_touched):
                acc[touched[m]] = 0.0
            return 0, r
        s = c * width + 2 * pts + yb
        if acc[s] == 0.0:
            touched[n_touched] = s
            n_touched += 1
        acc[s] += fin[r]
    return n_touched, -1


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def outcome_effects(kr, used, upper, flag, cat, raw, yb):
    """``(next state, points incl. bonuses, upper bonus paid?)`` of one outcome."""
    nxt, bonus = scored_state(kr, used, upper, flag_after_roll(kr, flag, yb), cat, raw)
    return nxt, raw + yb * kr.yahtzee_bonus + bonus, 1 if bonus > 0 else 0


@njit(cache=True, nogil=True, inline="always")
def tally_outcome(cat_sum, cat_zero, cat_turn, stats, c, raw, yb, ub, m, turn):
    """Add probability ``m`` of an outcome (box ``c``, ``raw`` points, Yahtzee bonus
    ``yb``, upper bonus ``ub``, in 0-based ``turn``) to the per-box and bonus statistics."""
    cat_sum[c] += m * raw
    if raw == 0:
        cat_zero[c] += m
    cat_turn[c] += m * (turn + 1)
    stats[0] += m * ub
    stats[1] += m * yb
