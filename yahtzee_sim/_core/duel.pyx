# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Kernels of the exact two-player solver (:mod:`yahtzee_sim.multiplayer.duel`) in the
compiled core.

A *joint position* is a turn start of the visible two-player game: the mover's state,
the waiter's state and the score difference. Its value row holds P(the waiter wins)
(ties split) in *lanes* ``L = D + (mover's points - waiter's points)``, i.e. the
waiter's points still needed shifted by ``D``; lanes before the row are 1, lanes past
it 0 (:func:`yahtzee_sim._kernels.lanes.points_needed_lanes`).

A turn of the mover X is one widget run in need lanes (lane = X's points needed + D):
writing ``q`` points leads to the joint position (mover Y, waiter X') whose row, read
``q`` lanes lower, is exactly P(X wins) from there. The widget takes the best keeps
and boxes; the row of (mover X, waiter Y) is then ``1 - `` its result, lanes reversed.
So the one widget solves the two-player game; this module only lays out the lanes.
"""

import numpy as np

from cython.parallel cimport parallel, prange
from libc.stdint cimport int64_t
from libc.stdlib cimport calloc, free

from yahtzee_sim._core.box_step cimport bonus_moves_flag
from yahtzee_sim._core.bundle cimport RulesView, view_of
from yahtzee_sim._core.lanes cimport LANES_NEED, LaneTable
from yahtzee_sim._core.rules cimport Rules, flag_after_roll, scored_state
from yahtzee_sim._core.widget cimport widget
from yahtzee_sim._core.work cimport Work, free_work, new_work

#: Lanes per widget call (the work array of a tile stays in cache).
TILE = 128
cdef int64_t C_TILE = 128


cdef inline void decode(const Rules* kr, int64_t s, int64_t* used, int64_t* upper, int64_t* flag) noexcept nogil:
    """``(used, upper, flag)`` of state index ``s``
    (:func:`yahtzee_sim.game.state.decode_state`)."""
    cdef int64_t cap1 = kr.upper_cap + 1
    cdef int64_t rest = s // cap1
    used[0] = rest // kr.flag_size
    upper[0] = s % cap1
    flag[0] = rest % kr.flag_size


cdef int64_t scored_successors(const Rules* kr, int64_t s, int64_t* out) noexcept nogil:
    """The states the widget may score into from state ``s`` (each open box at each of its
    slots' points, after a bonus Yahtzee too where that moves the flag), into ``out`` unless
    it is NULL; returns how many."""
    cdef int64_t used, upper, flag, f, c, k, n = 0, n_flags = 1
    cdef int64_t flags[2]
    cdef int64_t bonus
    decode(kr, s, &used, &upper, &flag)
    flags[0] = flag
    if bonus_moves_flag(kr, used, flag):
        flags[1] = flag_after_roll(kr, flag, 1)
        n_flags = 2
    for f in range(n_flags):
        for c in range(kr.n_boxes):
            if (used >> c) & 1:
                continue
            for k in range(kr.slot_ptr[c], kr.slot_ptr[c + 1]):
                if out != NULL:
                    out[n] = scored_state(kr, used, upper, flags[f], c, kr.slot_points[k], &bonus)
                n += 1
    return n


def successors(kr, const int64_t[::1] states):
    """Every state the widget may score into from ``states``, with repeats.

    Parameters
    ----------
    kr : KernelRules or RulesView
    states : ndarray of int64
        Turn-start states (product layout).

    Returns
    -------
    ndarray of int64
        Each open box at each of its slots' points, after a bonus Yahtzee too where that
        moves the flag, state after state.
    """
    cdef RulesView view = view_of(kr)
    cdef Rules r = view.rules
    cdef int64_t n = states.shape[0]
    cdef int64_t i, total = 0
    if n and (np.asarray(states).min() < 0 or np.asarray(states).max() >= r.n_states):
        raise ValueError(f"states must be state indices below {r.n_states}")
    for i in range(n):
        total += scored_successors(&r, states[i], NULL)
    out = np.empty(total, dtype=np.int64)
    cdef int64_t[::1] o = out
    total = 0
    with nogil:
        for i in range(n):
            total += scored_successors(&r, states[i], &o[total] if o.shape[0] else NULL)
    return out


cdef inline void fill_next_rows(
    const int64_t* next_off, int64_t n_y, int64_t iy, int64_t d, int64_t mr_y,
    const int64_t* x2_states, const int64_t* x2_mr, int64_t n_x2, int64_t* off,
    int64_t* first, int64_t* length,
) noexcept nogil:
    """Point the single-state row arrays ``off, first, length`` (indexed by the mover's
    next state X') at the rows of the joint positions (mover Y = waiter ``iy``, waiter
    X') of the next stage."""
    cdef int64_t j, s
    for j in range(n_x2):
        s = x2_states[j]
        off[s] = next_off[j * n_y + iy]
        first[s] = d - mr_y
        length[s] = mr_y + x2_mr[j] + 1


cdef inline LaneTable need_lanes(
    const double* values, int64_t n_values, const int64_t* off, const int64_t* length,
    const int64_t* first, int64_t n_states,
) noexcept nogil:
    """Need lanes over the next stage's rows: 1 before a row, 0 past it."""
    cdef LaneTable t
    t.kind = LANES_NEED
    t.values = values
    t.n_values = n_values
    t.offset = off
    t.length = length
    t.first = first
    t.n_offset = n_states
    t.n_first = n_states
    t.scale = NULL
    t.n_scale = 0
    t.top = 1.0
    t.bottom = 0.0
    return t


# The arrays of a stage (solve_stage's arguments, as pointers).
cdef struct Stage:
    const double* values
    int64_t n_values
    int64_t d
    const int64_t* m_states
    const int64_t* m_mr
    const int64_t* w_mr
    const int64_t* out_off
    const int64_t* next_off
    const int64_t* x2_states
    const int64_t* x2_mr
    int64_t n_m
    int64_t n_y
    int64_t n_x2
    double* out
    int64_t base


cdef void solve_positions(
    const Rules* kr, const Stage* st, const LaneTable* lanes, Work* work, int64_t iy
) noexcept nogil:
    """The rows of the positions (mover ``i``, waiter ``iy``) for every mover ``i``, the
    next rows already pointed at by ``lanes``."""
    cdef int64_t mr_y = st.w_mr[iy]
    cdef int64_t i, used, upper, flag, nu, lo, o, t0, k, t
    cdef double* W
    for i in range(st.n_m):
        decode(kr, st.m_states[i], &used, &upper, &flag)
        nu = st.m_mr[i] + mr_y + 1
        lo = st.d - mr_y
        o = st.out_off[iy * st.n_m + i] - st.base
        t0 = 0
        while t0 < nu:
            k = min(C_TILE, nu - t0)
            W = widget(kr, lanes, used, upper, flag, lo + t0, k, work, 0)
            for t in range(k):  # lane lo + t0 + t of X is entry nu - 1 - t0 - t
                st.out[o + nu - 1 - t0 - t] = 1.0 - W[t]
            t0 += C_TILE


cdef bint stage_chunk(
    const Rules* kr, const Stage* st, int64_t iy_lo, int64_t iy_hi, int64_t chunk,
    int64_t n_chunks,
) noexcept nogil:
    """The waiters ``iy_lo + chunk, iy_lo + chunk + n_chunks, ...``; False if out of
    memory."""
    cdef Work work
    cdef LaneTable lanes
    cdef int64_t iy
    cdef bint ok
    # rows by state, read only at the states the mover can score into (every one set)
    cdef int64_t* off = <int64_t*>calloc(kr.n_states, sizeof(int64_t))
    cdef int64_t* first = <int64_t*>calloc(kr.n_states, sizeof(int64_t))
    cdef int64_t* length = <int64_t*>calloc(kr.n_states, sizeof(int64_t))
    ok = new_work(kr, C_TILE, 0, &work) and off != NULL and first != NULL and length != NULL
    if ok:
        lanes = need_lanes(st.values, st.n_values, off, length, first, kr.n_states)
        iy = iy_lo + chunk
        while iy < iy_hi:
            fill_next_rows(st.next_off, st.n_y, iy, st.d, st.w_mr[iy], st.x2_states,
                           st.x2_mr, st.n_x2, off, first, length)
            solve_positions(kr, st, &lanes, &work, iy)
            iy += n_chunks
    free_work(&work)
    free(off)
    free(first)
    free(length)
    return ok


cdef check_next_rows(int64_t n_values, next_off, x2_states, x2_mr, w_mr, int64_t n_states,
                     int64_t iy_lo, int64_t iy_hi):
    """Refuse next-stage rows outside ``values`` or states outside the rules."""
    n_x2, n_y = len(x2_states), len(w_mr)
    if len(x2_mr) != n_x2 or len(next_off) < n_x2 * n_y:
        raise ValueError("x2_states, x2_mr and next_off must describe the next stage")
    if n_x2 and (x2_states.min() < 0 or x2_states.max() >= n_states):
        raise ValueError(f"x2_states must be state indices below {n_states}")
    if n_x2 and iy_hi > iy_lo:
        rows = np.asarray(next_off)[: n_x2 * n_y].reshape(n_x2, n_y)[:, iy_lo:iy_hi]
        if rows.min() < 0 or (rows + w_mr[None, iy_lo:iy_hi] + x2_mr[:, None] + 1).max() > n_values:
            raise ValueError("the next stage's rows must lie inside values")


cdef check_out_rows(out_off, m_mr, w_mr, int64_t iy_lo, int64_t iy_hi, int64_t base, int64_t n_out):
    """Refuse waiters or rows outside the stage or ``out``."""
    n_m, n_y = len(m_mr), len(w_mr)
    if not 0 <= iy_lo <= iy_hi <= n_y:
        raise ValueError(f"iy_lo .. iy_hi must lie in 0..{n_y}")
    if len(out_off) < n_y * n_m:
        raise ValueError("out_off must hold a row offset for every position of the stage")
    if iy_hi > iy_lo and n_m:
        rows = np.asarray(out_off)[iy_lo * n_m : iy_hi * n_m].reshape(-1, n_m) - base
        if rows.min() < 0 or (rows + m_mr[None, :] + w_mr[iy_lo:iy_hi, None] + 1).max() > n_out:
            raise ValueError("the stage's rows must lie inside out")


def solve_stage(
    kr, const double[::1] values, int64_t d, const int64_t[::1] m_states,
    const int64_t[::1] m_mr, const int64_t[::1] w_mr, const int64_t[::1] out_off,
    const int64_t[::1] next_off, const int64_t[::1] x2_states, const int64_t[::1] x2_mr,
    int64_t iy_lo, int64_t iy_hi, double[::1] out, int64_t base, int threads=1,
):
    """Rows of the joint positions (mover ``m_states[i]``, waiter number ``iy``) for
    ``iy_lo <= iy < iy_hi``, from the next stage's rows in ``values``, in parallel over
    waiters.

    Parameters
    ----------
    kr : KernelRules or RulesView
    values : ndarray of float64
        Every row of the table (the next stage's are read); ``d``: the lane shift.
    d, iy_lo, iy_hi, base, threads : int
        ``iy_lo .. iy_hi - 1``: the waiters solved; ``threads``: the threads to run on (the
        rows do not depend on it).
    m_states, m_mr, w_mr : ndarray of int64
        The movers' states, the most points each mover and each waiter can still score.
    out_off : ndarray of int64
        ``out_off[iy * n_m + i]``: the offset of position (mover ``i``, waiter ``iy``)'s row.
    next_off, x2_states, x2_mr : ndarray of int64
        ``next_off[j * n_y + iy]``: the offset of the next stage's position (mover: waiter
        ``iy`` of this stage; waiter: the mover's next state ``x2_states[j]``, which can
        still score ``x2_mr[j]``).
    out : ndarray of float64
        Receives each row at its offset ``- base`` (``values`` itself and 0 in one
        process; a worker's block).

    Returns
    -------
    None
    """
    cdef RulesView view = view_of(kr)
    cdef Rules r = view.rules
    cdef Stage st
    cdef int64_t n_chunks = min(iy_hi - iy_lo, max(threads, 1))
    cdef int64_t chunk
    cdef int failed = 0
    if r.saving:
        raise ValueError("the two-player solver takes games without saved rolls")
    if m_mr.shape[0] != m_states.shape[0]:
        raise ValueError("m_states and m_mr must have one entry per mover")
    a_m, a_mr, a_w = np.asarray(m_states), np.asarray(m_mr), np.asarray(w_mr)
    check_out_rows(np.asarray(out_off), a_mr, a_w, iy_lo, iy_hi, base, out.shape[0])
    if n_chunks <= 0 or m_states.shape[0] == 0:
        return
    if a_m.min() < 0 or a_m.max() >= r.n_states:
        raise ValueError(f"m_states must be state indices below {r.n_states}")
    check_next_rows(values.shape[0], np.asarray(next_off), np.asarray(x2_states),
                    np.asarray(x2_mr), a_w, r.n_states, iy_lo, iy_hi)
    st = stage_of(values, d, m_states, m_mr, w_mr, out_off, next_off, x2_states, x2_mr, out,
                  base)
    with nogil, parallel(num_threads=max(threads, 1)):
        for chunk in prange(n_chunks, schedule="dynamic"):
            if not stage_chunk(&r, &st, iy_lo, iy_hi, chunk, n_chunks):
                failed += 1
    if failed:
        raise MemoryError("solve_stage: out of memory for its work buffers")


cdef Stage stage_of(
    const double[::1] values, int64_t d, const int64_t[::1] m_states, const int64_t[::1] m_mr,
    const int64_t[::1] w_mr, const int64_t[::1] out_off, const int64_t[::1] next_off,
    const int64_t[::1] x2_states, const int64_t[::1] x2_mr, double[::1] out, int64_t base,
):
    """The pointers of a stage's arrays (every one non-empty but ``x2_*``)."""
    cdef Stage st
    st.values = &values[0] if values.shape[0] else NULL
    st.n_values = values.shape[0]
    st.d = d
    st.m_states = &m_states[0]
    st.m_mr = &m_mr[0]
    st.w_mr = &w_mr[0]
    st.out_off = &out_off[0]
    st.next_off = &next_off[0] if next_off.shape[0] else NULL
    st.x2_states = &x2_states[0] if x2_states.shape[0] else NULL
    st.x2_mr = &x2_mr[0] if x2_mr.shape[0] else NULL
    st.n_m = m_states.shape[0]
    st.n_y = w_mr.shape[0]
    st.n_x2 = x2_states.shape[0]
    st.out = &out[0]
    st.base = base
    return st


def mover_turn(
    kr, const double[::1] values, int64_t d, int64_t state, int64_t mr_x, int64_t mr_y,
    const int64_t[::1] next_off, int64_t n_y, int64_t iy, const int64_t[::1] x2_states,
    const int64_t[::1] x2_mr, int64_t lane,
):
    """One widget run of the mover at ``state`` (waiter number ``iy`` of ``n_y``) in the
    single lane ``lane`` (= the mover's points needed + ``d``), recording every value.

    Parameters
    ----------
    kr : KernelRules or RulesView
    values : ndarray of float64
    d, state, mr_x, mr_y, lane : int
        The mover's state, the most points it (not read) and the waiter can still score.
    next_off, n_y, iy, x2_states, x2_mr
        The next stage's rows, as :func:`solve_stage` takes them.

    Returns
    -------
    W : ndarray of float64, shape (keeps, 1)
        ``W[0, 0]``: the state's value.
    cat : ndarray of int64, shape (rolls, 1)
        The best box of each final roll.
    keep : ndarray of int64, shape (levels, rolls, 1)
        The best keep at each roll with ``j`` rerolls left.
    keep_vals, roll_vals : ndarray of float64, shapes (levels, keeps, 1), (levels, rolls, 1)
        The values of every keep and roll with ``j`` rerolls left.
    """
    cdef RulesView view = view_of(kr)
    cdef Rules r = view.rules
    if r.saving:
        raise ValueError("the two-player solver takes games without saved rolls")
    if not 0 <= state < r.n_states or not 0 <= iy < n_y:
        raise ValueError(f"state must lie below {r.n_states} and iy below n_y")
    w_mr = np.full(n_y, mr_y, dtype=np.int64)
    check_next_rows(values.shape[0], np.asarray(next_off), np.asarray(x2_states),
                    np.asarray(x2_mr), w_mr, r.n_states, iy, iy + 1)
    W = np.empty((r.n_keeps, 1))
    cat = np.empty((r.n_rolls, 1), dtype=np.int64)
    keep = np.empty((r.levels, r.n_rolls, 1), dtype=np.int64)
    keep_vals = np.empty((r.levels, r.n_keeps, 1))
    roll_vals = np.empty((r.levels, r.n_rolls, 1))
    cdef double[:, ::1] w_out = W
    cdef int64_t[:, ::1] c_out = cat
    cdef int64_t[:, :, ::1] k_out = keep
    cdef double[:, :, ::1] kv_out = keep_vals
    cdef double[:, :, ::1] rv_out = roll_vals
    cdef bint ok
    with nogil:
        ok = one_turn(&r, &values[0] if values.shape[0] else NULL, values.shape[0], d, state,
                      mr_y, &next_off[0] if next_off.shape[0] else NULL, n_y, iy,
                      &x2_states[0] if x2_states.shape[0] else NULL,
                      &x2_mr[0] if x2_mr.shape[0] else NULL, x2_states.shape[0], lane,
                      &w_out[0, 0], &c_out[0, 0], &k_out[0, 0, 0], &kv_out[0, 0, 0],
                      &rv_out[0, 0, 0])
    if not ok:
        raise MemoryError("mover_turn: out of memory for its work buffers")
    return W, cat, keep, keep_vals, roll_vals


cdef bint one_turn(
    const Rules* kr, const double* values, int64_t n_values, int64_t d, int64_t state,
    int64_t mr_y, const int64_t* next_off, int64_t n_y, int64_t iy, const int64_t* x2_states,
    const int64_t* x2_mr, int64_t n_x2, int64_t lane, double* W, int64_t* cat, int64_t* keep,
    double* keep_vals, double* roll_vals,
) noexcept nogil:
    """:func:`mover_turn`'s run, its records copied out; False if out of memory."""
    cdef Work work
    cdef LaneTable lanes
    cdef int64_t used, upper, flag, i
    cdef int64_t* off = <int64_t*>calloc(kr.n_states, sizeof(int64_t))
    cdef int64_t* first = <int64_t*>calloc(kr.n_states, sizeof(int64_t))
    cdef int64_t* length = <int64_t*>calloc(kr.n_states, sizeof(int64_t))
    cdef bint ok = new_work(kr, 1, 2, &work) and off != NULL and first != NULL and length != NULL
    if ok:
        fill_next_rows(next_off, n_y, iy, d, mr_y, x2_states, x2_mr, n_x2, off, first, length)
        lanes = need_lanes(values, n_values, off, length, first, kr.n_states)
        decode(kr, state, &used, &upper, &flag)
        widget(kr, &lanes, used, upper, flag, lane, 1, &work, 2)
        for i in range(kr.n_keeps):
            W[i] = work.W[i]
        for i in range(kr.n_rolls):
            cat[i] = work.cat[i]
        for i in range(kr.levels * kr.n_rolls):
            keep[i] = work.keep[i]
            roll_vals[i] = work.roll_vals[i]
        for i in range(kr.levels * kr.n_keeps):
            keep_vals[i] = work.keep_vals[i]
    free_work(&work)
    free(off)
    free(first)
    free(length)
    return ok


def policy_stage(
    const double[::1] values, int64_t d, const int64_t[::1] m_mr, const int64_t[::1] w_mr,
    const int64_t[::1] out_off, const int64_t[::1] ptr, const int64_t[::1] nxt_j,
    const int64_t[::1] pts, const double[::1] prob, const int64_t[::1] next_off,
    const int64_t[::1] x2_mr, int64_t iy_lo, int64_t iy_hi, double[::1] out, int64_t base,
    int n_threads=1,
):
    """:func:`solve_stage` for a mover playing a fixed policy that depends on its own
    position only, in parallel over waiters.

    The waiter's P(win) in its lane ``L`` is the mean over the turn's outcomes of 1 - the
    next position's row at lane ``2 d - L - q``.

    Parameters
    ----------
    values, d, m_mr, w_mr, out_off
        As :func:`solve_stage` takes them.
    ptr, nxt_j, pts, prob : ndarray
        The turn from mover number ``i`` ends at its next state number ``nxt_j[e]`` with
        ``pts[e]`` points with probability ``prob[e]`` (``ptr[i] <= e < ptr[i + 1]``).
    next_off, x2_mr : ndarray of int64
        The next stage's rows and its waiters' most points to come.
    iy_lo, iy_hi, out, base
        As :func:`solve_stage` takes them.
    n_threads : int
        Threads to run on; the rows do not depend on it.

    Returns
    -------
    None
    """
    cdef int64_t n_m = m_mr.shape[0]
    cdef int64_t n_y = w_mr.shape[0]
    cdef int64_t iy
    a_w, a_x2 = np.asarray(w_mr), np.asarray(x2_mr)
    check_out_rows(np.asarray(out_off), np.asarray(m_mr), a_w, iy_lo, iy_hi, base, out.shape[0])
    if iy_hi <= iy_lo or n_m == 0:
        return
    if ptr.shape[0] != n_m + 1 or ptr[0] < 0 or np.any(np.diff(np.asarray(ptr)) < 0):
        raise ValueError("ptr must be the CSR pointer of the movers' outcomes")
    n_e = ptr[n_m]
    if nxt_j.shape[0] < n_e or pts.shape[0] < n_e or prob.shape[0] < n_e:
        raise ValueError("nxt_j, pts and prob must hold every outcome")
    if n_e and (np.asarray(nxt_j)[:n_e].min() < 0 or np.asarray(nxt_j)[:n_e].max() >= len(a_x2)):
        raise ValueError("nxt_j must name the next stage's waiters")
    check_next_rows(values.shape[0], np.asarray(next_off), np.zeros(len(a_x2), np.int64), a_x2,
                    a_w, 1, iy_lo, iy_hi)
    with nogil, parallel(num_threads=max(n_threads, 1)):
        for iy in prange(iy_lo, iy_hi, schedule="dynamic"):
            policy_positions(&values[0], d, &m_mr[0], &w_mr[0], &out_off[0], &ptr[0],
                             &nxt_j[0] if n_e else NULL, &pts[0] if n_e else NULL,
                             &prob[0] if n_e else NULL, &next_off[0] if n_e else NULL,
                             &x2_mr[0] if n_e else NULL, n_m, n_y, iy, &out[0], base)


cdef void policy_positions(
    const double* values, int64_t d, const int64_t* m_mr, const int64_t* w_mr,
    const int64_t* out_off, const int64_t* ptr, const int64_t* nxt_j, const int64_t* pts,
    const double* prob, const int64_t* next_off, const int64_t* x2_mr, int64_t n_m,
    int64_t n_y, int64_t iy, double* out, int64_t base,
) noexcept nogil:
    """The rows of waiter ``iy``'s positions under the fixed policy."""
    cdef int64_t mr_y = w_mr[iy]
    cdef int64_t f2 = d - mr_y
    cdef int64_t i, nu, o, first, t, e, j, o2, n2, k
    cdef double p, v
    for i in range(n_m):
        nu = m_mr[i] + mr_y + 1
        o = out_off[iy * n_m + i] - base
        first = d - m_mr[i]
        for t in range(nu):
            out[o + t] = 0.0
        for e in range(ptr[i], ptr[i + 1]):
            j = nxt_j[e]
            o2 = next_off[j * n_y + iy]
            n2 = mr_y + x2_mr[j] + 1
            p = prob[e]
            for t in range(nu):
                k = 2 * d - (first + t) - pts[e] - f2
                v = 1.0 if k < 0 else (0.0 if k >= n2 else values[o2 + k])
                out[o + t] += p * (1.0 - v)
