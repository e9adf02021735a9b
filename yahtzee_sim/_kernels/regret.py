"""Kernel of the regret analysis: what each decision of a strategy costs against optimal.

For one turn-start state, the optimal values of every decision point of the turn
are computed from the solved table (as in the widget), and the strategy's own
decisions give the probability of reaching each point. The loss of a decision is
``optimal value of the point − optimal value after the strategy's action``; by the
performance-difference identity, the reach-weighted losses of all decision points
sum to ``optimal value − the strategy's expected score``.

Layers: ``0`` is the box choice, ``j >= 1`` the keep with ``j`` rerolls left.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .decisions import box_value
from .play import category_legal_points, joker_case, yahtzee_bonus_points
from .widget import NEG


@njit(cache=True, nogil=True)
def _turn_regret(kr, keep_add, keep_remove, keep_size, roll_keep_index, rolls, V, used, upper,
                 flag, keep_dec, cat_dec, R, K, M, Marg, p, w, val, loss, by_cat, top_roll,
                 top_p, top_loss, top_best):  # fmt: skip
    n_rolls = roll_keep_index.shape[0]
    n_keeps, F = keep_add.shape
    n_partial = n_keeps - n_rolls
    C = kr.n_categories
    for j in range(rolls):
        loss[j] = 0.0
        top_loss[j] = 0.0
        top_roll[j] = -1
        top_p[j] = 0.0
        top_best[j] = -1
    for c in range(C):
        by_cat[c] = 0.0
    # R[0, r]: best value of scoring roll r; L0[r] (kept in M) its loss for the chosen box.
    # val[c, p] = value of p points in open box c (points + bonus + next state), tabled
    # once per state so the roll loop is lookups only.
    for c in range(C):
        if not (used >> c) & 1:
            for pts in range(val.shape[1]):
                val[c, pts] = box_value(kr, V, used, upper, flag, c, pts)
    for r in range(n_rolls):
        is_y = kr.yahtzee_face[r] >= 0
        case = joker_case(kr, r, used, flag) if is_y else 0
        best = NEG
        best_c = -1
        chosen = NEG
        for c in range(C):
            if case == 0:
                if (used >> c) & 1:
                    continue
                pts = kr.score_table[r, c]
            else:
                pts = category_legal_points(kr, case, r, used, c)
                if pts < 0:
                    continue
            v = val[c, pts]
            if v > best:
                best = v
                best_c = c
            if c == cat_dec[r]:
                chosen = v
        yb = yahtzee_bonus_points(kr, r, used, flag) if is_y else 0
        R[0, r] = best + yb
        K[0, r] = best - chosen  # the box loss of roll r (K[0] is free scratch)
        Marg[0, r] = best_c
    # keeps: K[j, k] = value of keep k with j rerolls left, R[j, r] = best value at roll r
    inv = 1.0 / F
    for j in range(1, rolls):
        Kj = K[j]
        for r in range(n_rolls):
            Kj[roll_keep_index[r]] = R[j - 1, r]
        for k in range(n_partial - 1, -1, -1):
            acc = 0.0
            for f in range(F):
                acc += Kj[keep_add[k, f]]
            Kj[k] = acc * inv
        # best partial sub-keep of every keep (keeping all dice ends the turn: R[0])
        for k in range(n_keeps):
            m = Kj[k] if k < n_partial else NEG
            a = k if k < n_partial else -1
            for f in range(F):
                kk = keep_remove[k, f]
                if kk < 0:
                    continue
                if M[kk] > m:
                    m = M[kk]
                    a = Marg[j, kk]
            M[k] = m
            Marg[j, k] = a
        for r in range(n_rolls):
            kf = roll_keep_index[r]
            if R[0, r] >= M[kf]:  # ties: keep everything (the larger keep)
                R[j, r] = R[0, r]
                Marg[j, kf] = kf
            else:
                R[j, r] = M[kf]
        for r in range(n_rolls):  # Marg[j, r] by roll for the report
            M[r] = Marg[j, roll_keep_index[r]]
        for r in range(n_rolls):
            Marg[j, r] = M[r]
    # forward through the turn under the strategy's keeps, charging each decision's loss
    for r in range(n_rolls):
        p[r] = kr.first_roll_prob[r]
    fin = M  # scratch: probability that the turn ends with roll r
    for r in range(n_rolls):
        fin[r] = 0.0
    for j in range(rolls - 1, 0, -1):
        Kj = K[j]
        for k in range(n_keeps):
            w[k] = 0.0
        for r in range(n_rolls):
            if p[r] == 0.0:
                continue
            k = keep_dec[j - 1, r]
            q = R[0, r] if keep_size[k] == kr.n_dice else Kj[k]
            d = R[j, r] - q
            if d > 0.0:
                loss[j] += p[r] * d
                if p[r] * d > top_p[j] * top_loss[j]:
                    top_roll[j] = r
                    top_p[j] = p[r]
                    top_loss[j] = d
                    top_best[j] = Marg[j, r]
            if keep_size[k] == kr.n_dice:
                fin[r] += p[r]
            else:
                w[k] += p[r]
        for k in range(n_partial):
            wk = w[k]
            if wk == 0.0:
                continue
            wk *= inv
            for f in range(F):
                w[keep_add[k, f]] += wk
        for r in range(n_rolls):
            p[r] = w[roll_keep_index[r]]
    for r in range(n_rolls):
        pr = p[r] + fin[r]
        if pr == 0.0:
            continue
        d = K[0, r]
        if d > 0.0:
            loss[0] += pr * d
            by_cat[cat_dec[r]] += pr * d
            if pr * d > top_p[0] * top_loss[0]:
                top_roll[0] = r
                top_p[0] = pr
                top_loss[0] = d
                top_best[0] = Marg[0, r]


@njit(cache=True, parallel=True, nogil=True)
def level_regret(kr, keep_add, keep_remove, keep_size, roll_keep_index, rolls, V, used, upper,
                 flag, keep_dec, cat_dec, loss, by_cat, top_roll, top_p, top_loss,
                 top_best):  # fmt: skip
    """Per-state expected losses of one level, in parallel over states.

    ``loss[i, j]``: expected loss (given the state is reached) of layer ``j``;
    ``by_cat[i, c]``: box losses by the box the strategy chose; ``top_*[i, j]``: the
    costliest roll of each layer (roll, probability within the turn, loss, optimal
    action: box index or keep index)."""
    n = used.shape[0]
    n_rolls = roll_keep_index.shape[0]
    n_keeps = keep_add.shape[0]
    n_chunks = min(n, 64)
    n_points = max(kr.score_table.max(), kr.joker_table.max()) + 1
    for chunk in prange(n_chunks):
        val = np.empty((kr.n_categories, n_points))
        R = np.empty((rolls, n_rolls))
        K = np.empty((rolls, n_keeps))
        M = np.empty(n_keeps)
        Marg = np.empty((rolls, n_keeps), dtype=np.int64)
        p = np.empty(n_rolls)
        w = np.empty(n_keeps)
        for i in range(chunk, n, n_chunks):
            _turn_regret(kr, keep_add, keep_remove, keep_size, roll_keep_index, rolls, V,
                         used[i], upper[i], flag[i], keep_dec[i], cat_dec[i], R, K, M, Marg, p,
                         w, val, loss[i], by_cat[i], top_roll[i], top_p[i], top_loss[i],
                         top_best[i])  # fmt: skip
