"""The widget (Glenn 2006's name, §5): one turn of play computed backwards from a turn-start state.

Flat in ``_kernels/``: the kernel cache keys each kernel on this folder's files (see ``__init__``).

This is the one copy of the turn computation. The solver, target-score play, the
decision fills of table strategies, exact evaluation of those strategies, the
advisor and regret analysis all run it; they differ only in their *lanes*
(:mod:`.lanes`: upper totals, points needed, caller-valued, exponential utility) and in
what they record. Its parts live in files named for them:

1. *box step* (:mod:`.box_step`) — the value of each (open box, points) pair once per
   state, then each roll's best legal box by table lookup;
2. *keep steps* (:mod:`.keep_steps`, one per reroll left) — the value of every keep
   (adding the rerolled dice one at a time) and of every roll (the best of its
   sub-keeps);
3. the state's value, the mean of the first roll's values
   (:func:`.keep_steps.first_roll_mean`);

all in one work array ``W`` (one row per keep, ``nu`` lanes) of the buffers of
:mod:`.work_buffers`.

Speed: the hot loops index 2-d arrays by ``(row, lane)`` and call no function per box
or per roll with the ``kr`` bundle (numba moves and reference-counts every array of a
bundle it passes to a call it does not inline, which costs more than a box's work at
one lane); against the four separate copies this replaced, the one widget solves
official Yahtzee about 20% faster (``benchmarks/bench_solver.py``). The parts are
compiled into each caller whatever file they live in, so the split costs no speed.

Ties: the first box in score-sheet order; among keeps, the keep itself before its
sub-keeps (more dice kept), then removing the lowest face first.

**Recording** (``record``): 0 nothing; 1 the best box per roll and the best keep per
(rerolls left, roll) in every lane; 2 also the value of every keep and every roll per
rerolls left (advisor, regret).
"""

from __future__ import annotations

from numba import njit

from yahtzee_sim._kernels.box_step import box_pad, box_step, mixed_box_step
from yahtzee_sim._kernels.keep_steps import keep_steps, reroll_steps
from yahtzee_sim._kernels.work_buffers import buffer_layers, buffer_rows, level_records


@njit(cache=True, nogil=True)
def widget(kr, lanes, used, upper, flag, lo, nu, work, record):
    """Run one turn of state ``(used, upper, flag)`` backwards over lanes ``lo ..
    lo + nu - 1``.

    Returns views ``(W, cat, keep, keep_vals, roll_vals)`` of ``work``: the state's
    values in ``W[0, :nu]``; with ``record >= 1`` ``cat[r, t]`` (best box of roll r)
    and ``keep[j, r, t]`` (best keep index at roll r with j rerolls left, ``j >= 1``);
    with ``record == 2`` ``keep_vals[j, k, t]`` (value of keep k with j rerolls left)
    and ``roll_vals[j, r, t]`` (value of roll r with j rerolls left; ``j = 0``: its
    best box). Callers pass ``record`` as ``np.int64(...)``: a literal ``0``, ``1`` or
    ``2`` would make numba compile a specialization of the widget for each.
    """
    n_keeps = kr.keep_add.shape[0]
    n_rolls = kr.roll_keep_index.shape[0]
    W = buffer_rows(work.W, n_keeps, nu)
    A = buffer_rows(work.A, n_keeps, nu)
    cat = buffer_rows(work.cat, n_rolls, nu)
    keep, keep_vals, roll_vals = level_records(kr, work, nu)
    width = nu + box_pad(kr, lanes, flag)
    val = buffer_rows(work.val, kr.slot_points.shape[0], width)
    val_bonus = buffer_rows(work.val_bonus, kr.slot_points.shape[0], width)
    box_step(kr, lanes, used, upper, flag, lo, nu, W, val, val_bonus, work.slots, record >= 1, cat)
    keep_steps(kr, lanes, used, upper, flag, lo, nu, W, A, val, val_bonus, work, record)
    return W, cat, keep, keep_vals, roll_vals


@njit(cache=True, nogil=True)
def widget_mixed(kr, used, flag, nu, work, record, top=True):
    """:func:`widget` over caller-valued lanes of mixed states (``used[t]``, ``flag[t]``; box
    values filled by the caller, filled boxes masked): returns ``(W, cat, keep)`` views
    of ``work`` as :func:`widget` does (``record`` >= 1; ``top`` as in
    :func:`.keep_steps.reroll_steps`)."""
    n_keeps = kr.keep_add.shape[0]
    n_rolls = kr.roll_keep_index.shape[0]
    n_slots = kr.slot_points.shape[0]
    W = buffer_rows(work.W, n_keeps, nu)
    A = buffer_rows(work.A, n_keeps, nu)
    cat = buffer_rows(work.cat, n_rolls, nu)
    val = buffer_rows(work.val, n_slots, nu)
    val_bonus = buffer_rows(work.val_bonus, n_slots, nu)
    mixed_box_step(kr, used, flag, nu, W, val, val_bonus, work.slots, cat)
    reroll_steps(kr, W, A, nu, work, record, top)
    return W, cat, buffer_layers(work.keep, kr.levels, n_rolls, nu)
