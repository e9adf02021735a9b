"""Many games' turns in few widget calls: the games of a turn, whatever their states,
run as the lanes of one call with caller-given box values (:func:`.widget.widget_mixed`:
a box a lane has filled is valued ``NEG`` there; only the box step depends on the
state, the keep steps are the dice's). Used by the win values of visible matches
(:mod:`.win_values`), by the score-dependent table strategies (need lanes of a target
or utility table, :func:`need_lane_decisions`) and by the decision fills of max-EV
table strategies (:func:`upper_lane_decisions`).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from yahtzee_sim._kernels.box_step import NEG, bonus_moves_flag, box_values, prefetch_box_rows
from yahtzee_sim._kernels.keep_steps import best_keep_at
from yahtzee_sim._kernels.scoring import flag_after_roll, yahtzee_bonus_points
from yahtzee_sim._kernels.widget import widget_mixed
from yahtzee_sim._kernels.work_buffers import buffer_rows, new_work

TILE = 64  # games run as the lanes of one widget call
CHUNKS = 16  # parallel work units per call (each allocates one widget work buffer)


def lane_order(states: np.ndarray) -> np.ndarray:
    """Games in order of their turn-start ``states``: games with the same filled boxes
    (and flag) adjacent, so that a tile's lanes share most open boxes and nearby table
    rows. The batched kernels take games in this order and write game ``order[p]``'s
    decisions in row ``p`` of their outputs (:func:`decision_buffers`)."""
    states = np.asarray(states, dtype=np.int64)
    if np.all(states[1:] >= states[:-1]):  # already in order (distinct pairs, sorted)
        return np.arange(len(states), dtype=np.int64)
    return np.argsort(states, kind="stable").astype(np.int64)


def distinct(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(rep, inverse)``: one index ``rep[u]`` per distinct key, in ascending key order,
    and each entry's key number ``inverse[i]`` — what ``np.unique`` returns, about five
    times faster (any representative of a key will do, so the sort need not be stable)."""
    keys = np.ascontiguousarray(keys, dtype=np.int64)
    return _distinct(keys, np.argsort(keys).astype(np.int64))


@njit(cache=True, nogil=True)
def _distinct(keys, order):
    n = order.shape[0]
    rep = np.empty(n, dtype=np.int64)
    inverse = np.empty(n, dtype=np.int64)
    u = -1
    for j in range(n):
        i = order[j]
        if j == 0 or keys[i] != keys[order[j - 1]]:
            u += 1
            rep[u] = i
        inverse[i] = u
    return rep[: u + 1], inverse


def tile_rows(order: np.ndarray) -> np.ndarray:
    """``row[i]``: the output row of game ``i`` of a batched kernel run in ``order``."""
    row = np.empty(len(order), dtype=np.int64)
    row[order] = np.arange(len(order))
    return row


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def tile_lanes(used, flag, rows, tile_used, tile_flag):
    """The filled boxes and flag of the tile's games ``rows``, lane by lane."""
    for t in range(rows.shape[0]):
        tile_used[t] = used[rows[t]]
        tile_flag[t] = flag[rows[t]]


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def tile_plan(n):
    """``(n_tiles, n_chunks)`` of a batched kernel over ``n`` rows: ``TILE`` rows a tile,
    tile ``k`` run by parallel chunk ``k % n_chunks`` (at most :data:`CHUNKS` chunks, each
    with its own :func:`tile_scratch`)."""
    n_tiles = (n + TILE - 1) // TILE
    return n_tiles, min(n_tiles, CHUNKS)


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def tile_scratch(kr):
    """``(work, tile_used, tile_flag)``: one chunk's widget buffers for ``TILE`` lanes
    (decisions recorded) and room for its tile's filled boxes and flags (:func:`tile_lanes`)."""
    return new_work(kr, TILE, 1), np.empty(TILE, dtype=np.int64), np.empty(TILE, dtype=np.int64)


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def tile_rows_at(order, k):
    """The rows of tile ``k``: ``order[k * TILE : (k + 1) * TILE]`` (the last tile shorter)."""
    return order[k * TILE : min(order.shape[0], (k + 1) * TILE)]


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def tile_box_values(kr, work, nu):
    """``(val, val_bonus)``: the box values of a tile's ``nu`` lanes, views of ``work``
    (one row per slot) that the caller fills before :func:`solve_tile`."""
    n_slots = kr.slot_points.shape[0]
    return buffer_rows(work.val, n_slots, nu), buffer_rows(work.val_bonus, n_slots, nu)


def decision_buffers(local, n: int, rules) -> tuple[np.ndarray, np.ndarray]:
    """Outputs of the batched kernels for ``n`` rows, in tile layout: ``keep (tiles,
    layers, rolls, TILE)`` int16 and ``cat (tiles, rolls, TILE)`` int8, row ``p`` in
    tile ``p // TILE``, lane ``p % TILE`` — the widget's own layout, so a tile's
    decisions are copied as whole rows (:func:`read_decisions` reads them). Views of
    buffers kept on ``local`` (a strategy's thread-local turn state), grown geometrically
    and reused turn after turn: fresh arrays of this size cost more in page faults than
    the widget calls that fill them."""
    layers, n_rolls = max(rules.rolls_per_turn - 1, 1), rules.tables.n_rolls
    tiles = -(-n // TILE)
    keep = getattr(local, "keep", None)
    if keep is None or keep.shape[0] < tiles or keep.shape[1:] != (layers, n_rolls, TILE):
        size = max(tiles, 2 * (0 if keep is None else keep.shape[0]))
        local.keep = np.empty((size, layers, n_rolls, TILE), dtype=np.int16)
        local.cat = np.empty((size, n_rolls, TILE), dtype=np.int8)
    return local.keep[:tiles], local.cat[:tiles]


def read_decisions(keep, cat, rows, rolls_left: int, roll) -> np.ndarray:
    """The decisions (int64) of output rows ``rows`` at rolls ``roll`` with ``rolls_left``
    rerolls left: a box if 0, else a keep (:func:`decision_buffers` layout)."""
    rows, roll = np.broadcast_arrays(np.asarray(rows, dtype=np.int64), roll)
    flat_rows = np.ascontiguousarray(rows.ravel())
    flat_roll = np.ascontiguousarray(roll.ravel(), dtype=np.int64)
    if rolls_left == 0:
        out = _gather(cat[:, None], flat_rows, 0, flat_roll)
    else:
        out = _gather(keep, flat_rows, rolls_left - 1, flat_roll)
    return out.reshape(rows.shape)


@njit(cache=True, nogil=True)
def _gather(table, rows, layer, roll):
    out = np.empty(rows.shape[0], dtype=np.int64)
    for i in range(rows.shape[0]):
        out[i] = table[rows[i] // TILE, layer, roll[i], rows[i] % TILE]
    return out


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def solve_tile(kr, used, flag, rows, k, work, tile_used, tile_flag, keep_out, cat_out, top=True):
    """Tile ``k`` (games ``rows``, box values already in ``work.val``/``work.val_bonus``):
    one :func:`.widget.widget_mixed` call, its decisions copied into the outputs
    (``top`` False: not those of the first roll, see :func:`first_roll_keeps`); returns
    the widget's rows ``W``."""
    nu = rows.shape[0]
    tile_lanes(used, flag, rows, tile_used, tile_flag)
    # a run-time bool, never the literal default: one compiled widget_mixed for all callers
    W, cat, keep = widget_mixed(kr, tile_used, tile_flag, nu, work, 1, np.bool_(top))
    copy_decisions(kr, cat, keep, k, nu, cat_out, keep_out, kr.rolls if top else kr.rolls - 1)
    return W


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def copy_decisions(kr, cat, keep, k, nu, cat_out, keep_out, layers):
    """The recorded decisions of a widget run over tile ``k``'s ``nu`` lanes into the
    tile's block of the outputs (:func:`decision_buffers`): the boxes and the keeps with
    ``1 .. layers - 1`` rerolls left."""
    for r in range(kr.roll_keep_index.shape[0]):
        for t in range(nu):
            cat_out[k, r, t] = cat[r, t]
        for j in range(1, layers):
            for t in range(nu):
                keep_out[k, j - 1, r, t] = keep[j, r, t]


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def first_roll_keeps(kr, W, k, nu, first_ptr, first_roll, out, best, arg):
    """The best keeps at the first rolls of tile ``k``'s rows: row ``p``'s rolls are
    ``first_roll[first_ptr[p] : first_ptr[p + 1]]``, their keeps go to the same entries
    of ``out``; ``W`` holds the keep values with every reroll left (a widget run with
    ``top`` False). Taking the best keep at the rolls that occurred, rather than
    recording it at every roll, spares a recorded best-keep step per tile."""
    for t in range(nu):
        p = k * TILE + t
        for e in range(first_ptr[p], first_ptr[p + 1]):
            out[e] = best_keep_at(kr, W, t, first_roll[e], best, arg)


SPAN = 32  # widest run of lanes of one state whose box values one box_values call fills


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def copy_box_values(slot_ptr, used, src, col, dst, t):
    """``dst[:, t]`` = column ``col`` of box values ``src`` for the open boxes, ``NEG``
    for the filled ones (:func:`.box_step.mask_used_boxes`); box ``c``'s slots are
    ``slot_ptr[c] .. slot_ptr[c + 1] - 1`` (``kr.slot_ptr``: a call passing the whole
    bundle per lane costs more than the copy)."""
    for c in range(slot_ptr.shape[0] - 1):
        v = NEG if (used >> c) & 1 else 0.0
        if v == 0.0:
            for s in range(slot_ptr[c], slot_ptr[c + 1]):
                dst[s, t] = src[s, col]
        else:
            for s in range(slot_ptr[c], slot_ptr[c + 1]):
                dst[s, t] = v


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def n_of_a_kind_slots(kr):
    """``mask[s]``: whether slot ``s`` can score an n-of-a-kind roll (its points, or its
    joker points, in some box) — the only slots whose values a roll's Yahtzee bonus
    changes (``val_bonus`` in :func:`.box_step.box_step`)."""
    mask = np.zeros(kr.slot_points.shape[0], dtype=np.bool_)
    for r in range(kr.roll_keep_index.shape[0]):
        if kr.yahtzee_face[r] < 0:
            continue
        for c in range(kr.n_boxes):
            for p in (kr.score_table[r, c], kr.joker_table[r, c]):
                if 0 <= p < kr.points_slot.shape[1] and kr.points_slot[c, p] >= 0:
                    mask[kr.points_slot[c, p]] = True
    return mask


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def run_lanes(lane, rows, t0, t1):
    """``(lo, hi, per_pair)``: the lowest and highest lane of pairs ``rows[t0:t1]`` (one
    state), and whether they span ``SPAN`` lanes or more — their box values are then
    filled pair by pair rather than in one call over ``lo .. hi``."""
    lo, hi = lane[rows[t0]], lane[rows[t0]]
    for t in range(t0 + 1, t1):
        lo, hi = min(lo, lane[rows[t]]), max(hi, lane[rows[t]])
    return lo, hi, hi - lo >= SPAN


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def fill_need_run(
    kr, lanes, used, upper, flag, lane, rows, t0, t1, val, val_bonus, buf, bonus_slots
):
    """Lanes ``t0 .. t1 - 1`` of a tile (pairs ``rows[t0:t1]`` of one state, ``lane`` =
    points still needed): the box values of need lanes ``lanes`` into
    ``val[:, t]``, filled boxes ``NEG``; with a roll's Yahtzee bonus (points needed
    minus the bonus, the next flag under a bonus limit) into ``val_bonus[:, t]`` — what
    the need-lane widget reads (only ``bonus_slots``: :func:`n_of_a_kind_slots`). One
    :func:`.box_step.box_values` call covers the run's lanes when they span at most
    ``SPAN`` (``buf``: ``n_slots * SPAN`` floats)."""
    n_slots = kr.slot_points.shape[0]
    slot_ptr = kr.slot_ptr
    lo, hi, per_pair = run_lanes(lane, rows, t0, t1)
    span = 1 if per_pair else hi - lo + 1
    tmp = buffer_rows(buf, n_slots, span)
    earns = kr.yahtzee_bonus > 0 and flag >= 1
    f2 = flag_after_roll(kr, flag, 1) if bonus_moves_flag(kr, used, flag) else flag
    for bonus in range(2 if earns else 1):
        dst = val_bonus if bonus else val
        shift = kr.yahtzee_bonus if bonus else 0
        fl = f2 if bonus else flag
        only = bonus_slots if bonus else bonus_slots[:0]
        if not per_pair:
            box_values(kr, lanes, used, upper, fl, lo - shift, span, tmp, only)
        for t in range(t0, t1):
            if per_pair:
                box_values(kr, lanes, used, upper, fl, lane[rows[t]] - shift, 1, tmp, only)
            col = 0 if per_pair else lane[rows[t]] - lo
            copy_box_values(slot_ptr, used, tmp, col, dst, t)  # (unfilled slots: unread)


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def fill_need_tile(kr, lanes, used, upper, flag, lane, rows, val, val_bonus, buf, bonus_slots):
    """Every lane of a tile (:func:`fill_need_run` per run of pairs of one state)."""
    t0 = 0
    while t0 < rows.shape[0]:
        i, t1 = rows[t0], state_run_end(used, upper, flag, rows, t0)
        fill_need_run(
            kr,
            lanes,
            used[i],
            upper[i],
            flag[i],
            lane,
            rows,
            t0,
            t1,
            val,
            val_bonus,
            buf,
            bonus_slots,
        )
        t0 = t1


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def state_run_end(used, upper, flag, rows, t0):
    """The end of the run of pairs ``rows[t0:]`` of one state (as :func:`lane_order`
    sorts them): the first ``t > t0`` whose state differs, or ``len(rows)``."""
    i, t = rows[t0], t0 + 1
    while t < rows.shape[0] and (
        used[rows[t]] == used[i] and upper[rows[t]] == upper[i] and flag[rows[t]] == flag[i]
    ):
        t += 1
    return t


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def prefetch_need_tile(kr, lanes, used, upper, flag, lane, rows):
    """Start loading the table entries :func:`fill_need_tile` will read for a tile
    (:func:`.box_step.prefetch_box_rows` per run of pairs of one state): issued one tile
    ahead, the loads overlap the widget run of the tile before."""
    t0 = 0
    while t0 < rows.shape[0]:
        i, t1 = rows[t0], state_run_end(used, upper, flag, rows, t0)
        lo, hi, per_pair = run_lanes(lane, rows, t0, t1)
        if not per_pair:  # one box_values call over the run's lanes
            prefetch_box_rows(kr, lanes, used[i], upper[i], flag[i], lo, hi)
        else:
            for t in range(t0, t1):
                prefetch_box_rows(
                    kr, lanes, used[i], upper[i], flag[i], lane[rows[t]], lane[rows[t]]
                )
        t0 = t1


@njit(cache=True, parallel=True, nogil=True)
def need_lane_decisions(
    kr, need, order, used, upper, flag, lane, first_ptr, first_roll, keep_out, cat_out, first_keep
):
    """Decisions of (state, lane) pairs ``i = order[p]`` of a need-lane table ``need`` at
    every roll of their turn (row ``p`` of :func:`decision_buffers`), the same as
    one-lane widget runs (:func:`.decisions.fill_states`) give; pairs run ``TILE`` at a
    time in ``order`` (:func:`lane_order`: by state, then ascending lane, so that runs of
    one state share box-value fills) as the lanes of :func:`.widget.widget_mixed`.

    With ``first_ptr`` (``n + 1`` offsets; empty: every roll recorded) the keeps at the
    first roll are taken only at the rolls that occurred: row ``p``'s first rolls
    ``first_roll[first_ptr[p] : first_ptr[p + 1]]`` get their best keeps in the same
    entries of ``first_keep`` (:func:`first_roll_keeps`), and the outputs hold the
    decisions of the later rolls only."""
    n_tiles, n_chunks = tile_plan(order.shape[0])
    n_keeps = kr.keep_add.shape[0]
    bonus_slots = n_of_a_kind_slots(kr)
    top = first_ptr.shape[0] == 0 or kr.rolls < 2
    for chunk in prange(n_chunks):
        work, tu, tf = tile_scratch(kr)
        buf = np.empty(kr.slot_points.shape[0] * SPAN)
        best = np.empty(n_keeps)
        arg = np.empty(n_keeps, dtype=np.int64)
        for k in range(chunk, n_tiles, n_chunks):
            rows = tile_rows_at(order, k)
            nu = rows.shape[0]
            if k == chunk:  # this chunk's first tile (the next ones: a tile ahead)
                prefetch_need_tile(kr, need, used, upper, flag, lane, rows)
            val, vb = tile_box_values(kr, work, nu)
            fill_need_tile(kr, need, used, upper, flag, lane, rows, val, vb, buf, bonus_slots)
            if k + n_chunks < n_tiles:
                rows_ahead = tile_rows_at(order, k + n_chunks)
                prefetch_need_tile(kr, need, used, upper, flag, lane, rows_ahead)
            W = solve_tile(kr, used, flag, rows, k, work, tu, tf, keep_out, cat_out, top)
            if not top:
                first_roll_keeps(kr, W, k, nu, first_ptr, first_roll, first_keep, best, arg)


@njit(cache=True, nogil=True, inline="always")
def upper_run_column(kr, lanes, used, flag, upper, lo, per_state, tmp, only):
    """The column of ``tmp`` holding the box values of state ``(used, upper, flag)`` in a
    run of :func:`fill_upper_run`: its own fill into column 0 (``per_state``), else column
    ``upper - lo`` of the run's one fill."""
    if per_state:
        box_values(kr, lanes, used, upper, flag, upper, 1, tmp, only)
        return 0
    return upper - lo


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def fill_upper_run(kr, lanes, used, flag, upper, t0, t1, val, val_bonus, buf, bonus_slots):
    """Lanes ``t0 .. t1 - 1`` of a tile, states ``(used, upper[t], flag)`` of one used-mask
    and flag (``upper`` ascending): their max-EV box values (lanes over upper totals)
    into ``val[:, t]``, filled boxes ``NEG``, and into ``val_bonus[:, t]`` those with a
    roll's Yahtzee bonus paid (only ``bonus_slots``: :func:`n_of_a_kind_slots`) — the
    values :func:`.box_step.box_step` compares, ``x * 1.0 + yb`` bit for bit. One
    :func:`.box_step.box_values` call covers the run when its upper totals span fewer than
    ``SPAN`` (``buf``: ``n_slots * SPAN`` floats)."""
    n_slots = kr.slot_points.shape[0]
    lo, hi = upper[t0], upper[t1 - 1]
    per_state = hi - lo >= SPAN
    span = 1 if per_state else hi - lo + 1
    tmp = buffer_rows(buf, n_slots, span)
    every = bonus_slots[:0]  # no mask: every slot
    if not per_state:
        box_values(kr, lanes, used, lo, flag, lo, span, tmp, every)
    for t in range(t0, t1):
        col = upper_run_column(kr, lanes, used, flag, upper[t], lo, per_state, tmp, every)
        copy_box_values(kr.slot_ptr, used, tmp, col, val, t)
    yb = 0
    for r in range(kr.roll_keep_index.shape[0]):  # the bonus of an n-of-a-kind roll here
        if kr.yahtzee_face[r] >= 0:
            yb = yahtzee_bonus_points(kr, r, used, flag)
            break
    if yb == 0:
        return
    add = float(yb)
    if bonus_moves_flag(kr, used, flag):  # the boxes valued at the next flag
        f2 = flag_after_roll(kr, flag, 1)
        if not per_state:
            box_values(kr, lanes, used, lo, f2, lo, span, tmp, bonus_slots)
        for t in range(t0, t1):
            col = upper_run_column(kr, lanes, used, f2, upper[t], lo, per_state, tmp, bonus_slots)
            for s in range(n_slots):
                if bonus_slots[s]:
                    val_bonus[s, t] = tmp[s, col] * 1.0 + add
        return
    for t in range(t0, t1):
        for s in range(n_slots):
            if bonus_slots[s]:
                val_bonus[s, t] = val[s, t] * 1.0 + add


@njit(cache=True, parallel=True, nogil=True)
def upper_lane_decisions(kr, lanes, used, upper, flag, out_rows, keep_rows, cat_rows):
    """The decisions of states ``(used[i], upper[i], flag[i])`` (sorted by state index:
    a used-mask and flag's states adjacent, ascending upper totals) at every roll, read
    off max-EV lanes ``lanes`` (:func:`.lanes.upper_total_lanes`; games without saved
    rolls), into ``keep_rows[out_rows[i], j - 1, r]`` (int16: the best keep with ``j``
    rerolls left) and ``cat_rows[out_rows[i], 0, r]`` (int8: the best box) — the same
    as :func:`.decisions.fill_lanes` records, bit for bit: :func:`upper_lane_chunks` in
    parallel over its chunks."""
    n_chunks = tile_plan(used.shape[0])[1]
    for chunk in prange(n_chunks):
        upper_lane_chunks(
            kr, lanes, used, upper, flag, out_rows, keep_rows, cat_rows, np.int64(chunk), n_chunks
        )


@njit(cache=True, nogil=True)
def upper_lane_chunks(kr, lanes, used, upper, flag, out_rows, keep_rows, cat_rows, first, step):
    """Chunks ``first, first + step, ...`` of :func:`upper_lane_decisions` (same arguments),
    serially: threads that share the chunks out among them write what it writes.

    The states run ``TILE`` at a time, whatever their used-masks, as the lanes of one
    :func:`.widget.widget_mixed` call (only the box values depend on the state; the
    keep steps are the dice's), tile ``k`` in chunk ``k % n_chunks``: one widget run per
    used-mask costs its fixed work (every keep, every roll) even when few of its upper
    totals are asked for, as is the rule for the states games reach turn by turn. A
    serial kernel compiles in about a quarter of the time of the parallel one."""
    n = used.shape[0]
    n_tiles, n_chunks = tile_plan(n)
    n_rolls = kr.roll_keep_index.shape[0]
    bonus_slots = n_of_a_kind_slots(kr)
    for chunk in range(first, n_chunks, step):
        work, tu, tf = tile_scratch(kr)  # the tile's used-masks and flags
        buf = np.empty(kr.slot_points.shape[0] * SPAN)
        tup = np.empty(TILE, dtype=np.int64)  # and upper totals
        for k in range(chunk, n_tiles, n_chunks):
            a = k * TILE
            nu = min(n, a + TILE) - a
            for t in range(nu):
                tu[t], tf[t], tup[t] = used[a + t], flag[a + t], upper[a + t]
            val, vb = tile_box_values(kr, work, nu)
            t0 = 0
            while t0 < nu:  # runs of one used-mask and flag
                t1 = t0 + 1
                while t1 < nu and tu[t1] == tu[t0] and tf[t1] == tf[t0]:
                    t1 += 1
                fill_upper_run(kr, lanes, tu[t0], tf[t0], tup, t0, t1, val, vb, buf, bonus_slots)
                t0 = t1
            # a run-time bool, never the literal default: one compiled widget_mixed
            _, cat, keep = widget_mixed(kr, tu, tf, nu, work, 1, np.bool_(True))
            for t in range(nu):
                row = out_rows[a + t]
                for r in range(n_rolls):
                    cat_rows[row, 0, r] = cat[r, t]
                    for j in range(1, kr.rolls):
                        keep_rows[row, j - 1, r] = keep[j, r, t]


@njit(cache=True, nogil=True)
def widget_mixed_warmup(kr):
    """One lane of :func:`.widget.widget_mixed` with the argument types
    :func:`upper_lane_chunks` calls it with (box values of zeros): a process that calls
    this compiles the mixed widget into the kernel cache, from which a process compiling
    the decision fill at the same time loads it."""
    work, tu, tf = tile_scratch(kr)
    tu[:] = 0
    tf[:] = 0
    work.val[:] = 0.0
    work.val_bonus[:] = 0.0
    widget_mixed(kr, tu, tf, np.int64(1), work, 1, np.bool_(True))  # one lane
