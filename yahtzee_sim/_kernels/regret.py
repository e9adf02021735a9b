"""Kernel of the regret analysis: what each decision of a strategy costs against optimal.

For one turn-start state, a recording widget run (:mod:`.widget`, max-EV lanes) gives
the optimal value of every decision point of the turn, and the strategy's own
decisions give the probability of reaching each point (:func:`.exact.reach_layer`).
The loss of a decision is ``optimal value of the point − optimal value after the
strategy's action``; by the performance-difference identity, the reach-weighted
losses of all decision points sum to ``optimal value − the strategy's expected score``.

Layers: ``0`` is the box choice, ``j >= 1`` the keep with ``j`` rerolls left.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from yahtzee_sim._kernels.box_step import NEG, box_step
from yahtzee_sim._kernels.exact import reach_layer
from yahtzee_sim._kernels.keep_steps import best_subkeeps, keep_values
from yahtzee_sim._kernels.scoring import flag_after_roll, roll_options, scored_state
from yahtzee_sim._kernels.widget import widget
from yahtzee_sim._kernels.work_buffers import MAX_CHUNKS, buffer_rows, new_work


@njit(cache=True, nogil=True, inline="always")
def _box_loss(kr, used, flag, val, points, r, t, chosen_box, best_value):
    """Optimal value of roll ``r``'s best box − that of ``chosen_box`` in lane ``t``, from
    the box values ``val[slot, lane]`` the widget tabled (max-EV lanes; the Yahtzee bonus
    of an n-of-a-kind roll is the same for every box, so it is left out of both)."""
    if kr.yahtzee_face[r] < 0:  # normal scoring
        return best_value - val[kr.score_slot[r, chosen_box], t]
    roll_options(kr, r, used, flag, points)
    best = NEG
    chosen = NEG
    for c in range(kr.n_boxes):
        if points[c] >= 0:
            v = val[kr.points_slot[c, points[c]], t]
            best = max(best, v)
            if c == chosen_box:
                chosen = v
    return best - chosen


#: The loss of a box decision, for the regret kernel of games with saved rolls
#: (:mod:`.saved_regret`), which values boxes with the rolls a stop saves.
box_loss = _box_loss


@njit(cache=True, nogil=True)
def _charge(layer, pr, d, r, best, out):
    """Add a decision's expected loss ``pr * d`` to ``layer`` of the per-state outputs
    ``out = (loss, by_cat, top_roll, top_p, top_loss, top_best)``, keeping its costliest
    roll."""
    loss, _, top_roll, top_p, top_loss, top_best = out
    loss[layer] += pr * d
    if pr * d > top_p[layer] * top_loss[layer]:
        top_roll[layer] = r
        top_p[layer] = pr
        top_loss[layer] = d
        top_best[layer] = best


@njit(cache=True, nogil=True, inline="always")
def _turn_regret(kr, used, flag, run, t, keep_dec, cat_dec, points, scratch, out):
    """Losses of one state's turn into ``out`` (see :func:`_charge`), from the widget
    ``run = (cat, keep, keep_vals, roll_vals, val)`` of its used-mask and flag, where it
    is lane ``t``; ``scratch`` = ``(p, w, fin)``: roll, keep and final-roll
    probabilities."""
    cat, keep, keep_vals, roll_vals, val = run
    p, w, fin = scratch
    loss, by_cat, top_roll, top_p, top_loss, top_best = out
    n_rolls = kr.roll_keep_index.shape[0]
    for j in range(kr.rolls):
        loss[j] = 0.0
        top_loss[j] = 0.0
        top_roll[j] = -1
        top_p[j] = 0.0
        top_best[j] = -1
    for c in range(kr.n_boxes):
        by_cat[c] = 0.0
    # forward through the turn under the strategy's keeps, charging each decision's loss
    for r in range(n_rolls):
        p[r] = kr.first_roll_prob[r]
        fin[r] = 0.0
    for j in range(kr.rolls - 1, 0, -1):
        for r in range(n_rolls):
            if p[r] == 0.0:
                continue
            k = keep_dec[j - 1, r]
            q = roll_vals[0, r, t] if kr.keep_size[k] == kr.n_dice else keep_vals[j, k, t]
            d = roll_vals[j, r, t] - q
            if d > 0.0:
                _charge(j, p[r], d, r, keep[j, r, t], out)
        reach_layer(kr, keep_dec[j - 1], p, w, fin)
    for r in range(n_rolls):
        pr = p[r] + fin[r]
        if pr == 0.0:
            continue
        best = roll_vals[0, r, t]
        d = _box_loss(kr, used, flag, val, points, r, t, cat_dec[r], best)
        if d > 0.0:
            by_cat[cat_dec[r]] += pr * d
            _charge(0, pr, d, r, cat[r, t], out)


@njit(cache=True, parallel=True, nogil=True)
def level_regret(kr, lanes, used, upper, flag, group_ptr, keep_dec, cat_dec, out, n_chunks):
    """Per-state expected losses of one level, in parallel over groups of states.

    Group ``g`` holds states ``group_ptr[g] .. group_ptr[g + 1] - 1``, all of one
    used-mask and flag: one recording widget run over the lanes of their upper totals
    serves them all. ``out = (loss, by_cat, top_roll, top_p, top_loss, top_best)``:
    ``loss[i, j]``, the expected loss (given the state is reached) of layer ``j``;
    ``by_cat[i, c]``, box losses by the box the strategy chose; ``top_*[i, j]``, the
    costliest roll of each layer (roll, probability within the turn, loss, optimal
    action: box index or keep index). The groups are shared out in ``n_chunks`` chunks.
    Games without saved rolls only (regret refuses the others)."""
    n_groups = group_ptr.shape[0] - 1
    n_rolls = kr.roll_keep_index.shape[0]
    n_keeps = kr.keep_add.shape[0]
    n_slots = kr.slot_points.shape[0]
    # a few chunks per thread: a recording work buffer over every upper total is large
    n_chunks = max(1, min(n_groups, n_chunks))
    for chunk in prange(n_chunks):
        work = new_work(kr, kr.upper_cap + 1, 2)
        scratch = (np.empty(n_rolls), np.empty(n_keeps), np.empty(n_rolls))
        for g in range(chunk, n_groups, n_chunks):
            a, b = group_ptr[g], group_ptr[g + 1]
            lo = upper[a]
            hi = upper[a]
            for i in range(a + 1, b):
                lo = min(lo, upper[i])
                hi = max(hi, upper[i])
            nu = hi - lo + 1
            _, cat, keep, keep_vals, roll_vals = widget(
                kr, lanes, used[a], lo, flag[a], lo, nu, work, np.int64(2)
            )
            val = work.val[: n_slots * nu].reshape((n_slots, nu))
            run = (cat, keep, keep_vals, roll_vals, val)
            for i in range(a, b):
                rows = (out[0][i], out[1][i], out[2][i], out[3][i], out[4][i], out[5][i])
                _turn_regret(
                    kr, used[i], flag[i], run, upper[i] - lo, keep_dec[i], cat_dec[i],
                    work.slots, scratch, rows,
                )  # fmt: skip


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
