# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Greedy's decisions in the compiled core (:mod:`yahtzee_sim.strategies.greedy`): the
keep and the box of every roll of a state, from one roll of look-ahead over the immediate
gains (points, the upper bonus when the box reaches the threshold, optionally the Yahtzee
bonus). States, or runs of positions of one used-mask and flag, are filled in parallel on
OpenMP threads; each writes only its own rows, so the tables do not depend on the number
of threads.
"""

import numpy as np

from cython.parallel cimport parallel, prange
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

from yahtzee_sim._core.bundle cimport rules_of
from yahtzee_sim._core.rules cimport (
    Rules,
    box_legal_points,
    joker_case,
    upper_bonus_paid,
    yahtzee_bonus_points,
)

#: Scratch buffers are allocated once per chunk of states (or runs), not per state.
MAX_CHUNKS = 64


cdef struct Greedy:
    Rules rules
    const int32_t* keep_roll_ptr  # CSR keep -> (roll, probability): n_keeps + 1
    const int32_t* keep_roll_roll
    const double* keep_roll_prob
    const int32_t* roll_keep_ptr  # CSR roll -> sub-keeps: n_rolls + 1
    const int32_t* roll_keep_keep
    const int64_t* box_max  # n_boxes
    const int64_t* order  # boxes in order of preference on equal gains
    int64_t n_order
    bint with_ybonus


cdef struct Scratch:
    int64_t* points  # n_rolls x n_boxes
    double* value  # n_rolls
    double* before  # n_rolls
    double* keep_value  # n_keeps


cdef bint new_scratch(const Rules* kr, Scratch* s) noexcept nogil:
    """Allocate ``s``; False if out of memory (free it with :func:`free_scratch` anyway)."""
    s.points = <int64_t*>malloc(kr.n_rolls * kr.n_boxes * sizeof(int64_t))
    s.value = <double*>malloc(kr.n_rolls * sizeof(double))
    s.before = <double*>malloc(kr.n_rolls * sizeof(double))
    s.keep_value = <double*>malloc(kr.n_keeps * sizeof(double))
    return s.points != NULL and s.value != NULL and s.before != NULL and s.keep_value != NULL


cdef void free_scratch(Scratch* s) noexcept nogil:
    free(s.points)
    free(s.value)
    free(s.before)
    free(s.keep_value)


cdef void roll_points(const Rules* kr, int64_t used, int64_t flag, int64_t* points) noexcept nogil:
    """``points[r * n_boxes + c]``: the legal points of box ``c`` for roll ``r`` (-1:
    illegal)."""
    cdef int64_t r, c, case
    for r in range(kr.n_rolls):
        case = joker_case(kr, r, used, flag)
        for c in range(kr.n_boxes):
            points[r * kr.n_boxes + c] = box_legal_points(kr, case, r, used, c)


cdef int64_t upper_reach_now(const Greedy* g, int64_t used) noexcept nogil:
    """The most points one open upper box can take (the upper bonus is out of reach this
    turn from totals more than that below the cap); past the cap when no bonus is paid."""
    cdef const Rules* kr = &g.rules
    cdef int64_t reach = -kr.upper_cap - 1  # no total reaches it
    cdef int64_t c
    if kr.upper_bonus == 0 or kr.upper_cap == 0:
        return reach
    for c in range(kr.n_boxes):
        if kr.is_upper[c] and ((used >> c) & 1) == 0:
            reach = max(reach, g.box_max[c])
    return reach


cdef void lane_values(
    const Greedy* g, int64_t used, int64_t upper, int64_t flag, const int64_t* points,
    double* roll_value, int8_t* cat_row,
) noexcept nogil:
    """Each roll's greedy value (its best immediate gain) and box, from the legal points
    ``points`` of one state (:func:`roll_points`)."""
    cdef const Rules* kr = &g.rules
    cdef int64_t r, j, c, p, best_c
    cdef double best, v
    for r in range(kr.n_rolls):
        best = -1.0
        best_c = -1
        for j in range(g.n_order):
            c = g.order[j]
            p = points[r * kr.n_boxes + c]
            if p < 0:
                continue
            v = <double>(p + upper_bonus_paid(kr, upper, c, p))
            if v > best:
                best = v
                best_c = c
        roll_value[r] = best
        if g.with_ybonus:
            roll_value[r] += yahtzee_bonus_points(kr, r, used, flag)
        cat_row[r] = <int8_t>best_c


cdef void best_keeps(
    const Greedy* g, const double* roll_value, double* keep_value, int16_t* keep_row
) noexcept nogil:
    """Each roll's greedy keep, from the rolls' greedy values: the sub-keep whose next roll
    has the best expected value (ties within 1e-9: more dice kept)."""
    cdef const Rules* kr = &g.rules
    cdef int64_t k, e, r, best_k
    cdef double s, best, v
    for k in range(kr.n_keeps):
        s = 0.0
        for e in range(g.keep_roll_ptr[k], g.keep_roll_ptr[k + 1]):
            s += g.keep_roll_prob[e] * roll_value[g.keep_roll_roll[e]]
        keep_value[k] = s
    for r in range(kr.n_rolls):
        best_k = -1
        best = -1.0
        for e in range(g.roll_keep_ptr[r], g.roll_keep_ptr[r + 1]):
            k = g.roll_keep_keep[e]
            v = keep_value[k]
            if (
                best_k < 0
                or v > best + 1e-9
                or (v > best - 1e-9 and kr.keep_size[k] > kr.keep_size[best_k])
            ):
                best = v
                best_k = k
        keep_row[r] = <int16_t>best_k


cdef bint same_rolls(
    int64_t n, const double* value, const double* before, const int8_t* cat_row,
    const int8_t* cat_before,
) noexcept nogil:
    """Whether two positions' rolls have the same greedy values and boxes."""
    cdef int64_t r
    for r in range(n):
        if value[r] != before[r] or cat_row[r] != cat_before[r]:
            return False
    return True


cdef bint states_chunk(
    const Greedy* g, const int64_t* used, const int64_t* upper, const int64_t* flag,
    const int64_t* slots, int64_t n, int16_t* keep, int8_t* cat, int64_t chunk,
    int64_t n_chunks,
) noexcept nogil:
    """Greedy keep and box of every roll of the states ``chunk, chunk + n_chunks, ...``
    into rows ``slots[i]``; False if out of memory."""
    cdef const Rules* kr = &g.rules
    cdef Scratch s
    cdef int64_t i = chunk
    cdef int64_t row
    if not new_scratch(kr, &s):
        free_scratch(&s)
        return False
    while i < n:
        row = slots[i] * kr.n_rolls
        roll_points(kr, used[i], flag[i], s.points)
        lane_values(g, used[i], upper[i], flag[i], s.points, s.value, cat + row)
        best_keeps(g, s.value, s.keep_value, keep + row)
        i += n_chunks
    free_scratch(&s)
    return True


cdef void positions_run(
    const Greedy* g, const int64_t* pos, int64_t lo, int64_t hi, int16_t* keep, int8_t* cat,
    int64_t stride, Scratch* s,
) noexcept nogil:
    """Positions ``lo .. hi - 1`` (one used-mask and flag) into rows ``i * stride`` of
    ``keep`` and ``cat``. Upper totals from which no box can pay the upper bonus this turn
    copy the first of them; a position whose rolls have the values and boxes of the one
    filled before it copies its keeps (they depend on those values only)."""
    cdef const Rules* kr = &g.rules
    cdef int64_t n_rolls = kr.n_rolls
    cdef int64_t used = pos[3 * lo]
    cdef int64_t flag = pos[3 * lo + 2]
    cdef int64_t reach, plain = -1, last = -1  # a filled position with no bonus in reach
    cdef int64_t i, upper
    cdef bint no_bonus
    roll_points(kr, used, flag, s.points)
    reach = upper_reach_now(g, used)
    for i in range(lo, hi):
        upper = pos[3 * i + 1]
        no_bonus = upper >= kr.upper_cap or upper + reach < kr.upper_cap
        if no_bonus and plain >= 0:
            memcpy(keep + i * stride, keep + plain * stride, n_rolls * sizeof(int16_t))
            memcpy(cat + i * stride, cat + plain * stride, n_rolls * sizeof(int8_t))
            continue
        lane_values(g, used, upper, flag, s.points, s.value, cat + i * stride)
        if last >= 0 and same_rolls(n_rolls, s.value, s.before, cat + i * stride,
                                    cat + last * stride):
            memcpy(keep + i * stride, keep + last * stride, n_rolls * sizeof(int16_t))
        else:
            best_keeps(g, s.value, s.keep_value, keep + i * stride)
        memcpy(s.before, s.value, n_rolls * sizeof(double))
        last = i
        if no_bonus:
            plain = i


cdef bint positions_chunk(
    const Greedy* g, const int64_t* pos, const int64_t* starts, int64_t n_runs, int16_t* keep,
    int8_t* cat, int64_t stride, int64_t chunk, int64_t n_chunks,
) noexcept nogil:
    """The runs ``chunk, chunk + n_chunks, ...`` (:func:`positions_run`); False if out of
    memory."""
    cdef Scratch s
    cdef int64_t a = chunk
    if not new_scratch(&g.rules, &s):
        free_scratch(&s)
        return False
    while a < n_runs:
        positions_run(g, pos, starts[a], starts[a + 1], keep, cat, stride, &s)
        a += n_chunks
    free_scratch(&s)
    return True


cdef Greedy greedy_of(object kr, const int64_t[::1] order, bint with_ybonus) except *:
    """The rules, their keep and roll tables and greedy's parameters, checked."""
    cdef Greedy g
    cdef const int32_t[::1] keep_roll_ptr = kr.keep_roll_ptr
    cdef const int32_t[::1] keep_roll_roll = kr.keep_roll_roll
    cdef const double[::1] keep_roll_prob = kr.keep_roll_prob
    cdef const int32_t[::1] roll_keep_ptr = kr.roll_keep_ptr
    cdef const int32_t[::1] roll_keep_keep = kr.roll_keep_keep
    cdef const int64_t[::1] box_max = kr.box_max
    g.rules = rules_of(kr)
    if (keep_roll_ptr.shape[0] != g.rules.n_keeps + 1
            or roll_keep_ptr.shape[0] != g.rules.n_rolls + 1):
        raise ValueError("the bundle's keep and roll tables do not match its rules")
    if box_max.shape[0] != g.rules.n_boxes:
        raise ValueError(f"box_max must have {g.rules.n_boxes} entries")
    if order.shape[0] == 0 or order.shape[0] > g.rules.n_boxes:
        raise ValueError(f"order must list 1..{g.rules.n_boxes} boxes")
    if np.asarray(order).min() < 0 or np.asarray(order).max() >= g.rules.n_boxes:
        raise ValueError(f"order must hold box indices 0..{g.rules.n_boxes - 1}")
    g.keep_roll_ptr = &keep_roll_ptr[0]
    g.keep_roll_roll = &keep_roll_roll[0]
    g.keep_roll_prob = &keep_roll_prob[0]
    g.roll_keep_ptr = &roll_keep_ptr[0]
    g.roll_keep_keep = &roll_keep_keep[0]
    g.box_max = &box_max[0]
    g.order = &order[0]
    g.n_order = order.shape[0]
    g.with_ybonus = with_ybonus
    return g


cdef check_table(str name, table, int64_t n_rows, int64_t n_rolls):
    """Refuse a keep or box table that does not have ``n_rows`` rows of ``n_rolls``."""
    if table.shape[0] < n_rows or table.shape[table.ndim - 1] != n_rolls:
        raise ValueError(f"{name} must have at least {n_rows} rows of {n_rolls} rolls")


cdef check_masks(const Rules* r, used):
    """Refuse used-masks that are not masks of the rules' boxes."""
    if len(used) and (used.min() < 0 or used.max() >= (1 << r.n_boxes)):
        raise ValueError(f"used-masks must lie in 0..{(1 << r.n_boxes) - 1}")


def greedy_fill_states(
    kr, const int64_t[::1] order, bint with_ybonus, const int64_t[::1] used,
    const int64_t[::1] upper, const int64_t[::1] flag, const int64_t[::1] slots,
    int16_t[:, ::1] keep, int8_t[:, ::1] cat, int n_threads=1,
):
    """Greedy keep and box of every roll of states ``i = (used[i], upper[i], flag[i])``,
    into row ``slots[i]`` of ``keep`` and ``cat``, in parallel over the states.

    Parameters
    ----------
    kr : KernelRules
        The rules (:func:`~yahtzee_sim._kernels.scoring.kernel_rules`).
    order : int64 array
        The boxes in order of preference on equal gains.
    with_ybonus : bool
        Count the Yahtzee bonus in a roll's gain (hence in keep values).
    used, upper, flag : int64 arrays
        The states, one entry each.
    slots : int64 array
        The row of each state in ``keep`` and ``cat``.
    keep, cat : int16, int8 arrays (rows, n_rolls)
        Filled: the keep index and the box of every roll of each state's row.
    n_threads : int
        Threads to run on (the tables do not depend on it).

    Returns
    -------
    None
    """
    cdef Greedy g = greedy_of(kr, order, with_ybonus)
    cdef int64_t n = used.shape[0]
    cdef int64_t n_chunks = min(n, MAX_CHUNKS)
    cdef int64_t chunk
    cdef int failed = 0
    if upper.shape[0] != n or flag.shape[0] != n or slots.shape[0] != n:
        raise ValueError("used, upper, flag and slots must have one entry per state")
    if n == 0:
        return
    check_masks(&g.rules, np.asarray(used))
    if np.asarray(slots).min() < 0 or np.asarray(slots).max() >= min(keep.shape[0], cat.shape[0]):
        raise ValueError(f"slots must be rows of keep and cat (0..{keep.shape[0] - 1})")
    check_table("keep", keep, 0, g.rules.n_rolls)
    check_table("cat", cat, 0, g.rules.n_rolls)
    with nogil, parallel(num_threads=max(n_threads, 1)):
        for chunk in prange(n_chunks, schedule="dynamic"):
            if not states_chunk(&g, &used[0], &upper[0], &flag[0], &slots[0], n, &keep[0, 0],
                                &cat[0, 0], chunk, n_chunks):
                failed += 1
    if failed:
        raise MemoryError("greedy_fill_states: out of memory for its scratch buffers")


def greedy_fill_positions(
    kr, const int64_t[::1] order, bint with_ybonus, const int64_t[:, ::1] pos,
    int16_t[:, :, ::1] keep, int8_t[:, :, ::1] cat, int n_threads=1,
):
    """Greedy keep and box at every roll of positions ``pos[i] = (used, upper, flag)`` into
    ``keep[i, 0]`` and ``cat[i, 0]``, in parallel over runs of one used-mask and flag.

    A run's legal points are found once. Upper totals from which no box can pay the upper
    bonus this turn have the same rolls' values and boxes: the first is filled, the others
    copied. A position whose rolls have the values and boxes of the one filled before it
    has its keeps too (they depend on those values only).

    Parameters
    ----------
    kr : KernelRules
        The rules (:func:`~yahtzee_sim._kernels.scoring.kernel_rules`).
    order : int64 array
        The boxes in order of preference on equal gains.
    with_ybonus : bool
        Count the Yahtzee bonus in a roll's gain (hence in keep values).
    pos : int64 array (n, 3)
        The positions, those of one used-mask and flag next to each other.
    keep, cat : int16, int8 arrays (n, layers, n_rolls)
        Filled at layer 0: the keep index and the box of every roll.
    n_threads : int
        Threads to run on (the tables do not depend on it).

    Returns
    -------
    None
    """
    cdef Greedy g = greedy_of(kr, order, with_ybonus)
    cdef int64_t n = pos.shape[0]
    cdef int64_t[::1] starts = np.zeros(n + 1, dtype=np.int64)
    cdef int64_t n_runs = 0
    cdef int64_t i, chunk, n_chunks
    cdef int failed = 0
    if pos.shape[1] != 3:
        raise ValueError(f"pos must have 3 columns (used, upper, flag), got {pos.shape[1]}")
    if keep.shape[0] != n or cat.shape[0] != n or not 1 <= keep.shape[1] == cat.shape[1]:
        raise ValueError(f"keep and cat must have {n} rows of the same layers (at least one)")
    check_table("keep", keep, n, g.rules.n_rolls)
    check_table("cat", cat, n, g.rules.n_rolls)
    if n == 0:
        return
    check_masks(&g.rules, np.asarray(pos)[:, 0])
    for i in range(n):
        if i == 0 or pos[i, 0] != pos[i - 1, 0] or pos[i, 2] != pos[i - 1, 2]:
            starts[n_runs] = i
            n_runs += 1
    starts[n_runs] = n
    n_chunks = min(n_runs, MAX_CHUNKS)
    with nogil, parallel(num_threads=max(n_threads, 1)):
        for chunk in prange(n_chunks, schedule="dynamic"):
            if not positions_chunk(&g, &pos[0, 0], &starts[0], n_runs, &keep[0, 0, 0],
                                   &cat[0, 0, 0], keep.shape[1] * g.rules.n_rolls, chunk,
                                   n_chunks):
                failed += 1
    if failed:
        raise MemoryError("greedy_fill_positions: out of memory for its scratch buffers")
