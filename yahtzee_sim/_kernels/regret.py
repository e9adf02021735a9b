"""Kernel of the decision options of the regret analysis's datasets: every legal option of
recorded decisions, valued under optimal play afterwards (:func:`decision_options`). The
per-state losses of the regret analysis are :mod:`yahtzee_sim._core.regret`'s.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from yahtzee_sim._kernels.box_step import NEG, box_step
from yahtzee_sim._kernels.keep_steps import best_subkeeps, keep_values
from yahtzee_sim._kernels.scoring import flag_after_roll, roll_options, scored_state
from yahtzee_sim._kernels.work_buffers import MAX_CHUNKS, buffer_rows, new_work


@njit(cache=True, nogil=True)
def _box_options(kr, lanes, u, up, f, r, points, o, opt_action, opt_value):
    """The options of a box decision at roll ``r`` of state ``(u, up, f)`` (no widget:
    each box's points, bonuses and next state's value), from ``o``; returns the next
    free position."""
    n_keeps = kr.keep_add.shape[0]
    yb = roll_options(kr, r, u, f, points)
    f2 = flag_after_roll(kr, f, yb)
    for c in range(kr.n_boxes):
        if points[c] >= 0:
            nxt, ub = scored_state(kr, u, up, f2, c, points[c])
            opt_action[o] = n_keeps + c
            opt_value[o] = points[c] + ub + yb + lanes.values[nxt]
            o += 1
    return o


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _keep_options(kr, r, W, first_roll, o, opt_action, opt_value):
    """The options of a keep decision at roll ``r``: each keep's value (``W[k, 0]``, at
    the decision's rerolls left; keeping every die ends the rolling, ``first_roll[r]``:
    the roll's best box), from ``o``; returns the next free position."""
    for e in range(kr.roll_keep_ptr[r], kr.roll_keep_ptr[r + 1]):
        k = kr.roll_keep_keep[e]
        opt_action[o] = k
        opt_value[o] = first_roll[r] if kr.keep_size[k] == kr.n_dice else W[k, 0]
        o += 1
    return o


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _levels_options(kr, lanes, u, up, f, a, b, roll, rolls_left, opt_start, out, work, first_roll):
    """Options of decisions ``a .. b - 1`` of one turn-start state, ordered by rerolls
    left, computing only the levels they need: box decisions need no widget; keep
    decisions with ``j`` rerolls left need the box step and ``j`` keep steps (the
    widget's own steps, unrecorded: the same values bit for bit)."""
    opt_action, opt_value = out[0], out[1]
    n_keeps = kr.keep_add.shape[0]
    rki = kr.roll_keep_index
    i = a
    while i < b and rolls_left[i] == 0:
        _box_options(kr, lanes, u, up, f, roll[i], work.slots, opt_start[i], opt_action, opt_value)
        i += 1
    if i == b:
        return
    one = np.int64(1)
    no = one < 0  # a run-time False: the same compiled steps as the widget's
    W = buffer_rows(work.W, n_keeps, 1)
    A = buffer_rows(work.A, n_keeps, 1)
    cat = buffer_rows(work.cat, rki.shape[0], 1)
    n_slots = kr.slot_points.shape[0]
    val = buffer_rows(work.val, n_slots, 1)
    val_bonus = buffer_rows(work.val_bonus, n_slots, 1)
    box_step(kr, lanes, u, up, f, up, one, W, val, val_bonus, work.slots, no, cat)
    for r in range(rki.shape[0]):
        first_roll[r] = W[rki[r], 0]
    level = 0  # W holds the keep values with `level` rerolls left
    while i < b:
        j = rolls_left[i]
        while level < j:
            if level > 0:
                best_subkeeps(kr, W, A, one, no)
            keep_values(kr, W, one)
            level += 1
        _keep_options(kr, roll[i], W, first_roll, opt_start[i], opt_action, opt_value)
        i += 1


@njit(cache=True, parallel=True, nogil=True)
def decision_options(
    kr, lanes, used, upper, flag, group_ptr, roll, rolls_left, chosen, opt_start, opt_stop, out
):
    """Every legal option of recorded decisions, valued under optimal play afterwards.

    Groups ``g`` are turn-start states ``(used[g], upper[g], flag[g])`` (upper capped)
    holding decisions ``group_ptr[g] .. group_ptr[g + 1] - 1`` at roll ``roll[i]`` with
    ``rolls_left[i]`` rerolls left, ordered by rerolls left within a group. Writes the
    actions (keep indices, then ``n_keeps + box``) and values of decision ``i``'s options
    into ``out = (opt_action, opt_value, value, best_action, best_value)`` at
    ``opt_start[i] .. opt_stop[i] - 1`` (anywhere: the caller's order), and the value
    of ``chosen[i]`` and the best option (the first of the highest value). A value is
    the expected points still to come from the decision on: a keep's is the widget's
    (keeping every die ends the rolling: the roll's best box), a box's its points, the
    bonuses it earns and the next state's value (the advisor's values). Only the levels
    a group's decisions need are computed (:func:`_levels_options`).

    Games without saved rolls only: a stop is valued with no roll saved and the next
    states are read in the product layout. Games with saved rolls are graded by
    :func:`yahtzee_sim.analysis.decisions.saved_options.grade_saved_decisions`.
    """
    opt_action, opt_value, value, best_action, best_value = out
    n = used.shape[0]
    n_chunks = min(n, MAX_CHUNKS)
    for chunk in prange(n_chunks):
        work = new_work(kr, np.int64(1), np.int64(0))
        first_roll = np.empty(kr.roll_keep_index.shape[0])
        for g in range(chunk, n, n_chunks):
            a, b = group_ptr[g], group_ptr[g + 1]
            _levels_options(
                kr, lanes, used[g], upper[g], flag[g], a, b, roll, rolls_left, opt_start,
                out, work, first_roll,
            )  # fmt: skip
            for i in range(a, b):
                best_value[i] = NEG
                value[i] = np.nan
                for e in range(opt_start[i], opt_stop[i]):
                    if opt_value[e] > best_value[i]:
                        best_value[i] = opt_value[e]
                        best_action[i] = opt_action[e]
                    if opt_action[e] == chosen[i]:
                        value[i] = opt_value[e]
