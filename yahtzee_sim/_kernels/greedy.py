"""Per-state decision tables of the seed-002 greedy strategy, computed lazily and cached.

For a turn-start state, the greedy value of a roll is the best immediate gain
over the legal boxes (box points + upper bonus if this box reaches the
threshold + Yahtzee bonus); a keep's value is the expected greedy value of the
next roll; the greedy keep for a roll is the best keep among its sub-multisets.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .play import category_legal_points, joker_case, yahtzee_bonus_points


@njit(cache=True, nogil=True)
def _fill_state(
    kr,
    kr_ptr,
    kr_roll,
    kr_prob,
    rk_ptr,
    rk_keep,
    keep_size,
    order,
    with_ybonus,
    used,
    upper,
    flag,
    keep_row,
    cat_row,
):
    n_rolls = kr.score_table.shape[0]
    roll_value = np.empty(n_rolls)
    for r in range(n_rolls):
        case = joker_case(kr, r, used, flag)
        best = -1.0
        best_c = -1
        for j in range(order.shape[0]):
            c = order[j]
            p = category_legal_points(kr, case, r, used, c)
            if p < 0:
                continue
            v = float(p)
            if kr.is_upper[c] and upper < kr.upper_threshold and upper + p >= kr.upper_threshold:
                v += kr.upper_bonus
            if v > best:
                best = v
                best_c = c
        roll_value[r] = best
        if with_ybonus:
            roll_value[r] += yahtzee_bonus_points(kr, r, used, flag)
        cat_row[r] = best_c
    n_keeps = kr_ptr.shape[0] - 1
    keep_value = np.zeros(n_keeps)
    for k in range(n_keeps):
        s = 0.0
        for e in range(kr_ptr[k], kr_ptr[k + 1]):
            s += kr_prob[e] * roll_value[kr_roll[e]]
        keep_value[k] = s
    for r in range(n_rolls):
        best_k = -1
        best = -1.0
        for e in range(rk_ptr[r], rk_ptr[r + 1]):
            k = rk_keep[e]
            v = keep_value[k]
            if (
                best_k < 0
                or v > best + 1e-9
                or (v > best - 1e-9 and keep_size[k] > keep_size[best_k])
            ):
                best = v
                best_k = k
        keep_row[r] = best_k


@njit(cache=True, parallel=True, nogil=True)
def greedy_fill_states(kr, kr_ptr, kr_roll, kr_prob, rk_ptr, rk_keep, keep_size, order,
                       with_ybonus, used, upper, flag, slots, keep_cache, cat_cache):  # fmt: skip
    """Greedy keep and box for every roll of states ``i``, into row ``slots[i]``
    of the caches, in parallel over states."""
    for i in prange(used.shape[0]):
        _fill_state(kr, kr_ptr, kr_roll, kr_prob, rk_ptr, rk_keep, keep_size, order,
                    with_ybonus, used[i], upper[i], flag[i], keep_cache[slots[i]],
                    cat_cache[slots[i]])  # fmt: skip
