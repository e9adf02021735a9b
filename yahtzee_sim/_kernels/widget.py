"""The widget kernel: one turn of play from a turn-start state (Glenn 2006 §5).

For a state ``(used, flag)`` and a range of upper totals ``u`` (vectorized: the
innermost loops run over ``u``), given the values ``V`` of every later state:

1. **category step** — for every roll, the best box: points + upper bonus if
   the box reaches the threshold + Yahtzee bonus + ``V[next state]``;
2. **keep steps** (one per reroll left) — a keep's value is the expected value
   of the roll it leads to, computed by adding the rerolled dice *one at a
   time* (``K[k] = mean_f K[k + f]``, 1260 edges for 5d6 instead of 4368);
   a roll's value is the best of its sub-keeps, found by removing dice one at
   a time (``M[k] = max(K[k], max_f M[k - f])``); both passes run in place in
   one work array whose rows of full keeps hold the roll values;
3. the state's value is the value of keeping nothing before the first roll.

Ties: the first box in score-card order; among keeps, the keep itself before
its sub-keeps (more dice kept), then removing the lowest face first.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .play import category_legal_points, joker_case, yahtzee_bonus_points

NEG = -1.0e300


@njit(cache=True, nogil=True)
def category_step(kr, roll_keep_index, V, used, flag, u_lo, nu, E, record, cat_choice):
    """E[keep index of roll r, t] = best value of scoring roll r at upper total u_lo + t.

    For an upper box the next upper total is min(u + p, cap) and the upper bonus
    is paid when u < cap <= u + p. With ``record`` (``nu == 1``) ``cat_choice[r]``
    gets the best box (the first in score-card order on ties).
    """
    n_rolls = kr.score_table.shape[0]
    cap = kr.upper_cap
    cap1 = cap + 1
    fs = kr.flag_size
    C = kr.n_categories
    pts = np.empty(C, dtype=np.int64)
    for r in range(n_rolls):
        Er = E[roll_keep_index[r]]
        is_y = kr.yahtzee_face[r] >= 0  # joker/bonus logic only for n-of-a-kind rolls
        case = joker_case(kr, r, used, flag) if is_y else 0
        if case == 0:
            for c in range(C):
                pts[c] = -1 if (used >> c) & 1 else kr.score_table[r, c]
        else:
            for c in range(C):
                pts[c] = category_legal_points(kr, case, r, used, c)
        for t in range(nu):
            Er[t] = NEG
        for c in range(C):
            p = pts[c]
            if p < 0:
                continue
            nf = flag
            if fs == 2 and c == kr.yahtzee_index and p == kr.yahtzee_points and p > 0:
                nf = 1
            row = ((used | (np.int64(1) << c)) * fs + nf) * cap1
            before = Er[0]
            fp = float(p)
            if kr.is_upper[c] and cap > 0:
                split = min(max(cap - p - u_lo, 0), nu)  # t < split: total stays below cap
                Vr = V[row + u_lo + p : row + u_lo + p + split]
                for t in range(split):
                    Er[t] = max(Er[t], fp + Vr[t])
                end_bonus = min(max(cap - u_lo, split), nu)  # t < end_bonus: bonus reached now
                vb = fp + kr.upper_bonus + V[row + cap]
                for t in range(split, end_bonus):
                    Er[t] = max(Er[t], vb)
                vc = fp + V[row + cap]
                for t in range(end_bonus, nu):
                    Er[t] = max(Er[t], vc)
            else:
                Vr = V[row + u_lo : row + u_lo + nu]
                for t in range(nu):
                    Er[t] = max(Er[t], fp + Vr[t])
            if record and Er[0] > before:
                cat_choice[r] = c
        yb = yahtzee_bonus_points(kr, r, used, flag) if is_y else 0
        if yb:
            for t in range(nu):
                Er[t] += yb


@njit(cache=True, nogil=True)
def keep_values(keep_add, keep_size, n_dice, W, nu):
    """In place: rows of partial keeps become their expected values, from the rows of
    full keeps (rolls), adding one rerolled die at a time (larger keeps first)."""
    n_keeps, F = keep_add.shape
    inv = 1.0 / F
    for k in range(n_keeps - 1, -1, -1):
        if keep_size[k] == n_dice:
            continue
        Wk = W[k]
        for t in range(nu):
            Wk[t] = 0.0
        for f in range(F):
            Wkk = W[keep_add[k, f]]
            for t in range(nu):
                Wk[t] += Wkk[t]
        for t in range(nu):
            Wk[t] *= inv


@njit(cache=True, nogil=True)
def best_subkeeps(keep_remove, W, nu, record, arg):
    """In place: each row becomes the best value over the sub-keeps of its keep (smaller
    keeps first), so rows of rolls hold the value of the roll with this many rerolls.

    ``arg`` records the best sub-keep (``record`` needs ``nu == 1``; on ties the larger
    keep wins, then removing the lowest face)."""
    n_keeps, F = keep_remove.shape
    for k in range(n_keeps):
        Wk = W[k]
        if record:
            arg[k] = k
        for f in range(F):
            kk = keep_remove[k, f]
            if kk < 0:
                continue
            Wkk = W[kk]
            if record and Wkk[0] > Wk[0]:
                arg[k] = arg[kk]
            for t in range(nu):
                Wk[t] = max(Wk[t], Wkk[t])


@njit(cache=True, nogil=True)
def widget(kr, keep_add, keep_remove, keep_size, roll_keep_index, rolls, V, used, flag,
           u_lo, nu, W, record, cat_choice, keep_choice, keep_vals, arg):  # fmt: skip
    """Run one turn backwards in the work array ``W`` (one row per keep, ``nu`` lanes).

    The state values end in ``W[0, :nu]``. With ``record`` (and ``nu == 1``):
    ``cat_choice[r]`` = best box for roll r, ``keep_choice[j, r]`` = best keep index
    with j rerolls left, ``keep_vals[j, k]`` = value of keep k with j rerolls left.
    """
    n_dice = kr.n_dice
    category_step(kr, roll_keep_index, V, used, flag, u_lo, nu, W, record, cat_choice)
    for j in range(1, rolls):
        keep_values(keep_add, keep_size, n_dice, W, nu)
        if record:
            for k in range(W.shape[0]):
                keep_vals[j, k] = W[k, 0]
        best_subkeeps(keep_remove, W, nu, record, arg)
        if record:
            for r in range(roll_keep_index.shape[0]):
                keep_choice[j, r] = arg[roll_keep_index[r]]
    first_roll_mean(kr, roll_keep_index, W, nu)


@njit(cache=True, nogil=True)
def first_roll_mean(kr, roll_keep_index, W, nu):
    """``W[0] =`` the mean over first rolls of their rows: the state's value (only the
    empty keep is needed, so this is one dot product, not a full keep pass)."""
    W0 = W[0]
    for t in range(nu):
        W0[t] = 0.0
    for r in range(roll_keep_index.shape[0]):
        p = kr.first_roll_prob[r]
        Wr = W[roll_keep_index[r]]
        for t in range(nu):
            W0[t] += p * Wr[t]


@njit(cache=True, parallel=True, nogil=True)
def solve_level(kr, keep_add, keep_remove, keep_size, roll_keep_index, rolls, V, masks,
                u_start, n_upper):  # fmt: skip
    """Fill V for every state whose used-mask is in ``masks`` (all of one level).

    Upper totals ``u_start[i] .. u_start[i] + n_upper[i] - 1`` are solved for
    ``masks[i]``; the totals below ``u_start[i]`` cannot reach the bonus any more
    and get the value of ``u_start[i]``; larger ones are unreachable (left at 0).
    """
    n_keeps = keep_add.shape[0]
    cap1 = kr.upper_cap + 1
    fs = kr.flag_size
    n_masks = masks.shape[0]
    n_chunks = min(n_masks, 64)  # work buffers are allocated once per chunk, not per state
    for chunk in prange(n_chunks):
        Wbuf = np.empty(n_keeps * cap1)
        arg = np.empty(n_keeps, dtype=np.int64)
        dummy_i = np.zeros(1, dtype=np.int64)
        dummy_2i = np.zeros((1, 1), dtype=np.int64)
        dummy_2f = np.zeros((1, 1))
        for i in range(chunk, n_masks, n_chunks):
            used = masks[i]
            n_flags = 1
            if fs == 2 and kr.yahtzee_index >= 0 and (used >> kr.yahtzee_index) & 1:
                n_flags = 2
            nu = n_upper[i]
            # rows of exactly nu lanes: small states stay dense in cache
            W = Wbuf[: n_keeps * nu].reshape((n_keeps, nu))
            for flag in range(n_flags):
                u0 = u_start[i]
                widget(kr, keep_add, keep_remove, keep_size, roll_keep_index, rolls, V, used,
                       flag, u0, nu, W, False, dummy_i, dummy_2i, dummy_2f, arg)  # fmt: skip
                base = (used * fs + flag) * cap1
                for t in range(nu):
                    V[base + u0 + t] = W[0, t]
                for u in range(u0):
                    V[base + u] = W[0, 0]
