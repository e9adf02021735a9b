# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Many games' turns in few widget calls (:mod:`yahtzee_sim._core.batched`'s ``.pxd``: the
tiles): the decisions of the score-dependent table strategies (need lanes of a target or
utility table, :func:`need_lane_decisions`) and of max-EV table play (lanes over upper
totals, :func:`upper_lane_decisions`), and the layout of their outputs
(:func:`decision_buffers`, :func:`read_decisions`, :func:`lane_order`). The same
decisions bit for bit whatever the thread count; tiles in parallel (OpenMP)."""

import numpy as np

from cython.parallel cimport parallel, prange
from libc.stdint cimport int8_t, int16_t, int64_t, uint8_t
from libc.stdlib cimport free, malloc

from yahtzee_sim._core.box_step cimport bonus_moves_flag, box_values
from yahtzee_sim._core.bundle cimport RulesView, lanes_of, view_of
from yahtzee_sim._core.lanes cimport LANES_NEED, LaneTable
from yahtzee_sim._core.prefetch cimport prefetch_box_rows
from yahtzee_sim._core.rules cimport Rules, flag_after_roll
from yahtzee_sim._core.work cimport Work, free_work, new_work


def lane_order(states):
    """Games in order of their turn-start ``states``: games with the same filled boxes (and
    flag) adjacent, so that a tile's lanes share most open boxes and nearby table rows.

    Parameters
    ----------
    states : numpy.ndarray
        The games' turn-start state indices.

    Returns
    -------
    numpy.ndarray
        ``order`` (int64): the batched kernels take games in this order and write game
        ``order[p]``'s decisions in row ``p`` of their outputs (:func:`decision_buffers`).
    """
    states = np.asarray(states, dtype=np.int64)
    if np.all(states[1:] >= states[: len(states) - 1]):  # already in order
        return np.arange(len(states), dtype=np.int64)
    return np.argsort(states, kind="stable").astype(np.int64)


def distinct(keys):
    """One representative per distinct key, and each entry's key number — what
    ``np.unique`` returns, about five times faster (any representative of a key will do,
    so the sort need not be stable).

    Parameters
    ----------
    keys : numpy.ndarray
        Integer keys.

    Returns
    -------
    tuple of numpy.ndarray
        ``(rep, inverse)`` (int64): ``rep[u]`` an index of the ``u``-th smallest key,
        ``inverse[i]`` the number of entry ``i``'s key.
    """
    cdef const int64_t[::1] k = np.ascontiguousarray(keys, dtype=np.int64)
    cdef const int64_t[::1] order = np.argsort(k).astype(np.int64)
    cdef int64_t n = k.shape[0]
    rep_a = np.empty(n, dtype=np.int64)
    inverse_a = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] rep = rep_a
    cdef int64_t[::1] inverse = inverse_a
    cdef int64_t u = -1
    cdef int64_t j, i
    with nogil:
        for j in range(n):
            i = order[j]
            if j == 0 or k[i] != k[order[j - 1]]:
                u += 1
                rep[u] = i
            inverse[i] = u
    return rep_a[: u + 1], inverse_a


def tile_rows(order):
    """The output row of each game of a batched kernel run in ``order``.

    Parameters
    ----------
    order : numpy.ndarray
        The games in the order the kernel took them (:func:`lane_order`).

    Returns
    -------
    numpy.ndarray
        ``row`` (int64): game ``i``'s decisions are in row ``row[i]``.
    """
    row = np.empty(len(order), dtype=np.int64)
    row[order] = np.arange(len(order))
    return row


def decision_buffers(local, n, rules):
    """Outputs of the batched kernels for ``n`` rows, in tile layout: row ``p`` in tile
    ``p // TILE``, lane ``p % TILE`` — the widget's own layout, so a tile's decisions are
    copied as whole rows (:func:`read_decisions` reads them). Views of buffers kept on
    ``local`` (a strategy's thread-local turn state), grown geometrically and reused turn
    after turn: fresh arrays of this size cost more in page faults than the widget calls
    that fill them.

    Parameters
    ----------
    local : object
        Where the buffers are kept (attributes ``keep`` and ``cat``).
    n : int
        Rows.
    rules : RuleSet
        The rules played.

    Returns
    -------
    tuple of numpy.ndarray
        ``keep (tiles, layers, rolls, TILE)`` int16 and ``cat (tiles, rolls, TILE)`` int8.
    """
    layers, n_rolls = max(rules.rolls_per_turn - 1, 1), rules.tables.n_rolls
    tiles = (n + TILE - 1) // TILE
    keep = getattr(local, "keep", None)
    if keep is None or keep.shape[0] < tiles or keep.shape[1:] != (layers, n_rolls, TILE):
        size = max(tiles, 2 * (0 if keep is None else keep.shape[0]))
        local.keep = np.empty((size, layers, n_rolls, TILE), dtype=np.int16)
        local.cat = np.empty((size, n_rolls, TILE), dtype=np.int8)
    return local.keep[:tiles], local.cat[:tiles]


def read_decisions(keep, cat, rows, int rolls_left, roll):
    """The decisions of output rows ``rows`` at rolls ``roll`` (:func:`decision_buffers`
    layout).

    Parameters
    ----------
    keep, cat : numpy.ndarray
        The outputs of a batched kernel.
    rows : array_like
        Output rows (broadcast against ``roll``).
    rolls_left : int
        Rerolls left: 0 reads the boxes, else the keeps.
    roll : array_like
        Roll indices.

    Returns
    -------
    numpy.ndarray
        The decisions (int64, the broadcast shape): a box if ``rolls_left`` is 0, else a
        keep.
    """
    rows, roll = np.broadcast_arrays(np.asarray(rows, dtype=np.int64), roll)
    cdef const int64_t[::1] r = np.ascontiguousarray(rows.ravel())
    cdef const int64_t[::1] d = np.ascontiguousarray(roll.ravel(), dtype=np.int64)
    cdef const int16_t[:, :, :, ::1] k
    cdef const int8_t[:, :, ::1] c
    cdef int64_t n = r.shape[0]
    cdef int64_t i
    out_a = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] out = out_a
    if rolls_left == 0:
        c = cat
        check_read(r, d, c.shape[0], c.shape[1])
        for i in range(n):
            out[i] = c[r[i] // TILE, d[i], r[i] % TILE]
    else:
        k = keep
        check_read(r, d, k.shape[0], k.shape[2])
        if not 1 <= rolls_left <= k.shape[1]:
            raise ValueError(f"rolls_left must be 0 .. {k.shape[1]}, got {rolls_left}")
        for i in range(n):
            out[i] = k[r[i] // TILE, rolls_left - 1, d[i], r[i] % TILE]
    return out_a.reshape(rows.shape)


cdef check_read(const int64_t[::1] rows, const int64_t[::1] roll, int64_t tiles, int64_t n_rolls):
    """Refuse rows or rolls outside the outputs (``ValueError``)."""
    if rows.shape[0] and (np.min(rows) < 0 or np.max(rows) >= tiles * TILE):
        raise ValueError(f"rows must lie in 0 .. {tiles * TILE - 1}")
    if roll.shape[0] and (np.min(roll) < 0 or np.max(roll) >= n_rolls):
        raise ValueError(f"rolls must lie in 0 .. {n_rolls - 1}")


cdef object check_decisions(Rules r, object order, int64_t n, object keep, object cat):
    """Refuse a batched kernel's ``order`` (over ``n`` games) or tile-layout outputs that
    the unchecked loops would read or write outside of (``ValueError``)."""
    tiles = (len(order) + TILE - 1) // TILE
    layers = max(r.rolls - 1, 1)
    if len(order) and (np.min(order) < 0 or np.max(order) >= n):
        raise ValueError(f"order must hold game numbers 0 .. {n - 1}")
    if keep.shape[0] < tiles or tuple(keep.shape[1:]) != (layers, r.n_rolls, TILE):
        raise ValueError(f"keep must have shape (>= {tiles}, {layers}, {r.n_rolls}, {TILE})")
    if cat.shape[0] < tiles or tuple(cat.shape[1:]) != (r.n_rolls, TILE):
        raise ValueError(f"cat must have shape (>= {tiles}, {r.n_rolls}, {TILE})")


cdef check_states(Rules r, used, upper, flag):
    """Refuse turn-start states outside the rules (``ValueError``)."""
    if len(used) != len(upper) or len(used) != len(flag):
        raise ValueError("used, upper and flag must have one entry per game")
    if len(used) == 0:
        return
    if np.min(used) < 0 or np.max(used) >= (1 << r.n_boxes):
        raise ValueError(f"used must be used-masks of {r.n_boxes} boxes")
    if np.min(upper) < 0 or np.max(upper) > r.upper_cap:
        raise ValueError(f"upper totals must lie in 0 .. {r.upper_cap}")
    if np.min(flag) < 0 or np.max(flag) >= r.flag_size:
        raise ValueError(f"flags must lie in 0 .. {r.flag_size - 1}")


cdef const int64_t* start(const int64_t[::1] a) noexcept nogil:
    """The data of ``a``, NULL if it is empty."""
    return &a[0] if a.shape[0] else NULL


# --- need lanes: the score-dependent table strategies

cdef struct Pairs:
    const int64_t* order  # n pairs, in the order they run
    const int64_t* used
    const int64_t* upper
    const int64_t* flag
    const int64_t* lane  # points still needed
    const int64_t* first_ptr  # n + 1 offsets (NULL: every roll recorded)
    const int64_t* first_roll
    int64_t* first_keep
    int64_t n


cdef inline int64_t state_run_end(
    const Pairs* g, const int64_t* rows, int64_t nu, int64_t t0
) noexcept nogil:
    """The end of the run of pairs ``rows[t0:]`` of one state (as :func:`lane_order` sorts
    them): the first ``t > t0`` whose state differs, or ``nu``."""
    cdef int64_t i = rows[t0]
    cdef int64_t t = t0 + 1
    while t < nu and (
        g.used[rows[t]] == g.used[i] and g.upper[rows[t]] == g.upper[i]
        and g.flag[rows[t]] == g.flag[i]
    ):
        t += 1
    return t


cdef inline bint run_lanes(
    const int64_t* lane, const int64_t* rows, int64_t t0, int64_t t1, int64_t* lo, int64_t* hi
) noexcept nogil:
    """The lowest and highest lane of pairs ``rows[t0:t1]`` (one state) into ``lo``, ``hi``;
    whether they span ``SPAN`` lanes or more — their box values are then filled pair by
    pair rather than in one call over ``lo .. hi``."""
    cdef int64_t t
    lo[0] = lane[rows[t0]]
    hi[0] = lane[rows[t0]]
    for t in range(t0 + 1, t1):
        lo[0] = min(lo[0], lane[rows[t]])
        hi[0] = max(hi[0], lane[rows[t]])
    return hi[0] - lo[0] >= SPAN


cdef void fill_need_run(
    const Rules* kr, const LaneTable* lanes, int64_t used, int64_t upper, int64_t flag,
    const int64_t* lane, const int64_t* rows, int64_t t0, int64_t t1, int64_t nu, Work* work,
    double* buf, const uint8_t* bonus_slots,
) noexcept nogil:
    """Lanes ``t0 .. t1 - 1`` of a tile (pairs ``rows[t0:t1]`` of one state, ``lane`` = points
    still needed): the box values of need lanes ``lanes`` into ``work.val`` (slots x ``nu``),
    filled boxes ``NEG``; with a roll's Yahtzee bonus (points needed minus the bonus, the
    next flag under a bonus limit) into ``work.val_bonus`` (only ``bonus_slots``). One
    :func:`.box_step.box_values` call covers the run's lanes when they span at most ``SPAN``
    (``buf``: ``n_slots * SPAN`` doubles)."""
    cdef int64_t lo, hi, span, shift, fl, f2, t, col, bonus
    cdef bint per_pair = run_lanes(lane, rows, t0, t1, &lo, &hi)
    cdef bint earns = kr.yahtzee_bonus > 0 and flag >= 1
    cdef double* dst
    cdef const uint8_t* only
    span = 1 if per_pair else hi - lo + 1
    f2 = flag_after_roll(kr, flag, 1) if bonus_moves_flag(kr, used, flag) else flag
    for bonus in range(2 if earns else 1):
        dst = work.val
        shift, fl, only = 0, flag, NULL
        if bonus:
            dst = work.val_bonus
            shift, fl, only = kr.yahtzee_bonus, f2, bonus_slots
        if not per_pair:
            box_values(kr, lanes, used, upper, fl, lo - shift, span, buf, 0, only)
        for t in range(t0, t1):
            if per_pair:
                box_values(kr, lanes, used, upper, fl, lane[rows[t]] - shift, 1, buf, 0, only)
            col = 0 if per_pair else lane[rows[t]] - lo
            copy_box_values(kr, used, buf, span, col, dst, nu, t)  # (unfilled slots: unread)


cdef void fill_need_tile(
    const Rules* kr, const LaneTable* lanes, const Pairs* g, const int64_t* rows, int64_t nu,
    Work* work, double* buf, const uint8_t* bonus_slots,
) noexcept nogil:
    """Every lane of a tile (:func:`fill_need_run` per run of pairs of one state)."""
    cdef int64_t t0 = 0
    cdef int64_t i, t1
    while t0 < nu:
        i = rows[t0]
        t1 = state_run_end(g, rows, nu, t0)
        fill_need_run(
            kr, lanes, g.used[i], g.upper[i], g.flag[i], g.lane, rows, t0, t1, nu, work, buf,
            bonus_slots,
        )
        t0 = t1


cdef void prefetch_need_tile(
    const Rules* kr, const LaneTable* lanes, const Pairs* g, const int64_t* rows, int64_t nu
) noexcept nogil:
    """Start loading the table entries :func:`fill_need_tile` will read for a tile (per run
    of pairs of one state): issued one tile ahead, the loads overlap the widget run of the
    tile before."""
    cdef int64_t t0 = 0
    cdef int64_t i, t1, t, lo, hi, x
    while t0 < nu:
        i = rows[t0]
        t1 = state_run_end(g, rows, nu, t0)
        if not run_lanes(g.lane, rows, t0, t1, &lo, &hi):  # one box_values call over the run
            prefetch_box_rows(kr, lanes, g.used[i], g.upper[i], g.flag[i], lo, hi)
        else:
            for t in range(t0, t1):
                x = g.lane[rows[t]]
                prefetch_box_rows(kr, lanes, g.used[i], g.upper[i], g.flag[i], x, x)
        t0 = t1


cdef bint need_chunk(
    const Rules* kr, const LaneTable* lanes, const Pairs* g, Decisions* out,
    const uint8_t* bonus_slots, int64_t chunk, int64_t n_chunks, bint top,
) noexcept nogil:
    """The tiles ``chunk, chunk + n_chunks, ...`` of :func:`need_lane_decisions`; False if
    out of memory."""
    cdef Work work
    cdef int64_t tu[TILE]
    cdef int64_t tf[TILE]
    cdef int64_t n_tiles, unused, k, nu
    cdef double* W
    cdef double* buf = <double*>malloc((kr.n_slots * SPAN + 1) * sizeof(double))
    cdef double* best = <double*>malloc((kr.n_keeps + 1) * sizeof(double))
    cdef int64_t* arg = <int64_t*>malloc((kr.n_keeps + 1) * sizeof(int64_t))
    cdef bint ok = new_work(kr, TILE, 1, &work) and buf != NULL and best != NULL and arg != NULL
    tile_plan(g.n, &n_tiles, &unused)
    k = chunk
    while ok and k < n_tiles:
        nu = tile_width(g.n, k)
        if k == chunk:  # this chunk's first tile (the next ones: a tile ahead)
            prefetch_need_tile(kr, lanes, g, g.order + k * TILE, nu)
        fill_need_tile(kr, lanes, g, g.order + k * TILE, nu, &work, buf, bonus_slots)
        if k + n_chunks < n_tiles:
            prefetch_need_tile(
                kr, lanes, g, g.order + (k + n_chunks) * TILE, tile_width(g.n, k + n_chunks)
            )
        W = solve_tile(kr, g.used, g.flag, g.order + k * TILE, nu, k, &work, tu, tf, out, top)
        if not top:
            first_roll_keeps(kr, W, k, nu, g.first_ptr, g.first_roll, g.first_keep, best, arg)
        k += n_chunks
    free_work(&work)
    free(buf)
    free(best)
    free(arg)
    return ok


cdef check_pairs(Rules r, LaneTable t, order, used, upper, flag, lane, keep_out, cat_out):
    """Refuse lanes, pairs or outputs :func:`need_lane_decisions` does not take."""
    if t.kind != LANES_NEED or r.saving or t.n_offset < r.n_states or t.n_values == 0:
        raise ValueError("need lanes with a row for every state, in a game without saved rolls")
    check_states(r, used, upper, flag)
    if len(lane) != len(used):
        raise ValueError("lane must have one entry per pair")
    check_decisions(r, order, len(used), keep_out, cat_out)


cdef check_first_rolls(Rules r, int64_t n, first_ptr, first_roll, first_keep):
    """Refuse first-roll offsets or rolls outside their arrays (``ValueError``)."""
    if len(first_ptr) == 0:
        return
    if len(first_ptr) != n + 1:
        raise ValueError(f"first_ptr must be empty or hold {n + 1} offsets, got {len(first_ptr)}")
    if first_ptr[0] < 0 or np.any(np.diff(first_ptr) < 0):
        raise ValueError("first_ptr must be non-negative and non-decreasing")
    if first_ptr[n] > len(first_roll) or first_ptr[n] > len(first_keep):
        raise ValueError("first_roll and first_keep must hold first_ptr[-1] entries")
    used = np.asarray(first_roll)[first_ptr[0] : first_ptr[n]]
    if len(used) and (used.min() < 0 or used.max() >= r.n_rolls):
        raise ValueError(f"first rolls must lie in 0 .. {r.n_rolls - 1}")


def need_lane_decisions(
    kr, need, order, used, upper, flag, lane, first_ptr, first_roll, keep_out, cat_out,
    first_keep, int n_threads=1,
):
    """Decisions of (state, lane) pairs ``i = order[p]`` of a need-lane table at every roll
    of their turn (row ``p`` of :func:`decision_buffers`), the same as one-lane widget runs
    give; pairs run ``TILE`` at a time in ``order`` (:func:`lane_order`: by state, then
    ascending lane, so that runs of one state share box-value fills) as the lanes of
    :func:`.widget.widget_mixed`, tiles in parallel on ``n_threads`` threads (the decisions
    do not depend on it).

    With ``first_ptr`` (``n + 1`` offsets; empty: every roll recorded) the keeps at the first
    roll are taken only at the rolls that occurred: row ``p``'s first rolls
    ``first_roll[first_ptr[p] : first_ptr[p + 1]]`` get their best keeps in the same entries
    of ``first_keep``, and the outputs hold the decisions of the later rolls only.

    Parameters
    ----------
    kr : KernelRules or RulesView
        The rules (a game without saved rolls).
    need : Lanes
        Need lanes (a target or utility table) with a row for every state.
    order : numpy.ndarray
        int64, the pairs in the order they run.
    used, upper, flag, lane : numpy.ndarray
        int64 per pair: the turn-start state and the points still needed.
    first_ptr, first_roll : numpy.ndarray
        int64, the first rolls that occurred (both empty: every roll recorded).
    keep_out, cat_out : numpy.ndarray
        The outputs (:func:`decision_buffers`).
    first_keep : numpy.ndarray
        int64, the best keeps at ``first_roll``.
    n_threads : int
        Threads.

    Returns
    -------
    None
    """
    cdef RulesView v = view_of(kr)
    cdef Rules r = v.rules
    cdef LaneTable t = lanes_of(need)
    cdef const int64_t[::1] o = order, u = used, up = upper, f = flag, ln = lane
    cdef const int64_t[::1] fp = first_ptr, fr = first_roll
    cdef int64_t[::1] fk = first_keep
    cdef int16_t[:, :, :, ::1] keep = keep_out
    cdef int8_t[:, :, ::1] cat = cat_out
    cdef uint8_t[::1] bonus_slots = np.empty(r.n_slots + 1, dtype=np.uint8)
    cdef Pairs g
    cdef Decisions out
    cdef int64_t n_tiles, n_chunks, chunk
    cdef int failed = 0
    cdef bint top = fp.shape[0] == 0 or r.rolls < 2
    check_pairs(r, t, order, used, upper, flag, lane, keep_out, cat_out)
    check_first_rolls(r, len(order), fp, fr, fk)
    if o.shape[0] == 0:
        return
    g.order, g.used, g.upper, g.flag, g.lane = &o[0], &u[0], &up[0], &f[0], &ln[0]
    g.first_ptr, g.first_roll, g.n = start(fp), start(fr), o.shape[0]
    g.first_keep = &fk[0] if fk.shape[0] else NULL
    out.keep, out.cat, out.layers = &keep[0, 0, 0, 0], &cat[0, 0, 0], keep.shape[1]
    n_of_a_kind_slots(&r, &bonus_slots[0])
    tile_plan(g.n, &n_tiles, &n_chunks)
    with nogil, parallel(num_threads=max(n_threads, 1)):
        for chunk in prange(n_chunks, schedule="dynamic"):
            if not need_chunk(&r, &t, &g, &out, &bonus_slots[0], chunk, n_chunks, top):
                failed += 1
    if failed:
        raise MemoryError("need_lane_decisions: out of memory for its work buffers")
