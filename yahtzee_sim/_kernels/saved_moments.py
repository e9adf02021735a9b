"""The turn ends of a game with saved rolls, for the numba saved-roll regret kernel that still
inlines them (:mod:`.saved_regret`); the exact moments' kernels are compiled
(:mod:`yahtzee_sim._core.saved_moments`, :mod:`yahtzee_sim._core.turn_ends`), with the same
arithmetic.

Flat in ``_kernels/``: the kernel cache keys each kernel on this folder's files (see ``__init__``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from yahtzee_sim._kernels.scoring import (
    flag_after_roll,
    roll_box_points,
    sets_flag,
    upper_after,
    yahtzee_bonus_points,
)


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def turn_end_entries(kr, offset, count, used, upper, flag, cat_row, shift, t, q, nxt, step):
    """Lane ``t`` of the turn ends of every roll ``r`` scored in box ``cat_row[r]`` from
    ``(used, upper, flag)``: the points with bonuses ``q[r, t]``, the next state's index
    with no roll saved, minus ``shift``, ``nxt[r, t]`` and the index step per saved roll
    ``step[r, t]``. An illegal box gives ``q`` NaN (the moments it reaches are NaN, which
    reach the start state only if the strategy can make that move) and index 0."""
    for r in range(cat_row.shape[0]):
        c = cat_row[r]
        raw = -1
        if 0 <= c < kr.n_boxes:
            raw = roll_box_points(kr, r, used, flag, c)
        if raw < 0:
            q[r, t], nxt[r, t], step[r, t] = np.nan, 0, 0  # reads the first moments
            continue
        yb = 1 if yahtzee_bonus_points(kr, r, used, flag) > 0 else 0
        u2, bonus = upper_after(kr, upper, c, raw)
        nf = 1 if sets_flag(kr, c, raw) else flag_after_roll(kr, flag, yb)
        used2 = used | (np.int64(1) << c)
        nxt[r, t] = offset[used2 * kr.flag_size + nf] + u2 - shift
        step[r, t] = count[used2]
        q[r, t] = float(raw + yb * kr.yahtzee_bonus + bonus)
