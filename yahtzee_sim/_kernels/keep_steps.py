"""The widget's keep steps: every keep's and roll's value with rerolls left; the state's value.

Flat in ``_kernels/``: the kernel cache keys each kernel on this folder's files (see ``__init__``).

A keep's value is the expected value of the roll it leads to, adding the rerolled dice
one at a time (:func:`keep_values`, ``K[k] = mean_f K[k + f]``); a roll's value is the
best of its sub-keeps, found by removing dice one at a time (:func:`best_subkeeps`); the
state's value is the mean of the first roll's values (:func:`first_roll_mean`). Ties:
the keep itself before its sub-keeps (more dice kept), then removing the lowest face
first.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import overload

from yahtzee_sim._kernels.box_step import box_step
from yahtzee_sim._kernels.lanes import LANES_NEED
from yahtzee_sim._kernels.work_buffers import (
    buffer_layers,
    buffer_rows,
    copy_rows,
    level_records,
    record_rows,
)


@njit(cache=True, nogil=True)
def keep_values(kr, W, nu):
    """In place: rows of partial keeps become their expected values, from the rows of
    full keeps (rolls), adding one rerolled die at a time (larger keeps first).

    With six faces the six rows a keep reads are summed in registers, in face order (the
    same sums, bit for bit, as the general loop), and the row is written once (a
    read-modify-write of the row per face took 1.5 times as long on Yatzy)."""
    keep_add = kr.keep_add
    keep_size = kr.keep_size
    n_keeps, F = keep_add.shape
    inv = 1.0 / F
    if nu == 1:  # one lane: no row views (reference-counted, most of a keep's time)
        for k in range(n_keeps - 1, -1, -1):
            if keep_size[k] != kr.n_dice:
                w = W[keep_add[k, 0], 0]
                for f in range(1, F):
                    w += W[keep_add[k, f], 0]
                W[k, 0] = w * inv
        return
    for k in range(n_keeps - 1, -1, -1):  # rows indexed directly: a view is ref-counted
        if keep_size[k] == kr.n_dice:
            continue
        if F == 6:
            a0, a1, a2 = keep_add[k, 0], keep_add[k, 1], keep_add[k, 2]
            a3, a4, a5 = keep_add[k, 3], keep_add[k, 4], keep_add[k, 5]
            for t in range(nu):
                w = (((W[a0, t] + W[a1, t]) + W[a2, t]) + W[a3, t]) + W[a4, t]
                W[k, t] = (w + W[a5, t]) * inv
            continue
        for t in range(nu):
            W[k, t] = 0.0
        for f in range(F):
            a = keep_add[k, f]
            for t in range(nu):
                W[k, t] += W[a, t]
        for t in range(nu):
            W[k, t] *= inv


@njit(cache=True, nogil=True)
def best_subkeeps(kr, W, A, nu, record):
    """In place: each row becomes the best value over the sub-keeps of its keep (smaller
    keeps first), so rows of rolls hold the value of the roll with this many rerolls.
    With ``record``, ``A[k, t]`` = the best sub-keep (ties: the larger keep, then
    removing the lowest face).

    Without the record, keep ``k``'s own row and those of its keeps of one die fewer
    (``kr.keep_sub``, each already the best of its own sub-keeps) are compared in
    registers and the row written once: on Zen 3 about twice as fast as a
    read-modify-write of the row per removed die. Two, three or five rows are read (the
    table repeats a keep's last row; a maximum does not change), one loop each, chosen
    outside the lanes so that each vectorizes."""
    if record:
        _best_subkeeps_recorded(kr, W, A, nu)
        return
    sub, count = kr.keep_sub, kr.keep_sub_count
    if nu == 1:  # one lane: no row views
        for k in range(sub.shape[0]):
            w = W[k, 0]
            for i in range(count[k]):
                w = max(w, W[sub[k, i], 0])
            W[k, 0] = w
        return
    for k in range(sub.shape[0]):  # rows indexed directly: a view is ref-counted
        n = count[k]
        if n == 0:
            continue
        a0, a1, a2 = sub[k, 0], sub[k, 1], sub[k, 2]
        if n <= 2:
            for t in range(nu):
                W[k, t] = max(max(W[k, t], W[a0, t]), W[a1, t])
        elif n == 3:
            for t in range(nu):
                W[k, t] = max(max(max(W[k, t], W[a0, t]), W[a1, t]), W[a2, t])
        else:
            a3, a4 = sub[k, 3], sub[k, 4]
            for t in range(nu):
                w = max(max(max(W[k, t], W[a0, t]), W[a1, t]), W[a2, t])
                W[k, t] = max(max(w, W[a3, t]), W[a4, t])
            for i in range(5, n):  # more than five faces in one keep (no preset)
                a = sub[k, i]
                for t in range(nu):
                    W[k, t] = max(W[k, t], W[a, t])


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _best_subkeeps_recorded(kr, W, A, nu):
    """:func:`best_subkeeps` with its record ``A``: one read-modify-write of keep ``k``'s
    row and record per removed die, every load unconditional (the loop then vectorizes;
    comparing a keep's rows in registers, as without the record, does not: with twelve
    rows the compiler gives up its aliasing checks, and the scalar code branches on the
    data — three times slower on the widget's rows)."""
    keep_remove = kr.keep_remove
    n_keeps, F = keep_remove.shape
    for k in range(n_keeps):
        k32 = np.int32(k)
        for t in range(nu):
            A[k, t] = k32
        for f in range(F):
            kk = keep_remove[k, f]
            if kk < 0:
                continue
            for t in range(nu):
                v, w, a, b = W[kk, t], W[k, t], A[kk, t], A[k, t]
                better = v > w
                A[k, t] = a if better else b
                W[k, t] = v if better else w


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def first_roll_mean(kr, W, out, nu):
    """``out[t]`` = the mean over first rolls of their rows of ``W``: the state's value
    (only the empty keep is needed, so this is one dot product, not a full keep pass).
    ``out`` may be the empty keep's own row ``W[0]``: no roll's row is that row."""
    rki = kr.roll_keep_index
    prob = kr.first_roll_prob
    for t in range(nu):
        out[t] = 0.0
    for r in range(rki.shape[0]):
        p = prob[r]
        k = rki[r]
        for t in range(nu):
            out[t] += p * W[k, t]


def keep_steps(kr, lanes, used, upper, flag, lo, nu, W, A, val, val_bonus, work, record):
    """The widget's keep steps: :func:`saved_roll_steps` in games with saved rolls,
    :func:`reroll_steps` elsewhere — chosen by the type of ``kr.saving`` (``True`` or
    ``None``) when the caller is compiled, so that the kernels of the other games never
    compile the saved-roll steps, and by its value when the kernels run as Python
    (:mod:`yahtzee_sim.engine.interpreted`)."""
    if kr.saving is None:
        reroll_steps(kr, W, A, nu, work, record)
    else:
        saved_roll_steps(kr, lanes, used, upper, flag, lo, nu, W, A, val, val_bonus, work, record)


@overload(keep_steps, jit_options={"nogil": True})
def _keep_steps_typed(kr, lanes, used, upper, flag, lo, nu, W, A, val, val_bonus, work, record):
    if isinstance(kr.types[kr.fields.index("saving")], types.NoneType):

        def rerolls(kr, lanes, used, upper, flag, lo, nu, W, A, val, val_bonus, work, record):
            reroll_steps(kr, W, A, nu, work, record)

        return rerolls

    def saved(kr, lanes, used, upper, flag, lo, nu, W, A, val, val_bonus, work, record):
        saved_roll_steps(kr, lanes, used, upper, flag, lo, nu, W, A, val, val_bonus, work, record)

    return saved


@njit(cache=True, nogil=True)
def saved_roll_steps(kr, lanes, used, upper, flag, lo, nu, W, A, val, val_bonus, work, record):
    """The keep steps of a game with saved rolls (max-EV lanes), from rows of rolls
    holding their best box with no roll left (:func:`.box_step.box_step`, ``saved`` 0).

    With ``j`` rerolls left a roll may be scored at once, the ``j`` rolls saved (at most
    the cap): before each level's best-keep step the rows of rolls — the keep of every
    die, which stands for stopping — take the value of their best box with ``min(j,
    cap)`` rolls saved, so the best keep of a roll is itself when scoring now is best
    (ties: scoring now). The state's value with ``s`` saved rolls (``rolls_per_turn - 1 +
    s`` rerolls after the first roll) goes to ``work.tops[s]``, that with none also to
    ``W[0]``. Records: ``keep[j]`` and, per level, the box a roll scored at that level
    takes, ``work.cat_levels[j]``. Over the compact layout (:func:`.lanes.compact_upper_lanes`)
    only the saved counts a state with this many filled boxes can hold are run."""
    n_keeps = kr.keep_add.shape[0]
    n_rolls = kr.roll_keep_index.shape[0]
    rki = kr.roll_keep_index
    keep, keep_vals, roll_vals = level_records(kr, work, nu)
    cat_levels = buffer_layers(work.cat_levels, kr.levels, n_rolls, nu)
    tops = buffer_rows(work.tops, kr.saved_size, nu)
    B = buffer_rows(work.B, n_keeps, nu)
    cat0 = buffer_rows(work.cat, n_rolls, nu)
    slots = work.slots
    rec = record >= 1
    if rec:
        copy_rows(cat0, cat_levels[0], n_rolls, nu)
    n_levels = kr.levels
    if lanes.offset.shape[0] > 0 and lanes.kind != LANES_NEED:
        # only the states that occur: with k boxes filled, at most (rolls - 1) k saved
        n_levels = kr.rolls + min((kr.rolls - 1) * filled_boxes(used), kr.saved_roll_cap)
    for j in range(n_levels):
        if j > 0:
            keep_values(kr, W, nu)
            if record >= 2:
                copy_rows(W, keep_vals[j], n_keeps, nu)
            if j <= kr.saved_roll_cap:  # scoring now saves j rolls
                ck = cat_levels[j] if rec else cat0
                box_step(kr, lanes, used, upper, flag, lo, nu, B, val, val_bonus, slots, rec, ck, j)
            elif rec:  # as many saved as at the level below (the cap)
                copy_rows(cat_levels[j - 1], cat_levels[j], n_rolls, nu)
            for r in range(n_rolls):
                k = rki[r]
                for t in range(nu):
                    W[k, t] = B[k, t]
            best_subkeeps(kr, W, A, nu, rec)
            if rec:
                record_rows(rki, A, keep[j], nu)
        if record >= 2:
            record_rows(rki, W, roll_vals[j], nu)
        s = j - (kr.rolls - 1)
        if s >= 0:
            first_roll_mean(kr, W, tops[s], nu)
    for t in range(nu):
        W[0, t] = tops[0, t]


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def filled_boxes(used):
    """Number of filled boxes of the used-mask ``used`` (its set bits)."""
    n = 0
    while used:
        used &= used - 1
        n += 1
    return n


@njit(cache=True, nogil=True)
def reroll_steps(kr, W, A, nu, work, record, top=True):
    """Steps 2 and 3 of :func:`.widget.widget`, from rows of rolls holding their best box's value
    (the box step): the keep steps, recorded as ``record`` says into ``work``, then
    the state's value in ``W[0, :nu]``. They depend on the dice only, not on the state,
    so lanes of different states share them (:func:`.widget.widget_mixed`).

    ``top`` False stops after the first roll's keep values (``W``: the value of each
    keep with every reroll left): a caller that knows the first rolls it needs takes
    their best keeps itself (:func:`best_keep_at`) rather than recording all of them."""
    n_keeps = kr.keep_add.shape[0]
    rki = kr.roll_keep_index
    keep, keep_vals, roll_vals = level_records(kr, work, nu)
    for j in range(kr.rolls):
        if j > 0:
            keep_values(kr, W, nu)
            if not top and j == kr.rolls - 1:
                return
            if record >= 2:  # a loop, not `keep_vals[j] = W`: its shape check's error
                copy_rows(W, keep_vals[j], n_keeps, nu)  # message costs seconds to compile
            best_subkeeps(kr, W, A, nu, record >= 1)
            if record >= 1:
                record_rows(rki, A, keep[j], nu)
        if record >= 2:
            record_rows(rki, W, roll_vals[j], nu)
    first_roll_mean(kr, W, W[0], nu)


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def best_keep_at(kr, W, t, r, best, arg):
    """The best keep at roll ``r`` in lane ``t``, from the keep values ``W`` (as
    :func:`reroll_steps` with ``top`` False leaves them), with the ties of
    :func:`best_subkeeps`' record: over the roll's sub-keeps in ascending order (each
    keep's own sub-keeps come first), a keep's best is itself or the strictly better
    best of a keep of one die fewer, faces in ascending order. ``best`` and ``arg`` are
    scratch indexed by keep (float64, int64)."""
    keep_remove = kr.keep_remove
    for i in range(kr.roll_keep_ptr[r], kr.roll_keep_ptr[r + 1]):
        k = kr.roll_keep_keep[i]
        w, a = W[k, t], np.int64(k)
        for f in range(keep_remove.shape[1]):
            kk = keep_remove[k, f]
            if kk >= 0 and best[kk] > w:
                w, a = best[kk], arg[kk]
        best[k], arg[k] = w, a
    return arg[kr.roll_keep_index[r]]
