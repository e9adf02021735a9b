"""Kernels of the target-score solver: max P(points still to come >= t), all t at once.

The table holds, for every turn-start state ``s`` (the shared encoding) and every
number of points still needed ``t = 0 .. length[s] - 1``, the largest probability
``P[s, t]`` of scoring at least ``t`` more points (bonuses included). A state's
lanes are one contiguous row ``probs[offset[s] : offset[s] + length[s]]``;
``P[s, t] = 1`` for ``t <= 0`` and ``0`` for ``t >= length[s]`` (more than the
state can still score), so rows stop at the state's largest remaining score.

The turn computation is the widget of :mod:`.widget` with lanes over ``t``
instead of the upper total: scoring ``q`` points (box + bonuses) shifts the lanes
(``P[s', t - q]``), keeps average (:func:`.widget.keep_values`) and rolls take the
best sub-keep (:func:`.widget.best_subkeeps`). Ties: the first box in score-card
order, the larger keep, as in the max-EV widget.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .play import category_legal_points, joker_case, scored_state, yahtzee_bonus_points
from .widget import best_subkeeps, first_roll_mean, keep_values


@njit(cache=True, nogil=True)
def target_category_step(kr, roll_keep_index, probs, offset, length, used, upper, flag, t_lo,
                         nu, E, record, cat_choice):  # fmt: skip
    """``E[keep index of roll r, i]`` = best probability of scoring at least
    ``t_lo + i`` more points when the turn ends on roll ``r``.

    With ``record`` (``nu == 1``), ``cat_choice[r]`` gets the best box."""
    n_rolls = roll_keep_index.shape[0]
    C = kr.n_categories
    for r in range(n_rolls):
        Er = E[roll_keep_index[r]]
        for i in range(nu):
            Er[i] = 0.0
        if record:
            cat_choice[r] = -1
        is_y = kr.yahtzee_face[r] >= 0
        case = joker_case(kr, r, used, flag) if is_y else 0
        yb = yahtzee_bonus_points(kr, r, used, flag) if is_y else 0
        for c in range(C):
            p = category_legal_points(kr, case, r, used, c)
            if p < 0:
                continue
            s2, bonus = scored_state(kr, used, upper, flag, c, p)
            q = p + yb + bonus
            o2 = offset[s2]
            n2 = length[s2]
            before = Er[0]
            # lanes i with t_lo + i <= q are sure (1); below q + n2 they read the next row
            a = min(max(q - t_lo + 1, 0), nu)
            b = min(max(q + n2 - t_lo, 0), nu)
            for i in range(a):
                Er[i] = 1.0
            src = o2 + t_lo - q
            for i in range(a, b):  # lanes past b: beyond the next state's reach, 0
                Er[i] = max(Er[i], probs[src + i])
            if record and (cat_choice[r] < 0 or Er[0] > before):
                cat_choice[r] = c


@njit(cache=True, nogil=True)
def target_widget(kr, keep_add, keep_remove, keep_size, roll_keep_index, rolls, probs, offset,
                  length, used, upper, flag, t_lo, nu, W, record, cat_choice, keep_choice,
                  arg):  # fmt: skip
    """One turn backwards in ``W`` (one row per keep, ``nu`` lanes of t); the turn-start
    probabilities end in ``W[0, :nu]``. With ``record`` (``nu == 1``) the best box per
    roll and the best keep per (rerolls left, roll) are written."""
    target_category_step(kr, roll_keep_index, probs, offset, length, used, upper, flag, t_lo, nu,
                         W, record, cat_choice)  # fmt: skip
    for j in range(1, rolls):
        keep_values(keep_add, keep_size, kr.n_dice, W, nu)
        best_subkeeps(keep_remove, W, nu, record, arg)
        if record:
            for r in range(roll_keep_index.shape[0]):
                keep_choice[j, r] = arg[roll_keep_index[r]]
    first_roll_mean(kr, roll_keep_index, W, nu)


@njit(cache=True, parallel=True, nogil=True)
def solve_target_level(kr, keep_add, keep_remove, keep_size, roll_keep_index, rolls, probs,
                       offset, length, items, tile):  # fmt: skip
    """Fill the rows of the states ``items[:, 3]`` (used, upper, flag, state index in
    columns 0..3) of one level, in parallel, ``tile`` lanes at a time."""
    n_keeps = keep_add.shape[0]
    n = items.shape[0]
    n_chunks = min(n, 64)
    for chunk in prange(n_chunks):
        Wbuf = np.empty(n_keeps * tile)
        arg = np.empty(n_keeps, dtype=np.int64)
        dummy_i = np.zeros(1, dtype=np.int64)
        dummy_2i = np.zeros((1, 1), dtype=np.int64)
        for k in range(chunk, n, n_chunks):
            s = items[k, 3]
            o = offset[s]
            # lanes in tiles: the work array of a tile stays in the core's cache
            for lo in range(0, length[s], tile):
                nu = min(tile, length[s] - lo)
                W = Wbuf[: n_keeps * nu].reshape((n_keeps, nu))
                target_widget(kr, keep_add, keep_remove, keep_size, roll_keep_index, rolls,
                              probs, offset, length, items[k, 0], items[k, 1], items[k, 2], lo,
                              nu, W, False, dummy_i, dummy_2i, arg)  # fmt: skip
                for i in range(nu):
                    probs[o + lo + i] = W[0, i]
            probs[o] = 1.0  # P(at least 0 more) is exactly 1


@njit(cache=True, parallel=True, nogil=True)
def target_decisions(kr, keep_add, keep_remove, keep_size, roll_keep_index, rolls, probs, offset,
                     length, used, upper, flag, need, rolls_left, roll, out):  # fmt: skip
    """Per row: the decision maximizing P(at least ``need`` more points) — the keep
    index (``rolls_left > 0``) or the box — at roll ``roll`` of state (used, upper, flag)."""
    n_keeps = keep_add.shape[0]
    n_rolls = roll_keep_index.shape[0]
    n = used.shape[0]
    n_chunks = min(n, 64)
    for chunk in prange(n_chunks):
        W = np.empty((n_keeps, 1))
        arg = np.empty(n_keeps, dtype=np.int64)
        cat = np.empty(n_rolls, dtype=np.int64)
        keep = np.empty((rolls, n_rolls), dtype=np.int64)
        for k in range(chunk, n, n_chunks):
            target_widget(kr, keep_add, keep_remove, keep_size, roll_keep_index, rolls, probs,
                          offset, length, used[k], upper[k], flag[k], need[k], 1, W, True, cat,
                          keep, arg)  # fmt: skip
            j = rolls_left[k]
            out[k] = cat[roll[k]] if j == 0 else keep[j, roll[k]]
