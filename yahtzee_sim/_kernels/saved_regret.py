"""Kernel of regret on games with saved rolls: reach and losses of one level's positions.

Flat in ``_kernels/``: the kernel cache keys each kernel on this folder's files (see ``__init__``).

For one turn-start *position* ``(used, upper, flag)`` the strategy's decisions are
``keep[j - 1, r]`` and ``cat[b, r]`` as in the moments kernel (:mod:`.saved_moments`: a
turn that starts with ``s`` saved rolls has ``rolls - 1 + s`` rerolls after its first roll;
keeping every die with ``j`` rerolls left stops and saves ``min(j, cap)`` rolls). The
probability of each roll at each number of rerolls left does not depend on the saved rolls
the turn started with once the turn has that many rerolls left, so the reach of every
saved-roll count of a position is pushed through the turn together, the mass of a turn
that starts with ``s`` saved rolls entering at ``rolls - 1 + s`` rerolls left.

Every decision point is charged ``mass × loss`` against optimal play, from the recording
widget of its position (:mod:`.widget`: ``roll_vals[j, r]`` the optimal value of roll
``r`` with ``j`` rerolls left, ``keep_vals[j, k]`` that of keep ``k``) and the box values
with ``b`` rolls saved (:func:`.box_step.box_step` with ``saved = b``: the best box ``S``).
With ``V = roll_vals[j, r]`` and ``K`` the best keep that rolls on:

* the strategy stops: *stop* loss ``V − S`` (rolling on was better by that much), then
  the *box* loss of its box against the best one with ``min(j, cap)`` rolls saved;
* it rolls on with keep ``k``: *stop* loss ``S − K`` when stopping is best (``V = S``),
  and the *keep* loss ``K − keep_vals[j, k]``.

The losses of a turn thus add up to ``V − (the value of the strategy's moves)``, and over
the game to the optimal value minus the strategy's mean.

Kinds of loss (columns of ``loss``): 0 the box, ``j = 1 .. levels - 1`` the keep with ``j``
rerolls left, ``levels`` the stop.

The functions called per roll are inlined into :func:`group_regret`: a call numba does not
inline moves and reference-counts every array of the bundles it is passed (``kr`` alone
holds dozens), which cost more than the roll's work (about a fifth of the pass on
``maxi-yatzy``).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from yahtzee_sim._kernels.box_step import NEG, box_step
from yahtzee_sim._kernels.exact import reach_layer
from yahtzee_sim._kernels.regret import box_loss
from yahtzee_sim._kernels.saved_moments import turn_end_entries
from yahtzee_sim._kernels.widget import widget
from yahtzee_sim._kernels.work_buffers import buffer_layers, buffer_rows, new_work


@njit(cache=True, nogil=True, inline="always")
def charge(out, i, kind, mass, d, r, j, best, chosen):
    """Add ``mass × d`` to loss ``kind`` of position ``i``, keeping its costliest decision
    (``out[1]``: ``top_f[i, kind] = (mass, loss)``, ``top_i[i, kind] = (roll, optimal
    action, strategy's action, rerolls left)``)."""
    loss, top_f, top_i = out[0], out[1], out[2]
    e = mass * d
    loss[i, kind] += e
    if e > top_f[i, kind, 0] * top_f[i, kind, 1]:
        top_f[i, kind, 0], top_f[i, kind, 1] = mass, d
        top_i[i, kind, 0], top_i[i, kind, 1] = r, best
        top_i[i, kind, 2], top_i[i, kind, 3] = chosen, j


@njit(cache=True, nogil=True, inline="always")
def best_reroll(kr, keep_vals, j, r, t):
    """``(value, keep)`` of the best keep of roll ``r`` that rolls on, ``j`` rerolls left,
    lane ``t``."""
    best, arg = NEG, -1
    for e in range(kr.roll_keep_ptr[r], kr.roll_keep_ptr[r + 1]):
        k = kr.roll_keep_keep[e]
        if kr.keep_size[k] != kr.n_dice and keep_vals[j, k, t] > best:
            best, arg = keep_vals[j, k, t], k
    return best, arg


@njit(cache=True, nogil=True, inline="always")
def turn_end(kr, vals, pos_i, t, tw, r, j, bank, c, mass, ends, out, i, lane):
    """Roll ``r`` scored in box ``c`` with ``bank`` rolls saved (``j`` rerolls left): the
    box loss, the points and the next state's mass, added to the lane's next states
    (``lane``, :func:`add_outcome`). ``t``: the position's column of the turn ends,
    ``tw``: its lane of the widget."""
    cat_levels, B, val, slots = vals[3], vals[4], vals[5], vals[6]
    q, nxt, step = ends[0], ends[1], ends[2]
    S = B[kr.roll_keep_index[r], tw]
    d = box_loss(kr, pos_i[0], pos_i[2], val, slots, r, tw, c, S)
    n_keeps = kr.keep_add.shape[0]
    if d > 0.0:
        out[3][i, c] += mass * d
        charge(out, i, 0, mass, d, r, j, n_keeps + cat_levels[j, r, tw], n_keeps + c)
    out[4][i] += mass * q[r, t]
    if q[r, t] == q[r, t]:  # a legal box (NaN: the points are NaN, an error)
        add_outcome(lane, nxt[r, t] + bank * step[r, t], mass)


@njit(cache=True, nogil=True, inline="always")
def add_outcome(lane, state, mass):
    """Add ``mass`` to next state ``state`` of a lane's open-addressing table ``lane =
    (keys, sums, order, count)``: ``keys`` (a power of two long, -1 empty) and ``sums``
    the states and their mass, ``order[:count[0]]`` the slots taken, in the order the
    states first came (their masses are summed in the order they come)."""
    keys, sums, order, count = lane
    size = keys.shape[0] - 1
    h = (state * np.int64(0x9E3779B1)) & size
    while keys[h] != state:
        if keys[h] < 0:
            if count[0] >= size:  # full (past any bound the rules give): counted, not kept
                count[0] = size + 1
                return
            keys[h], sums[h] = state, mass
            order[count[0]] = h
            count[0] += 1
            return
        h = (h + 1) & size
    sums[h] += mass


@njit(cache=True, nogil=True, inline="always")
def layer_charges(kr, vals, pos_i, t, tw, j, bank, p, keep_row, cat_row, ends, out, i, lane):
    """The decisions of position ``pos_i`` (row ``i`` of ``out``, column ``t`` of the turn
    ends, lane ``tw`` of the widget) at ``j`` rerolls left (``j >= 1``): losses charged,
    stops scored, ``p`` left holding the mass of the rolls that roll on."""
    roll_vals, keep_vals, best_keep, cat_levels, B = vals[0], vals[1], vals[2], vals[3], vals[4]
    rki = kr.roll_keep_index
    stop_kind = kr.levels
    for r in range(rki.shape[0]):
        mass = p[r]
        if mass == 0.0:
            continue
        k = keep_row[r]
        V, S = roll_vals[j, r, tw], B[rki[r], tw]
        if kr.keep_size[k] == kr.n_dice:  # stop: score now, save the rerolls left
            if V > S:
                chosen = kr.keep_add.shape[0] + cat_row[r]
                charge(out, i, stop_kind, mass, V - S, r, j, best_keep[j, r, tw], chosen)
            turn_end(kr, vals, pos_i, t, tw, r, j, bank, cat_row[r], mass, ends, out, i, lane)
            continue
        K, best = V, best_keep[j, r, tw]
        if V == S:  # stopping is best (ties: stopping)
            K, best = best_reroll(kr, keep_vals, j, r, tw)
            if S > K:
                charge(out, i, stop_kind, mass, S - K, r, j, kr.keep_add.shape[0]
                       + cat_levels[j, r, tw], k)  # fmt: skip
        d = K - keep_vals[j, k, tw]
        if d > 0.0:
            charge(out, i, j, mass, d, r, j, best, k)
    reach_layer(kr, keep_row, p, ends[3], ends[4])


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def merge_outcomes(lane, o_idx, o_mass, o_n, i):
    """Row ``i`` of the outcomes: the lane's next states in the order they first came,
    each with its summed mass (-1 in ``o_n`` when they do not fit); the lane's table is
    left empty."""
    keys, sums, order, count = lane
    n = count[0]
    if n > o_idx.shape[1]:
        o_n[i] = -1
        n = 0
    else:
        o_n[i] = n
    for e in range(min(count[0], keys.shape[0] - 1)):
        h = order[e]
        if e < n:
            o_idx[i, e], o_mass[i, e] = keys[h], sums[h]
        keys[h] = -1
    count[0] = 0


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def lane_tops(kr, reach_in, a, b):
    """The most rerolls left with mass in the turns of positions ``a .. b - 1``: the first
    roll of the most saved rolls reached (-1: none reached)."""
    top = np.full(b - a, -1, dtype=np.int64)
    for i in range(a, b):
        for s in range(reach_in.shape[1]):
            if reach_in[i, s] > 0.0:
                top[i - a] = kr.rolls - 1 + s
    return top


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def group_lanes(pos, hopeless, a, b):
    """``(lo, nu)``: the upper totals ``lo .. lo + nu - 1`` the widget runs for positions
    ``a .. b - 1`` (one used-mask and flag, upper totals increasing). The hopeless totals
    ``0 .. hopeless[a]`` (:func:`yahtzee_sim.solving.levels.upper_lanes`) hold equal
    optimal values, so one lane, the highest, serves them all (:func:`widget_lane`)."""
    lo, hi = pos[a, 1], pos[b - 1, 1]
    if 0 < hopeless[a] and lo <= hopeless[a]:
        lo = hopeless[a]
    return lo, max(hi, lo) - lo + 1


@njit(cache=True, nogil=True, inline="always")
def widget_lane(upper, lo):
    """The widget's lane of upper total ``upper`` (:func:`group_lanes`: totals below
    ``lo`` are hopeless and read lane 0)."""
    return max(upper - lo, 0)


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def group_regret(kr, lanes, layout, pos, hopeless, a, b, reach_in, keep, cat, work, scratch, out):
    """Reach and losses of positions ``a .. b - 1`` (one used-mask and flag), each with
    the reach ``reach_in[i, s]`` of ``s`` saved rolls, into rows ``a .. b - 1`` of ``out``."""
    offset, count = layout
    used, flag = pos[a, 0], pos[a, 2]
    lo, nu = group_lanes(pos, hopeless, a, b)
    n_rolls, n_keeps = kr.roll_keep_index.shape[0], kr.keep_add.shape[0]
    _, _, best_keep, keep_vals, roll_vals = widget(
        kr, lanes, used, lo, flag, lo, nu, work, np.int64(2)
    )
    cat_levels = buffer_layers(work.cat_levels, kr.levels, n_rolls, nu)
    B, val = buffer_rows(work.B, n_keeps, nu), buffer_rows(work.val, kr.slot_points.shape[0], nu)
    val_bonus = buffer_rows(work.val_bonus, kr.slot_points.shape[0], nu)
    vals = (roll_vals, keep_vals, best_keep, cat_levels, B, val, work.slots)
    p, q, nxt, step, w, fin, keys, sums, order = scratch
    n_saved = reach_in.shape[1]
    bank = -1
    top, lane_bank = lane_tops(kr, reach_in, a, b), np.full(b - a, -1, dtype=np.int64)
    for i in range(a, b):
        p[i - a, :] = 0.0
    cnt = np.zeros(b - a, dtype=np.int64)
    ends = (q, nxt, step, w, fin)
    for j in range(top.max(), -1, -1):  # no mass above a lane's first roll: skipped
        bj = min(j, kr.saved_roll_cap)
        if bj != bank:
            box_step(kr, lanes, used, lo, flag, lo, nu, B, val, val_bonus, work.slots,
                     False, work.cat[: n_rolls * nu].reshape((n_rolls, nu)), bj)  # fmt: skip
            bank = bj
        s = j - (kr.rolls - 1)
        for i in range(a, b):
            u, tw = i - a, widget_lane(pos[i, 1], lo)
            if j > top[u]:
                continue
            row_c = min(bj, cat.shape[1] - 1)  # the lane's boxes with bj rolls saved
            if lane_bank[u] != row_c:  # their turn ends (the bank only moves the index)
                cb = cat[i, row_c]
                turn_end_entries(kr, offset, count, used, pos[i, 1], flag, cb, 0, u, q, nxt, step)
                lane_bank[u] = row_c
            if 0 <= s < n_saved and reach_in[i, s] > 0.0:
                for r in range(n_rolls):
                    p[u, r] += reach_in[i, s] * kr.first_roll_prob[r]
            lane = (keys[u], sums[u], order[u], cnt[u : u + 1])
            if j == 0:
                cb = cat[i, 0]
                for r in range(n_rolls):
                    if p[u, r] > 0.0:
                        turn_end(kr, vals, pos[i], u, tw, r, 0, 0, cb[r], p[u, r], ends, out, i,
                                 lane)  # fmt: skip
                continue
            row = keep[i, min(j - 1, keep.shape[1] - 1)]
            cb = cat[i, min(bj, cat.shape[1] - 1)]
            layer_charges(kr, vals, pos[i], u, tw, j, bj, p[u], row, cb, ends, out, i, lane)
    for i in range(a, b):
        u = i - a
        merge_outcomes((keys[u], sums[u], order[u], cnt[u : u + 1]), out[5], out[6], out[7], i)


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def regret_scratch(kr, max_nu, width):
    """Scratch of :func:`group_regret` for groups of up to ``max_nu`` lanes, each with up
    to ``width`` next states (a table of twice as many slots or more, a power of two)."""
    n_rolls, n_keeps = kr.roll_keep_index.shape[0], kr.keep_add.shape[0]
    size = 1
    while size < 2 * width + 1:
        size *= 2
    return (
        np.zeros((max_nu, n_rolls)),
        np.empty((n_rolls, max_nu)),
        np.empty((n_rolls, max_nu), dtype=np.int64),
        np.empty((n_rolls, max_nu), dtype=np.int64),
        np.empty(n_keeps),
        np.empty(n_rolls),
        np.full((max_nu, size), -1, dtype=np.int64),
        np.empty((max_nu, size)),
        np.empty((max_nu, size), dtype=np.int64),
    )


@njit(cache=True, parallel=True, nogil=True)
def saved_level_regret(
    kr, lanes, layout, pos, hopeless, group_ptr, reach_in, keep, cat, out, n_chunks
):
    """Reach and losses of the positions ``pos[i] = (used, upper, flag)`` of one level
    (groups ``group_ptr[g] .. group_ptr[g + 1] - 1`` of one used-mask and flag, upper
    totals increasing), each with reach ``reach_in[i, s]`` for ``s`` saved rolls, under
    the strategy's ``keep[i, j - 1, r]`` and ``cat[i, b, r]`` (the last row serving those
    past it). ``layout = (block_offset, upper_count)``; ``hopeless[i]``: the highest
    hopeless upper total of position ``i``'s used-mask (:func:`group_lanes`).

    ``out = (loss, top_f, top_i, by_cat, points, o_idx, o_mass, o_n)``, row ``i`` per
    position (zeros in, ``top_i`` -1): ``loss[i, kind]`` the expected loss of each kind
    (module docstring), ``top_*`` the costliest decision of each kind (:func:`charge`),
    ``by_cat[i, c]`` the box losses by the box chosen, ``points[i]`` the expected points
    the turn scores (reach-weighted: NaN if a reached move is illegal), and the next
    states ``o_idx[i, :o_n[i]]`` (state indices, each once) with their reach
    ``o_mass`` (``o_n[i]`` -1: more next states than ``o_idx`` has columns). Groups are
    shared out in ``n_chunks`` chunks; each row depends on its position only."""
    n_groups = group_ptr.shape[0] - 1
    n_chunks = max(1, min(n_groups, n_chunks))
    for chunk in prange(n_chunks):
        max_nu = 1
        for g in range(chunk, n_groups, n_chunks):
            a, b = group_ptr[g], group_ptr[g + 1]
            max_nu = max(max_nu, b - a, group_lanes(pos, hopeless, a, b)[1])
        work = new_work(kr, max_nu, 2)
        scratch = regret_scratch(kr, max_nu, out[5].shape[1])
        for g in range(chunk, n_groups, n_chunks):
            a, b = group_ptr[g], group_ptr[g + 1]
            group_regret(
                kr, lanes, layout, pos, hopeless, a, b, reach_in, keep, cat, work, scratch, out
            )


@njit(cache=True, nogil=True)
def scatter_reach(o_idx, o_mass, o_n, reach, shift):
    """``reach[o_idx[i, e] - shift] += o_mass[i, e]``, position by position in order."""
    for i in range(o_n.shape[0]):
        for e in range(o_n[i]):
            reach[o_idx[i, e] - shift] += o_mass[i, e]
