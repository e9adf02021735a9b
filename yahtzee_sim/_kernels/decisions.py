"""Per-state decisions read off a value table, computed lazily and cached per state.

For a turn-start state, one recorded widget run (nu = 1) gives the best box for
every roll and the best keep for every roll and number of rerolls left.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .play import category_legal_points, joker_case, scored_state, yahtzee_bonus_points
from .widget import NEG, keep_values, widget


@njit(cache=True, nogil=True)
def box_value(kr, V, used, upper, flag, c, p):
    """Points ``p`` in box ``c`` + the upper bonus if reached + the value of the next state."""
    nxt, bonus = scored_state(kr, used, upper, flag, c, p)
    return float(p + bonus) + V[nxt]


@njit(cache=True, nogil=True)
def scalar_widget(kr, keep_add, keep_remove, keep_size, roll_keep_index, rolls, V, used, upper,
                  flag, E, K, M, arg, cat_choice, keep_choice):  # fmt: skip
    """The widget for one upper total (scalar loops), recording the best decisions.

    Same values, decisions and tie-breaks as :func:`widget` with ``nu == 1``.
    """
    n_rolls = roll_keep_index.shape[0]
    n_keeps, F = keep_add.shape
    cap = kr.upper_cap
    cap1 = cap + 1
    fs = kr.flag_size
    n_dice = kr.n_dice
    yi = kr.yahtzee_index
    best = M  # scratch: best value per roll (M is free until the keep passes)
    for r in range(n_rolls):
        best[r] = NEG
        cat_choice[r] = -1
    # normal scoring, box by box (columns of the score table), boxes in card order
    for c in range(kr.n_categories):
        if (used >> c) & 1:
            continue
        row = ((used | (np.int64(1) << c)) * fs + flag) * cap1
        is_up = kr.is_upper[c] and cap > 0
        for r in range(n_rolls):
            p = np.int64(kr.score_table[r, c])
            v = float(p)
            if is_up:
                u2 = upper + p
                if u2 >= cap:
                    u2 = cap
                    if upper < cap:
                        v += kr.upper_bonus
                v += V[row + u2]
            elif fs == 2 and c == yi and p == kr.yahtzee_points and p > 0:
                v += V[row + cap1 * (1 - flag) + upper]  # the flag becomes 1
            else:
                v += V[row + upper]
            if v > best[r]:
                best[r] = v
                cat_choice[r] = c
    # n-of-a-kind rolls: joker rules and the Yahtzee bonus
    for r in range(n_rolls):
        if kr.yahtzee_face[r] < 0:
            continue
        case = joker_case(kr, r, used, flag)
        if case != 0:
            best[r] = NEG
            for c in range(kr.n_categories):
                p = category_legal_points(kr, case, r, used, c)
                if p < 0:
                    continue
                v = box_value(kr, V, used, upper, flag, c, p)
                if v > best[r]:
                    best[r] = v
                    cat_choice[r] = c
        best[r] += yahtzee_bonus_points(kr, r, used, flag)
    for r in range(n_rolls):
        E[roll_keep_index[r]] = best[r]
    inv = 1.0 / F
    for j in range(1, rolls):
        for k in range(n_keeps - 1, -1, -1):
            if keep_size[k] == n_dice:
                K[k] = E[k]
            else:
                acc = 0.0
                for f in range(F):
                    acc += K[keep_add[k, f]]
                K[k] = acc * inv
        for k in range(n_keeps):
            m = K[k]
            a = k
            for f in range(F):
                kk = keep_remove[k, f]
                if kk < 0:
                    continue
                mk = M[kk]
                if mk > m:
                    m = mk
                    a = arg[kk]
            M[k] = m
            arg[k] = a
            if keep_size[k] == n_dice:
                E[k] = m
        for r in range(n_rolls):
            keep_choice[j - 1, r] = arg[roll_keep_index[r]]


@njit(cache=True, parallel=True, nogil=True)
def fill_states(kr, keep_add, keep_remove, keep_size, roll_keep_index, rolls, V, used, upper,
                flag, slots, keep_cache, cat_cache):  # fmt: skip
    """Record the best decisions of states ``i`` into ``keep_cache[slots[i]]`` and
    ``cat_cache[slots[i]]``, in parallel over states."""
    n_keeps = keep_add.shape[0]
    n = used.shape[0]
    n_chunks = min(n, 64)
    for chunk in prange(n_chunks):
        E = np.empty(n_keeps)
        K = np.empty(n_keeps)
        M = np.empty(n_keeps)
        arg = np.empty(n_keeps, dtype=np.int64)
        for i in range(chunk, n, n_chunks):
            scalar_widget(kr, keep_add, keep_remove, keep_size, roll_keep_index, rolls, V,
                          used[i], upper[i], flag[i], E, K, M, arg, cat_cache[slots[i]],
                          keep_cache[slots[i]])  # fmt: skip


@njit(cache=True, nogil=True)
def gather_decisions(slot_of_state, states, roll_idx, table, layer):
    """``table[slot_of_state[states[i]], layer, roll_idx[i]]`` as int64, one pass."""
    out = np.empty(states.shape[0], dtype=np.int64)
    for i in range(states.shape[0]):
        out[i] = table[slot_of_state[states[i]], layer, roll_idx[i]]
    return out


@njit(cache=True, nogil=True)
def position_values(kr, keep_add, keep_remove, keep_size, roll_keep_index, rolls, V,
                    used, upper, flag):  # fmt: skip
    """Values of every keep (per rerolls left) and the best decisions, for one state.

    Returns ``(keep_vals (rolls, n_keeps), cat_choice (n_rolls,), keep_choice (rolls, n_rolls))``;
    ``keep_vals[j, k]`` is the expected points still to come after keeping ``k``
    with ``j`` rerolls left.
    """
    n_keeps = keep_add.shape[0]
    n_rolls = roll_keep_index.shape[0]
    W = np.empty((n_keeps, 1))
    arg = np.empty(n_keeps, dtype=np.int64)
    cat_choice = np.empty(n_rolls, dtype=np.int64)
    keep_choice = np.zeros((rolls, n_rolls), dtype=np.int64)
    keep_vals = np.zeros((rolls, n_keeps))
    widget(kr, keep_add, keep_remove, keep_size, roll_keep_index, rolls, V, used, flag, upper,
           1, W, True, cat_choice, keep_choice, keep_vals, arg)  # fmt: skip
    return keep_vals, cat_choice, keep_choice


# ------------------------------------------------------------------------------------------
# Decisions over a range of upper totals at once (lanes innermost), for exact evaluation
@njit(cache=True, nogil=True)
def _take(Er, ch, t0, t1, v, c):
    for t in range(t0, t1):
        if v > Er[t]:
            Er[t] = v
            ch[t] = c


@njit(cache=True, nogil=True)
def category_step_lanes(kr, roll_keep_index, V, used, flag, u_lo, nu, W, cat_out):
    """Like :func:`~yahtzee_sim._kernels.widget.category_step`, recording the best box of
    every roll in every lane: ``cat_out[r, t]`` (first box in card order on ties)."""
    n_rolls = kr.score_table.shape[0]
    cap = kr.upper_cap
    cap1 = cap + 1
    fs = kr.flag_size
    C = kr.n_categories
    pts = np.empty(C, dtype=np.int64)
    for r in range(n_rolls):
        Er = W[roll_keep_index[r]]
        ch = cat_out[r]
        is_y = kr.yahtzee_face[r] >= 0
        case = joker_case(kr, r, used, flag) if is_y else 0
        if case == 0:
            for c in range(C):
                pts[c] = -1 if (used >> c) & 1 else kr.score_table[r, c]
        else:
            for c in range(C):
                pts[c] = category_legal_points(kr, case, r, used, c)
        for t in range(nu):
            Er[t] = NEG
            ch[t] = -1
        for c in range(C):
            p = pts[c]
            if p < 0:
                continue
            nf = flag
            if fs == 2 and c == kr.yahtzee_index and p == kr.yahtzee_points and p > 0:
                nf = 1
            row = ((used | (np.int64(1) << c)) * fs + nf) * cap1
            fp = float(p)
            if kr.is_upper[c] and cap > 0:
                split = min(max(cap - p - u_lo, 0), nu)
                for t in range(split):
                    v = fp + V[row + u_lo + p + t]
                    if v > Er[t]:
                        Er[t] = v
                        ch[t] = c
                end_bonus = min(max(cap - u_lo, split), nu)
                _take(Er, ch, split, end_bonus, fp + kr.upper_bonus + V[row + cap], c)
                _take(Er, ch, end_bonus, nu, fp + V[row + cap], c)
            else:
                for t in range(nu):
                    v = fp + V[row + u_lo + t]
                    if v > Er[t]:
                        Er[t] = v
                        ch[t] = c
        yb = yahtzee_bonus_points(kr, r, used, flag) if is_y else 0
        if yb:
            for t in range(nu):
                Er[t] += yb


@njit(cache=True, nogil=True)
def record_lanes(kr, keep_add, keep_remove, keep_size, roll_keep_index, rolls, V, used, flag,
                 u_lo, nu, W, arg, cat_out, lane_rows, keep_rows, cat_rows):  # fmt: skip
    """One turn backwards for upper totals ``u_lo .. u_lo + nu - 1`` of ``(used, flag)``,
    recording the decisions of lane ``t`` in row ``lane_rows[t]`` (skipped when -1):
    ``cat_rows[row, r]`` and ``keep_rows[row, j - 1, r]`` (keep index with ``j``
    rerolls left), the same decisions and tie-breaks as :func:`scalar_widget` for
    each total. ``W``, ``arg`` (keeps × lanes) and ``cat_out`` (rolls × lanes) are
    scratch."""
    n_keeps = keep_add.shape[0]
    n_rolls = roll_keep_index.shape[0]
    category_step_lanes(kr, roll_keep_index, V, used, flag, u_lo, nu, W, cat_out)
    for t in range(nu):
        row = lane_rows[t]
        if row >= 0:
            for r in range(n_rolls):
                cat_rows[row, r] = cat_out[r, t]
    for j in range(1, rolls):
        keep_values(keep_add, keep_size, kr.n_dice, W, nu)
        for k in range(n_keeps):
            Wk = W[k]
            ak = arg[k]
            fk = float(k)
            for t in range(nu):
                ak[t] = fk
            for f in range(keep_remove.shape[1]):
                kk = keep_remove[k, f]
                if kk < 0:
                    continue
                Wkk = W[kk]
                akk = arg[kk]
                for t in range(nu):  # branch-free, so that it vectorizes
                    better = Wkk[t] > Wk[t]
                    ak[t] = akk[t] if better else ak[t]
                    Wk[t] = Wkk[t] if better else Wk[t]
        for t in range(nu):
            row = lane_rows[t]
            if row >= 0:
                for r in range(n_rolls):
                    keep_rows[row, j - 1, r] = np.int16(arg[roll_keep_index[r], t])


@njit(cache=True, parallel=True, nogil=True)
def fill_lanes(kr, keep_add, keep_remove, keep_size, roll_keep_index, rolls, V, used, flag,
               u_lo, nu, row0, lane_row, keep_rows, cat_rows):  # fmt: skip
    """Decisions of groups ``g`` (``used[g], flag[g]``, totals ``u_lo[g] ..
    u_lo[g] + nu[g] - 1``) into rows ``lane_row[row0[g] + t]`` (skipped when -1) of
    ``keep_rows`` (rows, layers, rolls) and ``cat_rows`` (rows, rolls), in parallel
    over groups."""
    n_keeps = keep_add.shape[0]
    n_rolls = roll_keep_index.shape[0]
    n = used.shape[0]
    max_nu = 1
    for g in range(n):
        max_nu = max(max_nu, nu[g])
    n_chunks = min(n, 64)
    for chunk in prange(n_chunks):
        Wbuf = np.empty(n_keeps * max_nu)
        Abuf = np.empty(n_keeps * max_nu)  # float64 like W: the selects vectorize
        Cbuf = np.empty(n_rolls * max_nu, dtype=np.int8)
        for g in range(chunk, n, n_chunks):
            m = nu[g]
            W = Wbuf[: n_keeps * m].reshape((n_keeps, m))
            A = Abuf[: n_keeps * m].reshape((n_keeps, m))
            cat_out = Cbuf[: n_rolls * m].reshape((n_rolls, m))
            record_lanes(kr, keep_add, keep_remove, keep_size, roll_keep_index, rolls, V,
                         used[g], flag[g], u_lo[g], m, W, A, cat_out,
                         lane_row[row0[g] : row0[g] + m], keep_rows, cat_rows)  # fmt: skip


@njit(cache=True, nogil=True)
def keep_codes(keeps, dice, base, code_to_keep, out):
    """Keep index of every row of face counts ``keeps`` (checked against ``dice``).

    Writes ``out[i]`` and returns -1, or returns the first row that keeps a face
    more often than it shows (or a negative count); ``base`` is ``n_dice + 1``.
    """
    m, F = keeps.shape
    for i in range(m):
        code = 0
        w = 1
        for f in range(F):
            a = keeps[i, f]
            if a < 0 or a > dice[i, f]:
                return i
            code += a * w
            w *= base
        out[i] = code_to_keep[code]
    return -1
