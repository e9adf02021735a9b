"""The moments of the points to come under fixed decisions, in a game with saved rolls.

Flat in ``_kernels/``: the kernel cache keys each kernel on this folder's files (see ``__init__``).

For one turn-start *position* ``(used, upper, flag)`` the strategy's decisions are
``keep[j - 1, r]`` (the keep at roll ``r`` with ``j`` rerolls left; keeping every die
stops and saves the rolls left, at most the cap) and ``cat[b, r]`` (the box of final roll
``r`` when the turn leaves ``b`` rolls saved). The first and second moments of the points
to come, ``E[R]`` and ``E[R²]``, are linear in the moments of the turn's end, so both go
backwards through the turn as the widget's values do (:mod:`.keep_steps`), with the
strategy's keep in place of the best one. One pass over the rerolls left values the
position with every saved-roll count it can start with: a turn that starts with ``s``
saved rolls has ``rolls - 1 + s`` rerolls after its first roll.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from yahtzee_sim._kernels.scoring import (
    flag_after_roll,
    roll_box_points,
    sets_flag,
    upper_after,
    yahtzee_bonus_points,
)

#: Positions per parallel chunk of :func:`saved_moments_level` (scratch is allocated per chunk).
MAX_CHUNKS = 64


@njit(cache=True, nogil=True)
def turn_end_moments(kr, offset, count, pos, cat_row, bank, m1, m2, shift, t1, t2):
    """``t1[r]``, ``t2[r]``: E[R], E[R²] of the points to come once final roll ``r`` is
    scored in box ``cat_row[r]`` with ``bank`` rolls saved, from position ``pos = (used,
    upper, flag)`` and the next states' moments ``m1``, ``m2`` (indexed by state index
    minus ``shift``). An illegal box gives NaN, which reaches the start state only if
    the strategy can make that move."""
    used, upper, flag = pos[0], pos[1], pos[2]
    for r in range(cat_row.shape[0]):
        c = cat_row[r]
        raw = -1
        if 0 <= c < kr.n_boxes:
            raw = roll_box_points(kr, r, used, flag, c)
        if raw < 0:
            t1[r] = np.nan
            t2[r] = np.nan
            continue
        yb = 1 if yahtzee_bonus_points(kr, r, used, flag) > 0 else 0
        u2, bonus = upper_after(kr, upper, c, raw)
        nf = 1 if sets_flag(kr, c, raw) else flag_after_roll(kr, flag, yb)
        used2 = used | (np.int64(1) << c)
        nxt = offset[used2 * kr.flag_size + nf] + bank * count[used2] + u2 - shift
        q = float(raw + yb * kr.yahtzee_bonus + bonus)
        a1 = m1[nxt]
        t1[r] = q + a1
        t2[r] = q * q + 2.0 * q * a1 + m2[nxt]


@njit(cache=True, nogil=True)
def reroll_layer(kr, keep_row, v, k_val, stop):
    """In place: ``v`` (a moment of every roll with one reroll fewer) becomes the moment
    of every roll with this many rerolls under the keeps ``keep_row``: a keep of every die
    takes ``stop[r]`` (scoring now), another keep the mean over its rerolled dice, added
    one at a time through ``keep_add`` (``k_val``, one entry per keep, is scratch)."""
    keep_add = kr.keep_add
    n_keeps, F = keep_add.shape
    inv = 1.0 / F
    rki = kr.roll_keep_index
    for r in range(v.shape[0]):
        k_val[rki[r]] = v[r]
    for k in range(n_keeps - 1, -1, -1):  # larger keeps have larger indices
        if kr.keep_size[k] == kr.n_dice:
            continue
        w = 0.0
        for f in range(F):
            w += k_val[keep_add[k, f]]
        k_val[k] = w * inv
    for r in range(v.shape[0]):
        k = keep_row[r]
        v[r] = stop[r] if kr.keep_size[k] == kr.n_dice else k_val[k]


@njit(cache=True, nogil=True)
def first_roll_moment(kr, v):
    """The mean of ``v`` over the turn's first roll."""
    out = 0.0
    for r in range(v.shape[0]):
        out += kr.first_roll_prob[r] * v[r]
    return out


@njit(cache=True, parallel=True, nogil=True)
def saved_moments_level(kr, offset, count, pos, n_saved, keep, cat, m1, m2, shift, o1, o2, oshift):
    """E[R], E[R²] of the states of positions ``pos[i] = (used, upper, flag)`` with
    ``0 .. n_saved - 1`` saved rolls, into ``o1``, ``o2`` (indexed by state index minus
    ``oshift``), from the next level's ``m1``, ``m2`` (minus ``shift``) and the
    strategy's ``keep[i, j - 1, r]`` and ``cat[i, b, r]``, in parallel over positions.
    ``offset`` and ``count`` are the layout's ``block_offset`` and ``upper_count``."""
    n = pos.shape[0]
    n_rolls = cat.shape[2]
    n_banks = cat.shape[1]
    n_layers = keep.shape[1]
    n_keeps = kr.keep_size.shape[0]
    n_chunks = min(n, MAX_CHUNKS)
    for chunk in prange(n_chunks):
        t1 = np.empty((n_banks, n_rolls))
        t2 = np.empty((n_banks, n_rolls))
        v1 = np.empty(n_rolls)
        v2 = np.empty(n_rolls)
        k_val = np.empty(n_keeps)
        for i in range(chunk, n, n_chunks):
            for b in range(n_banks):
                turn_end_moments(
                    kr, offset, count, pos[i], cat[i, b], b, m1, m2, shift, t1[b], t2[b]
                )
            used, upper, flag = pos[i, 0], pos[i, 1], pos[i, 2]
            base = offset[used * kr.flag_size + flag] + upper - oshift
            v1[:] = t1[0]
            v2[:] = t2[0]
            for j in range(n_layers + 1):
                if j > 0:
                    b = min(j, n_banks - 1)
                    reroll_layer(kr, keep[i, j - 1], v1, k_val, t1[b])
                    reroll_layer(kr, keep[i, j - 1], v2, k_val, t2[b])
                s = j - (kr.rolls - 1)
                if 0 <= s < n_saved:
                    o1[base + s * count[used]] = first_roll_moment(kr, v1)
                    o2[base + s * count[used]] = first_roll_moment(kr, v2)
