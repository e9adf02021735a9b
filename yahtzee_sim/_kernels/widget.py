"""The widget: one turn of play, backwards, from a turn-start state (Glenn 2006 §5).

This is the one copy of the turn computation. The solver, target-score play, the
decision fills of table strategies, exact evaluation of those strategies, the
advisor and regret analysis all run it; they differ only in their *lanes* and in
what they record.

**Lanes.** The innermost loops run over ``nu`` lanes, one value per lane:

* :data:`LANES_UPPER` (max-EV): lane ``t`` is the upper total ``lo + t`` of the
  state; ``values[state index]`` is the expected score still to come;
* :data:`LANES_NEED` (target score, any utility of the final score): lane ``t`` is
  the number of points still needed ``lo + t`` (to reach β, or the score ``M`` above
  which a utility is constant); state ``s`` has the row ``values[offset[s] :
  offset[s] + length[s]]`` holding lanes ``first[s] .. first[s] + length[s] - 1``
  (``first`` empty: 0 for every state); lanes before the row have the value ``top``
  (the goal is reached), lanes past it ``bottom`` (target: 1 and 0);
* caller-valued lanes (:func:`widget_mixed`: win-aware play, batched table play): the
  caller fills the value of every (box, points) pair in every lane itself —
  ``work.val[s, t]``, and in ``work.val_bonus[s, t]`` the same with a roll's Yahtzee
  bonus paid — and each lane is one game at its own state;
* :data:`LANES_EXP` (exponential utility, risk-sensitive play): as max-EV, over upper
  totals, but a state's value is ``±E[exp(-θ · points to come)]`` and scoring ``q``
  points multiplies by ``scale[q] = exp(-θ q)`` instead of adding ``q``.

**Steps** (all in one work array ``W``, one row per keep, ``nu`` lanes):

1. *box step* — the value of each (open box, points) pair is computed once per
   state (:func:`box_values`, the scoring step of :mod:`.play` applied to lanes), then
   each roll takes its best legal box by table lookup; n-of-a-kind rolls get their
   legal points (joker rules) and Yahtzee bonus from :func:`.scoring.roll_options`;
2. *keep steps* (one per reroll left) — a keep's value is the expected value of the
   roll it leads to, adding the rerolled dice one at a time (:func:`keep_values`,
   ``K[k] = mean_f K[k + f]``); a roll's value is the best of its sub-keeps, found by
   removing dice one at a time (:func:`best_subkeeps`);
3. the state's value is the mean of the first roll's values (:func:`first_roll_mean`).

Speed: the hot loops index 2-d arrays by ``(row, lane)`` and call no function per box
or per roll with the ``kr`` bundle (numba moves and reference-counts every array of a
bundle it passes to a call it does not inline, which costs more than a box's work at
one lane); against the four separate copies this replaced, the one widget solves
official Yahtzee about 20% faster (``benchmarks/bench_solver.py``).

Ties: the first box in score-sheet order; among keeps, the keep itself before its
sub-keeps (more dice kept), then removing the lowest face first.

**Recording** (``record``): 0 nothing; 1 the best box per roll and the best keep per
(rerolls left, roll) in every lane; 2 also the value of every keep and every roll per
rerolls left (advisor, regret).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, types
from numba.extending import overload

from yahtzee_sim._kernels.memory import prefetch
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
LANES_UPPER = 0
LANES_NEED = 1
LANES_EXP = 2
_NO_ROWS = np.zeros(0, dtype=np.int64)
_NO_SCALE = np.zeros(0)
_NO_MASK = np.zeros(0, dtype=np.bool_)


class Lanes(NamedTuple):
    """What the lanes of a widget run are, and the values of the later states."""

    kind: int
    values: np.ndarray  # float64
    offset: np.ndarray  # int64: LANES_NEED rows; upper lanes: StateLayout.block_offset
    length: np.ndarray  # int64: LANES_NEED rows; upper lanes: StateLayout.upper_count
    first: np.ndarray  # int64, LANES_NEED only: first lane of each row (empty: all 0)
    top: float  # LANES_NEED: value of lanes before a row (the goal reached)
    bottom: float  # LANES_NEED: value of lanes past a row
    scale: np.ndarray  # float64, LANES_EXP only: scale[q] = exp(-theta * q)


def upper_total_lanes(values: np.ndarray) -> Lanes:
    """Max-EV lanes over upper totals, from a value table indexed by state."""
    return Lanes(LANES_UPPER, values, _NO_ROWS, _NO_ROWS, _NO_ROWS, 0.0, 0.0, _NO_SCALE)


def compact_upper_lanes(values: np.ndarray, layout, shift: int = 0) -> Lanes:
    """Max-EV lanes over upper totals of a game indexing only the states that occur
    (:class:`yahtzee_sim.game.state.StateLayout`): ``values[i]`` is state ``shift + i``
    (``shift``: the first state of a slice of the table, e.g. the level read)."""
    offset = layout.block_offset - shift if shift else layout.block_offset
    return Lanes(LANES_UPPER, values, offset, layout.upper_count, _NO_ROWS, 0.0, 0.0, _NO_SCALE)


def points_needed_lanes(
    probs: np.ndarray,
    offset: np.ndarray,
    length: np.ndarray,
    first: np.ndarray = _NO_ROWS,
    top: float = 1.0,
    bottom: float = 0.0,
) -> Lanes:
    """Lanes over points still needed, from rows of a target table (``first`` empty,
    ``top`` 1, ``bottom`` 0) or of a utility table."""
    return Lanes(LANES_NEED, probs, offset, length, first, float(top), float(bottom), _NO_SCALE)


def exponential_lanes(values: np.ndarray, scale: np.ndarray) -> Lanes:
    """Exponential-utility lanes over upper totals (``scale[q] = exp(-θ q)``)."""
    return Lanes(LANES_EXP, values, _NO_ROWS, _NO_ROWS, _NO_ROWS, 0.0, 0.0, scale)


@njit(cache=True, nogil=True)
def row_first(lanes, s):
    """First lane of state ``s``'s row (need lanes)."""
    return lanes.first[s] if lanes.first.shape[0] else 0


@njit(cache=True, nogil=True)
def lane_live(lanes, s, t):
    """Whether need lane ``t`` of state ``s`` still depends on the play: the goal not
    reached (``t > 0``), the lane in the state's row, its value not ``bottom`` (the goal
    out of reach). Score-dependent strategies play max-EV elsewhere."""
    f = row_first(lanes, s)
    if t <= 0 or t < f or t >= f + lanes.length[s]:
        return False
    return lanes.values[lanes.offset[s] + t - f] != lanes.bottom


@njit(cache=True, nogil=True)
def live_lanes(lanes, states, t):
    """:func:`lane_live` of every ``(states[i], t[i])``."""
    out = np.empty(states.shape[0], dtype=np.bool_)
    for i in range(states.shape[0]):
        out[i] = lane_live(lanes, states[i], t[i])
    return out


class Work(NamedTuple):
    """Scratch and recording buffers of one widget run (flat; viewed per ``nu``)."""

    W: np.ndarray  # keeps x lanes: values
    A: np.ndarray  # keeps x lanes: best sub-keep (int32)
    val: np.ndarray  # box slots x (lanes + Yahtzee bonus): value of each (box, points)
    val_bonus: np.ndarray  # the same after a bonus Yahtzee (bonus limit; caller-valued lanes)
    slots: np.ndarray  # boxes: one roll's slot per box (int64)
    cat: np.ndarray  # rolls x lanes: best box (record >= 1)
    keep: np.ndarray  # levels x rolls x lanes: best keep (record >= 1)
    keep_vals: np.ndarray  # levels x keeps x lanes (record 2)
    roll_vals: np.ndarray  # levels x rolls x lanes (record 2)
    tops: np.ndarray  # saved-roll counts x lanes: the state's values (saved rolls only)
    B: np.ndarray  # keeps x lanes: rows of rolls = best box at a level (saved rolls only)
    cat_levels: np.ndarray  # levels x rolls x lanes: best box per level (saved, record >= 1)


@njit(cache=True, nogil=True)
def new_work(kr, max_nu, record):
    """Buffers for widget runs of up to ``max_nu`` lanes at recording level ``record``."""
    n_keeps = kr.keep_add.shape[0]
    n_rolls = kr.roll_keep_index.shape[0]
    rec = max_nu if record >= 1 else 0
    vals = max_nu if record >= 2 else 0
    n_val = kr.slot_points.shape[0] * (max_nu + kr.yahtzee_bonus)
    saving = kr.saved_size > 1
    return Work(
        np.empty(n_keeps * max_nu),
        np.empty(n_keeps * rec, dtype=np.int32),
        np.empty(n_val),
        np.empty(n_val if kr.yahtzee_bonus_limit > 0 or kr.yahtzee_bonus > 0 else 0),
        np.empty(kr.n_boxes, dtype=np.int64),
        np.empty(n_rolls * rec, dtype=np.int64),
        np.zeros(kr.levels * n_rolls * rec, dtype=np.int64),
        np.zeros(kr.levels * n_keeps * vals),
        np.zeros(kr.levels * n_rolls * vals),
        np.zeros(kr.saved_size * max_nu if saving else 0),
        np.zeros(n_keeps * max_nu if saving else 0),
        np.zeros(kr.levels * n_rolls * rec if saving else 0, dtype=np.int64),
    )


@njit(cache=True, nogil=True)
def buffer_rows(buf, n, nu):
    """The first ``n * nu`` entries of ``buf`` as ``(n, nu)`` (``(0, nu)`` if too short)."""
    if buf.shape[0] < n * nu:
        return buf[:0].reshape((0, nu))
    return buf[: n * nu].reshape((n, nu))


@njit(cache=True, nogil=True)
def _layers(buf, m, n, nu):
    if buf.shape[0] < m * n * nu:
        return buf[:0].reshape((0, n, nu))
    return buf[: m * n * nu].reshape((m, n, nu))


@njit(cache=True, nogil=True)
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
    V = lanes.values
    offset, length, first = lanes.offset, lanes.length, lanes.first
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


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True, inline="always")
def prefetch_row_lanes(V, offset, first, length, lo, hi):
    """Prefetch lanes ``lo .. hi`` of the row at ``V[offset:]`` holding lanes ``first ..
    first + length - 1``, one entry per 64-byte line."""
    a, b = row_span(first, length, lo, hi)
    for i in range(a, b + 1, 8):
        prefetch(V, offset + i)
    if a <= b:
        prefetch(V, offset + b)


@njit(cache=True, nogil=True, inline="always")
def row_span(first, length, lo, hi):
    """``(a, b)``: the entries ``a .. b`` of a row holding lanes ``first .. first +
    length - 1`` that lanes ``lo .. hi`` read (:func:`need_row_lanes`; none if ``a >
    b``: lanes outside the row read ``top`` or ``bottom``, not the row)."""
    return max(lo - first, 0), min(hi - first, length - 1)


@njit(cache=True, nogil=True, inline="always")
def need_row_lanes(val, s, V, offset, first, length, lo, nu, top, bottom):
    """``val[s, t]`` = need lane ``lo + t`` of the row at ``V[offset:]`` holding lanes
    ``first .. first + length - 1``: ``top`` before it (the goal reached), ``bottom``
    past it."""
    i = lo - first
    a = min(max(-i, 0), nu)  # lanes before the row
    b = min(max(length - i, 0), nu)  # past b: past the row
    for t in range(a):
        val[s, t] = top
    for t in range(a, b):
        val[s, t] = V[offset + i + t]
    for t in range(b, nu):
        val[s, t] = bottom


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
def first_roll_mean(kr, W, nu):
    """``W[0] =`` the mean over first rolls of their rows: the state's value (only the
    empty keep is needed, so this is one dot product, not a full keep pass)."""
    rki = kr.roll_keep_index
    prob = kr.first_roll_prob
    for t in range(nu):
        W[0, t] = 0.0
    for r in range(rki.shape[0]):
        p = prob[r]
        k = rki[r]
        for t in range(nu):
            W[0, t] += p * W[k, t]


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
    keep = _layers(work.keep, kr.levels, n_rolls, nu)
    keep_vals = _layers(work.keep_vals, kr.levels, n_keeps, nu)
    roll_vals = _layers(work.roll_vals, kr.levels, n_rolls, nu)
    width = nu + box_pad(kr, lanes, flag)
    val = buffer_rows(work.val, kr.slot_points.shape[0], width)
    val_bonus = buffer_rows(work.val_bonus, kr.slot_points.shape[0], width)
    box_step(kr, lanes, used, upper, flag, lo, nu, W, val, val_bonus, work.slots, record >= 1, cat)
    keep_steps(kr, lanes, used, upper, flag, lo, nu, W, A, val, val_bonus, work, record)
    return W, cat, keep, keep_vals, roll_vals


def keep_steps(kr, lanes, used, upper, flag, lo, nu, W, A, val, val_bonus, work, record):
    """The widget's keep steps, in compiled code: :func:`saved_roll_steps` in games with
    saved rolls, :func:`reroll_steps` elsewhere — chosen by the type of ``kr.saving``
    (``True`` or ``None``) when the caller is compiled, so that the kernels of the other
    games never compile the saved-roll steps."""
    raise NotImplementedError("keep_steps runs in compiled code only")


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
    holding their best box with no roll left (:func:`box_step`, ``saved`` 0).

    With ``j`` rerolls left a roll may be scored at once, the ``j`` rolls saved (at most
    the cap): before each level's best-keep step the rows of rolls — the keep of every
    die, which stands for stopping — take the value of their best box with ``min(j,
    cap)`` rolls saved, so the best keep of a roll is itself when scoring now is best
    (ties: scoring now). The state's value with ``s`` saved rolls (``rolls_per_turn - 1 +
    s`` rerolls after the first roll) goes to ``work.tops[s]``, that with none also to
    ``W[0]``. Records: ``keep[j]`` and, per level, the box a roll scored at that level
    takes, ``work.cat_levels[j]``. Over the compact layout (:func:`compact_upper_lanes`)
    only the saved counts a state with this many filled boxes can hold are run."""
    n_keeps = kr.keep_add.shape[0]
    n_rolls = kr.roll_keep_index.shape[0]
    rki = kr.roll_keep_index
    keep = _layers(work.keep, kr.levels, n_rolls, nu)
    keep_vals = _layers(work.keep_vals, kr.levels, n_keeps, nu)
    roll_vals = _layers(work.roll_vals, kr.levels, n_rolls, nu)
    cat_levels = _layers(work.cat_levels, kr.levels, n_rolls, nu)
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
            mean_first_roll(kr, W, tops[s], nu)
    for t in range(nu):
        W[0, t] = tops[0, t]


@njit(cache=True, nogil=True)
def filled_boxes(used):
    """Number of filled boxes of the used-mask ``used`` (its set bits)."""
    n = 0
    while used:
        used &= used - 1
        n += 1
    return n


@njit(cache=True, nogil=True)
def mean_first_roll(kr, W, out, nu):
    """``out[t]`` = the mean over first rolls of their rows of ``W``."""
    rki = kr.roll_keep_index
    prob = kr.first_roll_prob
    for t in range(nu):
        out[t] = 0.0
    for r in range(rki.shape[0]):
        p = prob[r]
        k = rki[r]
        for t in range(nu):
            out[t] += p * W[k, t]


@njit(cache=True, nogil=True)
def reroll_steps(kr, W, A, nu, work, record, top=True):
    """Steps 2 and 3 of :func:`widget`, from rows of rolls holding their best box's value
    (the box step): the keep steps, recorded as ``record`` says into ``work``, then
    the state's value in ``W[0, :nu]``. They depend on the dice only, not on the state,
    so lanes of different states share them (:func:`widget_mixed`).

    ``top`` False stops after the first roll's keep values (``W``: the value of each
    keep with every reroll left): a caller that knows the first rolls it needs takes
    their best keeps itself (:func:`best_keep_at`) rather than recording all of them."""
    n_keeps = kr.keep_add.shape[0]
    n_rolls = kr.roll_keep_index.shape[0]
    rki = kr.roll_keep_index
    keep = _layers(work.keep, kr.levels, n_rolls, nu)
    keep_vals = _layers(work.keep_vals, kr.levels, n_keeps, nu)
    roll_vals = _layers(work.roll_vals, kr.levels, n_rolls, nu)
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
    first_roll_mean(kr, W, nu)


@njit(cache=True, nogil=True)
def copy_rows(rows, out, n, nu):
    """``out[k, t] = rows[k, t]`` for the first ``n`` rows."""
    for k in range(n):
        for t in range(nu):
            out[k, t] = rows[k, t]


@njit(cache=True, nogil=True)
def record_rows(rki, rows, out, nu):
    """``out[r, t] = rows[rki[r], t]``: the rows of the rolls (a level's record)."""
    for r in range(rki.shape[0]):
        for t in range(nu):
            out[r, t] = rows[rki[r], t]


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
def mask_used_boxes(kr, used, t, val):
    """Given lanes of mixed states: lane ``t``'s filled boxes (``used``; under forced
    order every box but the next) get the value ``NEG`` in ``val``, so that no roll
    writes in them (:func:`mixed_box_step`)."""
    for c in range(kr.n_boxes):
        if not box_open(kr, used, c):
            for s in range(kr.slot_ptr[c], kr.slot_ptr[c + 1]):
                val[s, t] = NEG


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
def widget_mixed(kr, used, flag, nu, work, record, top=True):
    """:func:`widget` over caller-valued lanes of mixed states (``used[t]``, ``flag[t]``; box
    values filled by the caller, filled boxes masked): returns ``(W, cat, keep)`` views
    of ``work`` as :func:`widget` does (``record`` >= 1; ``top`` as in
    :func:`reroll_steps`)."""
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
    return W, cat, _layers(work.keep, kr.levels, n_rolls, nu)
