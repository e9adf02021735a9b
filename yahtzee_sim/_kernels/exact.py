"""Kernels of the exact evaluator: one turn's outcome law per state, then the
forward (reach, moments) and backward (score distribution) passes over levels.

A *turn outcome* of a state is a triple ``(box, raw points, Yahtzee bonus?)``
with its probability under the strategy's fixed decisions; the next state and
the points scored (bonuses included) follow from it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange

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


@njit(cache=True, nogil=True)
def turn_outcomes(
    kr, used, upper, flag, keep_dec, cat_dec, out_cat, out_raw, out_yb, out_prob, out_n, bad_roll
):
    """Outcome law of one turn for each state ``i``, in chunks of states.

    Outcomes of state ``i`` go to ``out_*[i, :out_n[i]]``. ``bad_roll[i]`` is the first
    reachable final roll whose chosen box is illegal (-1 if none); such a state has
    no outcomes. Serial: a caller runs slices of the states in threads (the kernel
    releases the GIL; a parallel kernel takes twice as long to compile), and each
    state's outcomes are the same whatever the slice it is in.
    """
    n = used.shape[0]
    n_rolls = cat_dec.shape[1]
    n_keeps = kr.keep_size.shape[0]
    C = kr.n_boxes
    rolls = kr.rolls
    width = box_outcome_keys(kr)
    n_chunks = min(n, 64)
    layers = keep_dec.shape[1]
    for chunk in prange(n_chunks):
        p = np.empty(n_rolls)
        fin = np.empty(n_rolls)
        w = np.empty(n_keeps)
        acc = np.zeros(C * width)
        touched = np.empty(n_rolls, dtype=np.int64)
        lo = chunk * n // n_chunks
        for i in range(lo, (chunk + 1) * n // n_chunks):
            # neighbouring states (often the same boxes, another upper total) tend to keep
            # alike: the final-roll law is recomputed only when the keeps differ
            same = i > lo and rolls > 1
            if same:
                for j in range(layers):
                    for r in range(n_rolls):
                        if keep_dec[i, j, r] != keep_dec[i - 1, j, r]:
                            same = False
                            break
                    if not same:
                        break
            if not same:
                final_roll_law(kr, keep_dec[i], p, w, fin)
            n_touched, bad_roll[i] = roll_outcomes(
                kr, used[i], flag[i], cat_dec[i], fin, acc, touched, width
            )
            for m in range(n_touched):
                s = touched[m]
                out_cat[i, m] = s // width
                out_raw[i, m] = (s % width) // 2
                out_yb[i, m] = s % 2
                out_prob[i, m] = acc[s]
                acc[s] = 0.0
            out_n[i] = n_touched


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


@njit(cache=True, nogil=True)
def compact_outcomes(out_n, out_cat, out_raw, out_yb, out_prob, cat, raw, yb, prob, start):
    """Copy the first ``out_n[i]`` outcomes of every row ``i`` to consecutive entries of
    ``cat, raw, yb, prob`` from ``start`` on; returns the next free entry."""
    e = start
    for i in range(out_n.shape[0]):
        for m in range(out_n[i]):
            cat[e] = out_cat[i, m]
            raw[e] = out_raw[i, m]
            yb[e] = out_yb[i, m]
            prob[e] = out_prob[i, m]
            e += 1
    return e


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def outcome_effects(kr, used, upper, flag, cat, raw, yb):
    """``(next state, points incl. bonuses, upper bonus paid?)`` of one outcome."""
    nxt, bonus = scored_state(kr, used, upper, flag_after_roll(kr, flag, yb), cat, raw)
    return nxt, raw + yb * kr.yahtzee_bonus + bonus, 1 if bonus > 0 else 0


@njit(cache=True, nogil=True)
def level_effects(kr, used, upper, flag, ptr, cat, raw, yb, nxt, pts, ub):
    """Fill ``nxt``, ``pts`` and ``ub`` of every outcome of a level (CSR by state)."""
    for i in range(used.shape[0]):
        for t in range(ptr[i], ptr[i + 1]):
            nxt[t], pts[t], ub[t] = outcome_effects(
                kr, used[i], upper[i], flag[i], cat[t], raw[t], yb[t]
            )


class Moments(NamedTuple):
    """What the forward pass accumulates: per state the reach probability ``A`` and the
    partial moments ``B = E[score; at s]``, ``S2 = E[score^2; at s]``; per box the
    expected points, P(zero) and fill turn; ``stats`` = (P(upper bonus), expected
    Yahtzee bonuses)."""

    A: np.ndarray
    B: np.ndarray
    S2: np.ndarray
    cat_sum: np.ndarray
    cat_zero: np.ndarray
    cat_turn: np.ndarray
    stats: np.ndarray


def new_moments(n_states: int, n_boxes: int) -> Moments:
    """Zero moments, with the start state reached for sure."""
    m = Moments(*(np.zeros(n) for n in (n_states,) * 3 + (n_boxes,) * 3 + (2,)))
    m.A[0] = 1.0
    return m


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


@njit(cache=True, nogil=True)
def forward_level(states, ptr, cat, raw, yb, nxt, pts, ub, prob, turn, acc):
    """Push reach probability and partial moments (``acc``, :class:`Moments`) from a
    level's states to the next level's, and add each outcome's contribution to the
    per-box and bonus statistics."""
    A, B, S2, cat_sum, cat_zero, cat_turn, stats = acc
    for i in range(states.shape[0]):
        s = states[i]
        a = A[s]
        b = B[s]
        s2 = S2[s]
        for t in range(ptr[i], ptr[i + 1]):
            pr = prob[t]
            x = float(pts[t])
            n = nxt[t]
            A[n] += pr * a
            B[n] += pr * (b + x * a)
            S2[n] += pr * (s2 + 2.0 * x * b + x * x * a)
            tally_outcome(
                cat_sum, cat_zero, cat_turn, stats, cat[t], raw[t], yb[t], ub[t], pr * a, turn
            )


@njit(cache=True, nogil=True)
def support_top(ptr, nxt_row, pts, top_next):
    """Highest reachable future score of each state (``top_next`` for the next level)."""
    n = ptr.shape[0] - 1
    out = np.zeros(n, dtype=np.int64)
    for i in range(n):
        h = 0
        for t in range(ptr[i], ptr[i + 1]):
            h = max(h, pts[t] + top_next[nxt_row[t]])
        out[i] = h
    return out


@njit(cache=True, parallel=True, nogil=True)
def pmf_level(ptr, nxt_row, pts, prob, V_next, top_next, V):
    """``V[i, x]`` = P(future score = x) from state ``i``: the mixture of the next
    states' laws shifted by the points of each outcome (in parallel over states).

    The 2-d arrays are indexed directly, with unsigned columns: a row view (``V[i]``) is
    reference-counted, and a signed column is a gather, not a vector load — together
    three times the time of the sums."""
    n = ptr.shape[0] - 1
    L = V.shape[1]
    for i in prange(n):
        for x in range(L):
            V[i, x] = 0.0
        for t in range(ptr[i], ptr[i + 1]):
            r = nxt_row[t]
            pr = prob[t]
            s = pts[t]
            for x in range(top_next[r] + 1):
                V[i, np.uint64(x + s)] += pr * V_next[r, np.uint64(x)]
