"""The widget's box step: each roll's best box, lane by lane, from every (box, points) value.

Flat in ``_kernels/``: the kernel cache keys each kernel on this folder's files (see ``__init__``).

The value of each (open box, points) pair is computed once per state
(:func:`box_values`, the scoring step applied to lanes), then each roll takes its best
legal box by table lookup; n-of-a-kind rolls get their legal points (joker rules) and
Yahtzee bonus from :func:`.scoring.roll_options`. Ties: the first box in score-sheet
order. The hot loops index 2-d arrays by ``(row, lane)`` and call no function per box
or per roll with the ``kr`` bundle (numba moves and reference-counts every array of a
bundle it passes to a call it does not inline, which costs more than a box's work at
one lane).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from yahtzee_sim._kernels.lanes import (
    LANES_EXP,
    LANES_NEED,
    need_row_lanes,
    prefetch_row_lanes,
)
from yahtzee_sim._kernels.scoring import (
    box_open,
    flag_after_roll,
    kinds_score_normally,
    next_state_depends_on_points,
    roll_options,
    saved_state_index,
    scored_state,
    sets_flag,
    upper_after_lanes,
)

NEG = -1.0e300
_NO_MASK = np.zeros(0, dtype=np.bool_)


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def box_pad(kr, lanes, flag):
    """Extra lanes of box values below ``lo``: the Yahtzee bonus in target lanes of a
    state whose n-of-a-kind rolls earn it (the flag is set), else 0."""
    return kr.yahtzee_bonus if lanes.kind == LANES_NEED and flag else 0


@njit(cache=True, nogil=True)
def box_values(kr, lanes, used, upper, flag, lo, nu, val, only=_NO_MASK, saved=0):
    """``val[s, t]`` = value in lane ``t`` of writing the points of slot ``s`` in its box,
    for every slot of every open box (one call per state; ``only``, if not empty: the
    slots ``s`` with ``only[s]``, the others left as they are); the next turn starts
    with ``saved`` saved rolls (games with saved rolls, max-EV lanes).

    Max-EV lanes: points + upper bonus if reached + the next state's value (the
    Yahtzee bonus is added per roll: it is the same for every box); exponential lanes:
    the same with ``exp(-θ points)`` times the value. Need lanes: the next state's value
    with ``lo + t - q`` points still needed, ``q`` = points + upper bonus (a roll's
    Yahtzee bonus shifts the lanes, see :func:`box_step`).

    The loops are written out here, not in a per-slot helper: a numba call passing
    ``kr`` moves every array of the bundle, which costs more than a slot's work.
    """
    upper_lanes = lanes.kind != LANES_NEED
    exp_lanes = lanes.kind == LANES_EXP
    masked = only.shape[0] > 0
    # the lanes' fields as locals: read through the bundle (or row_first) per slot, they
    # cost several times the slot's work when a call has one lane
    V, offset, length, first = lanes.values, lanes.offset, lanes.length, lanes.first
    has_first = first.shape[0] > 0
    compact = upper_lanes and offset.shape[0] > 0
    top, bottom = lanes.top, lanes.bottom
    for c in range(kr.n_boxes):
        if not box_open(kr, used, c):
            continue
        # need lanes: a box that moves neither the upper total nor the flag sends every
        # slot to one next state, whose row is then read once for all of them
        same_next = not upper_lanes and not next_state_depends_on_points(kr, c)
        f2 = n2 = o2 = 0
        if same_next:
            s2, _ = scored_state(kr, used, upper, flag, c, 0)
            f2 = first[s2] if has_first else 0
            n2, o2 = length[s2], offset[s2]
        for s in range(kr.slot_ptr[c], kr.slot_ptr[c + 1]):
            if masked and not only[s]:
                continue
            p = kr.slot_points[s]
            if upper_lanes:
                nf = 1 if sets_flag(kr, c, p) else flag
                nxt = used | (np.int64(1) << c)
                a, b, shift = upper_after_lanes(kr, lo, nu, c, p)
                if compact:  # only the states that occur (game.state.StateLayout)
                    base = offset[nxt * kr.flag_size + nf] + saved * length[nxt]
                    at_cap = V[base + kr.upper_cap] if length[nxt] > kr.upper_cap else 0.0
                else:
                    base = saved_state_index(kr, nxt, 0, nf, saved)
                    at_cap = V[base + kr.upper_cap]
                src = base + lo + shift
                if exp_lanes:  # multiply by exp(-theta * points)
                    f, fb = lanes.scale[p], lanes.scale[p + kr.upper_bonus]
                    for t in range(a):
                        val[s, t] = f * V[src + t]
                    for t in range(a, b):
                        val[s, t] = fb * at_cap
                    for t in range(b, nu):
                        val[s, t] = f * at_cap
                    continue
                fp = float(p)
                for t in range(a):  # lane t moves to the upper total lo + t + shift
                    val[s, t] = fp + V[src + t]
                for t in range(a, b):  # the bonus is reached now
                    val[s, t] = fp + kr.upper_bonus + at_cap
                for t in range(b, nu):
                    val[s, t] = fp + at_cap
                continue
            if same_next:  # every slot of the box leads to the same next state
                q = p
            else:
                s2, bonus = scored_state(kr, used, upper, flag, c, p)
                q = p + bonus
                f2 = first[s2] if has_first else 0  # row_first
                n2, o2 = length[s2], offset[s2]
            need_row_lanes(val, s, V, o2, f2, n2, lo - q, nu, top, bottom)


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def prefetch_box_rows(kr, lanes, used, upper, flag, lo, hi):
    """Start loading (:func:`.memory.prefetch`) the entries :func:`box_values` of need
    lanes ``lanes`` reads for lanes ``lo .. hi`` of state ``(used, upper, flag)``:
    for each open box, the part of its next states' rows those lanes reach. The rows of
    a need-lane table lie scattered over a GB or more, so a box-value fill waits on
    memory for most of its time unless they are asked for ahead."""
    V = lanes.values
    offset, length, first = lanes.offset, lanes.length, lanes.first
    has_first = first.shape[0] > 0
    for c in range(kr.n_boxes):
        if not box_open(kr, used, c):
            continue
        if not next_state_depends_on_points(kr, c):  # one next state: one stretch
            s2, _ = scored_state(kr, used, upper, flag, c, 0)
            p_min = kr.slot_points[kr.slot_ptr[c]]
            p_max = kr.slot_points[kr.slot_ptr[c + 1] - 1]
            f2 = first[s2] if has_first else 0
            prefetch_row_lanes(V, offset[s2], f2, length[s2], lo - p_max, hi - p_min)
            continue
        for s in range(kr.slot_ptr[c], kr.slot_ptr[c + 1]):
            s2, bonus = scored_state(kr, used, upper, flag, c, kr.slot_points[s])
            q = kr.slot_points[s] + bonus
            f2 = first[s2] if has_first else 0
            prefetch_row_lanes(V, offset[s2], f2, length[s2], lo - q, hi - q)


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def bonus_moves_flag(kr, used, flag):
    """Whether a Yahtzee rolled from this state earns a bonus that moves the flag (rules
    with a bonus limit): its boxes then lead to states with the next flag."""
    yi = kr.yahtzee_index
    return (
        (kr.yahtzee_bonus_limit > 0)
        & (yi >= 0)
        & ((used >> yi) & 1 == 1)
        & (flag >= 1)
        & (flag <= kr.yahtzee_bonus_limit)
    )


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def box_step(kr, lanes, used, upper, flag, lo, nu, W, val, val_bonus, slots, record, cat, saved=0):
    """Rows of rolls in ``W`` = the value of each roll's best box, lane by lane;
    with ``record``, ``cat[r, t]`` = that box (the first in card order on ties).

    ``val`` holds ``nu + pad`` lanes per slot (:func:`box_pad`). An n-of-a-kind roll (joker rules,
    Yahtzee bonus) gets its legal points from :func:`roll_options`; its Yahtzee bonus
    ``yb`` adds to max-EV lanes and, in target lanes, means ``yb`` fewer points needed:
    lane ``t`` reads the box value ``yb`` lanes lower, so target lanes of a state whose
    rolls can earn the bonus start the box values ``pad = yahtzee_bonus`` lanes early.
    ``slots`` is scratch for one roll's slot per box (-1: illegal). Under a bonus limit,
    a bonus Yahtzee moves the flag, so its boxes are valued from ``val_bonus``, filled
    for the next flag (:func:`bonus_moves_flag`). ``saved``: the rolls the next turn
    starts with (games with saved rolls: the rolls left unused, up to the cap).
    """
    need_lanes = lanes.kind == LANES_NEED
    pad = val.shape[1] - nu
    box_values(kr, lanes, used, upper, flag, lo - pad, nu + pad, val, _NO_MASK, saved)
    moves = bonus_moves_flag(kr, used, flag)
    if moves:
        box_values(
            kr, lanes, used, upper, flag_after_roll(kr, flag, 1), lo - pad, nu + pad, val_bonus
        )
    C = kr.n_boxes
    score_slot = kr.score_slot
    rki = kr.roll_keep_index
    boxes = np.empty(C, dtype=np.int64)  # one roll's legal boxes and their slots
    rows = np.empty(C, dtype=np.int64)
    n_open = 0
    for c in range(C):  # once per state: a call passing kr per roll and box costs more
        if box_open(kr, used, c):  # than the roll's work
            boxes[n_open] = c
            n_open += 1
    open_boxes = boxes[:n_open].copy()
    mul0 = lanes.scale[0] if lanes.kind == LANES_EXP else 1.0  # a roll with no bonus
    one_lane = nu == 1
    if one_lane and not record:  # box by box over every roll (n-of-a-kind rolls below)
        best_open_boxes(kr, W, val, open_boxes, pad, mul0)
    normal_kinds = kinds_score_normally(kr, used)
    for r in range(rki.shape[0]):
        normal = kr.yahtzee_face[r] < 0 or normal_kinds
        if one_lane and normal:  # one lane, normal scoring: no row views
            if record:
                best_open_box(W, rki[r], cat, r, record, val, score_slot, open_boxes, pad, mul0)
            continue
        if normal:  # normal scoring: the open boxes, each at the slot of the roll's points
            for i in range(n_open):
                rows[i] = score_slot[r, open_boxes[i]]
            k = rki[r]
            best_boxes_at(W, k, cat, r, record, val, rows, open_boxes, n_open, pad, mul0, 0.0, nu)
            continue
        yb = roll_options(kr, r, used, flag, slots)  # n of a kind: joker rules, bonus
        for c in range(C):
            if slots[c] >= 0:
                slots[c] = kr.points_slot[c, slots[c]]
        n = 0
        for c in range(C):
            if slots[c] >= 0:
                boxes[n], rows[n] = c, slots[c]
                n += 1
        src = pad - yb if need_lanes else pad  # lane t reads lane src + t
        add = 0.0 if need_lanes or lanes.kind == LANES_EXP else float(yb)
        mul = lanes.scale[yb] if lanes.kind == LANES_EXP else 1.0
        V = val_bonus if yb > 0 and moves else val
        if nu == 1:  # one lane (a single state's decisions): no row views
            best_box_one_lane(W, rki[r], cat, r, record, V, rows, boxes, n, src, mul, add)
            continue
        best_boxes_at(W, rki[r], cat, r, record, V, rows, boxes, n, src, mul, add, nu)


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def best_open_boxes(kr, W, val, open_boxes, src, mul):
    """One lane, every roll as if scored normally: ``W[k, 0]`` of each roll's keep ``k``
    = the best of ``val[slot, src] * mul + 0.0`` over the open boxes, box by box over
    all rolls (a gather and a maximum per roll, no branch)."""
    slot = kr.box_score_slot
    n_rolls = slot.shape[1]
    best = np.full(n_rolls, NEG)
    for i in range(open_boxes.shape[0]):
        sc = slot[open_boxes[i]]
        for r in range(n_rolls):
            best[r] = max(best[r], val[sc[r], src] * mul + 0.0)
    rki = kr.roll_keep_index
    for r in range(n_rolls):
        W[rki[r], 0] = best[r]


@njit(cache=True, nogil=True, inline="always")
def best_open_box(W, k, cat, r, record, val, score_slot, open_boxes, src, mul):
    """One lane, a roll ``r`` scored normally: ``W[k, 0]`` = the best of ``val[slot,
    src] * mul + 0.0`` over the open boxes (the slot of the roll's points in each) and,
    with ``record``, ``cat[r, 0]`` = that box (the first on ties)."""
    w, a = NEG, -1
    for i in range(open_boxes.shape[0]):
        c = open_boxes[i]
        v = val[score_slot[r, c], src] * mul + 0.0
        if v > w:
            w, a = v, c
    W[k, 0] = w
    if record:
        cat[r, 0] = a


@njit(cache=True, nogil=True, inline="always")
def best_box_one_lane(W, k, cat, r, record, V, rows, boxes, n, src, mul, add):
    """:func:`best_boxes` in one lane: ``W[k, 0]`` = the best of ``V[rows[i], src] * mul
    + add`` over ``i < n`` and, with ``record``, ``cat[r, 0]`` = its box (the first on
    ties). Indexing the 2-d arrays directly, where :func:`best_boxes` takes a view of
    each row (reference-counted: with one lane, most of a roll's time)."""
    w, a = NEG, -1
    for i in range(n):
        v = V[rows[i], src] * mul + add
        if v > w:
            w, a = v, boxes[i]
    W[k, 0] = w
    if record:
        cat[r, 0] = a


@njit(cache=True, nogil=True)
def best_boxes(Wk, ck, record, V, rows, boxes, n, src, mul, add, nu):
    """``Wk[t]`` = the best of ``V[rows[i], src + t] * mul + add`` over ``i < n`` (``NEG``
    if ``n`` is 0) and, with ``record``, ``ck[t]`` = its box ``boxes[i]`` (the first on
    ties; -1 if none) — one roll's best box in every lane: :func:`best_boxes_at` on one
    row."""
    best_boxes_at(
        Wk[:nu].reshape((1, nu)), 0, ck[:nu].reshape((1, nu)), 0, record, V, rows, boxes, n,
        src, mul, add, nu,
    )  # fmt: skip


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def best_boxes_at(W, k, cat, r, record, V, rows, boxes, n, src, mul, add, nu):
    """``W[k, t]`` = the best of ``V[rows[i], src + t] * mul + add`` over ``i < n``
    (``NEG`` if ``n`` is 0) and, with ``record``, ``cat[r, t]`` = its box ``boxes[i]``
    (the first on ties; -1 if none) — one roll's best box in every lane (``cat`` is not
    read without ``record``).

    Four boxes at a time are compared in registers, in order, and the row written once,
    unconditionally: a conditional update of the row per box compiles to masked stores,
    slow on some processors, or to scalar code. A group short of four repeats its last
    box, which can never win again (the comparisons are strict). The 2-d arrays are
    indexed directly: a row view (``W[k]``) is reference-counted, which with a few lanes
    cost several times the roll's work; ``V``'s column ``src + t`` is cast to unsigned (no
    wrap-around of negative indices), else every load is a gather, not a vector load."""
    for t in range(nu):
        W[k, t] = NEG
    if record:
        for t in range(nu):
            cat[r, t] = -1
    for i in range(0, n, 4):
        j1, j2, j3 = min(i + 1, n - 1), min(i + 2, n - 1), min(i + 3, n - 1)
        r0, r1, r2, r3 = rows[i], rows[j1], rows[j2], rows[j3]
        c0, c1, c2, c3 = boxes[i], boxes[j1], boxes[j2], boxes[j3]
        if not record:
            for t in range(nu):
                u = np.uint64(src + t)
                w = max(W[k, t], V[r0, u] * mul + add)
                w = max(w, V[r1, u] * mul + add)
                w = max(w, V[r2, u] * mul + add)
                W[k, t] = max(w, V[r3, u] * mul + add)
            continue
        for t in range(nu):
            u = np.uint64(src + t)
            w, a = W[k, t], cat[r, t]
            v = V[r0, u] * mul + add
            g = v > w
            w, a = (v if g else w), (c0 if g else a)
            v = V[r1, u] * mul + add
            g = v > w
            w, a = (v if g else w), (c1 if g else a)
            v = V[r2, u] * mul + add
            g = v > w
            w, a = (v if g else w), (c2 if g else a)
            v = V[r3, u] * mul + add
            g = v > w
            W[k, t], cat[r, t] = (v if g else w), (c3 if g else a)


@njit(cache=True, nogil=True)
def mask_used_boxes(kr, used, t, val):
    """Given lanes of mixed states: lane ``t``'s filled boxes (``used``; under forced
    order every box but the next) get the value ``NEG`` in ``val``, so that no roll
    writes in them (:func:`mixed_box_step`)."""
    for c in range(kr.n_boxes):
        if not box_open(kr, used, c):
            for s in range(kr.slot_ptr[c], kr.slot_ptr[c + 1]):
                val[s, t] = NEG


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def mixed_box_step(kr, used, flag, nu, W, val, val_bonus, slots, cat):
    """The box step of caller-valued lanes whose turn-start states differ: lane
    ``t`` is a game at filled boxes ``used[t]`` and flag ``flag[t]``, its filled boxes
    valued ``NEG`` in ``val`` (:func:`mask_used_boxes`). A roll's best box is then a max
    over the boxes open in any lane, lane by lane; n-of-a-kind rolls, whose legal boxes
    and Yahtzee bonus depend on the lane's own boxes and flag (joker rules), are scored
    lane by lane from :func:`roll_options`. Same legal boxes and ties as
    :func:`box_step`; records ``cat[r, t]``."""
    C = kr.n_boxes
    score_slot = kr.score_slot
    rki = kr.roll_keep_index
    open_any = 0
    for t in range(nu):
        open_any |= ~used[t]
    boxes = np.empty(C, dtype=np.int64)  # the boxes open in some lane, and a roll's slots
    rows = np.empty(C, dtype=np.int64)
    n = 0
    for c in range(C):
        if (open_any >> c) & 1:
            boxes[n] = c
            n += 1
    for r in range(rki.shape[0]):
        k = rki[r]
        if kr.yahtzee_face[r] < 0:  # normal scoring: the boxes' own slots
            for i in range(n):
                rows[i] = score_slot[r, boxes[i]]
            best_boxes_at(W, k, cat, r, True, val, rows, boxes, n, 0, 1.0, 0.0, nu)
            continue
        for t in range(nu):
            W[k, t] = NEG
            cat[r, t] = -1
        yb = 0
        for t in range(nu):  # n of a kind: joker rules and the bonus, per lane
            if t == 0 or used[t] != used[t - 1] or flag[t] != flag[t - 1]:
                yb = roll_options(kr, r, used[t], flag[t], slots)  # else as lane t - 1
            V = val_bonus if yb > 0 else val
            for c in range(C):
                if slots[c] >= 0:
                    v = V[kr.points_slot[c, slots[c]], t]
                    if v > W[k, t]:
                        W[k, t] = v
                        cat[r, t] = c
