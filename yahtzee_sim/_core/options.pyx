# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Every legal option of recorded decisions, valued under optimal play afterwards, in the
compiled core (:func:`decision_options`; the decision datasets of
:mod:`yahtzee_sim.analysis.decisions.dataset`).

A box decision needs no widget: each legal box's points, the bonuses it earns and the next
state's value. A keep decision with ``j`` rerolls left needs the widget's box step and
``j`` keep steps, unrecorded: the same values bit for bit as the recording widget's.
Games without saved rolls only.
"""

import numpy as np

from cython.parallel cimport parallel, prange
from libc.math cimport NAN
from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc

from yahtzee_sim._core.box_step cimport NEG, box_step
from yahtzee_sim._core.bundle cimport lanes_of, rules_of
from yahtzee_sim._core.keep_steps cimport best_subkeeps, keep_values
from yahtzee_sim._core.lanes cimport LANES_UPPER, LaneTable
from yahtzee_sim._core.rules cimport Rules, flag_after_roll, roll_options, scored_state
from yahtzee_sim._core.work cimport Work, free_work, new_work

#: Work buffers are allocated once per chunk of states, not per state.
MAX_CHUNKS = 64


# The decisions of a call: group ``g`` (a turn-start state) holds decisions
# ``group_ptr[g] .. group_ptr[g + 1] - 1``; decision ``i``'s options go to
# ``opt_start[i] .. opt_stop[i] - 1`` of ``opt_action`` and ``opt_value``.
cdef struct Batch:
    const int64_t* used
    const int64_t* upper
    const int64_t* flag
    const int64_t* group_ptr
    const int64_t* roll
    const int64_t* rolls_left
    const int64_t* chosen
    const int64_t* opt_start
    const int64_t* opt_stop
    int64_t* opt_action
    double* opt_value
    double* value
    int64_t* best_action
    double* best_value


cdef inline int64_t box_options(
    const Rules* kr, const LaneTable* lanes, int64_t u, int64_t up, int64_t f, int64_t r,
    int64_t* points, int64_t o, int64_t* opt_action, double* opt_value,
) noexcept nogil:
    """The options of a box decision at roll ``r`` of state ``(u, up, f)``: each legal
    box's points, bonuses and next state's value, from ``o``; returns the next free
    position."""
    cdef int64_t yb = roll_options(kr, r, u, f, points)
    cdef int64_t f2 = flag_after_roll(kr, f, yb)
    cdef int64_t c, nxt, ub
    for c in range(kr.n_boxes):
        if points[c] >= 0:
            nxt = scored_state(kr, u, up, f2, c, points[c], &ub)
            opt_action[o] = kr.n_keeps + c
            opt_value[o] = <double>(points[c] + ub + yb) + lanes.values[nxt]
            o += 1
    return o


cdef inline int64_t keep_options(
    const Rules* kr, int64_t r, const double* W, const double* first_roll, int64_t o,
    int64_t* opt_action, double* opt_value,
) noexcept nogil:
    """The options of a keep decision at roll ``r``: each keep's value (``W[k]``, at the
    decision's rerolls left; keeping every die ends the rolling, ``first_roll[r]``: the
    roll's best box), from ``o``; returns the next free position."""
    cdef int64_t e, k
    for e in range(kr.roll_keep_ptr[r], kr.roll_keep_ptr[r + 1]):
        k = kr.roll_keep_keep[e]
        opt_action[o] = k
        opt_value[o] = first_roll[r] if kr.keep_size[k] == kr.n_dice else W[k]
        o += 1
    return o


cdef void levels_options(
    const Rules* kr, const LaneTable* lanes, const Batch* d, int64_t g, Work* work,
    double* first_roll,
) noexcept nogil:
    """Options of group ``g``'s decisions, ordered by rerolls left, computing only the
    levels they need: box decisions need no widget; keep decisions with ``j`` rerolls left
    need the box step and ``j`` keep steps."""
    cdef int64_t u = d.used[g]
    cdef int64_t up = d.upper[g]
    cdef int64_t f = d.flag[g]
    cdef int64_t i = d.group_ptr[g]
    cdef int64_t b = d.group_ptr[g + 1]
    cdef int64_t r, j, level
    cdef double* W = work.W
    while i < b and d.rolls_left[i] == 0:
        box_options(kr, lanes, u, up, f, d.roll[i], work.slots, d.opt_start[i], d.opt_action,
                    d.opt_value)
        i += 1
    if i == b:
        return
    box_step(kr, lanes, u, up, f, up, 1, W, work, 0, NULL)
    for r in range(kr.n_rolls):
        first_roll[r] = W[kr.roll_keep_index[r]]
    level = 0  # W holds the keep values with `level` rerolls left
    while i < b:
        j = d.rolls_left[i]
        while level < j:
            if level > 0:
                best_subkeeps(kr, W, 1)
            keep_values(kr, W, 1)
            level += 1
        keep_options(kr, d.roll[i], W, first_roll, d.opt_start[i], d.opt_action, d.opt_value)
        i += 1


cdef inline void best_of(const Batch* d, int64_t i) noexcept nogil:
    """Decision ``i``'s best option (the first of the highest value) and the value of the
    action it took (NaN if none of its options)."""
    cdef int64_t e
    d.best_value[i] = NEG
    d.value[i] = NAN
    for e in range(d.opt_start[i], d.opt_stop[i]):
        if d.opt_value[e] > d.best_value[i]:
            d.best_value[i] = d.opt_value[e]
            d.best_action[i] = d.opt_action[e]
        if d.opt_action[e] == d.chosen[i]:
            d.value[i] = d.opt_value[e]


cdef bint options_chunk(
    const Rules* kr, const LaneTable* lanes, const Batch* d, int64_t n, int64_t chunk,
    int64_t n_chunks,
) noexcept nogil:
    """The groups ``chunk, chunk + n_chunks, ...``; False if out of memory."""
    cdef Work work
    cdef double* first_roll = <double*>malloc(kr.n_rolls * sizeof(double))
    cdef int64_t g = chunk
    cdef int64_t i
    cdef bint ok = new_work(kr, 1, 0, &work) and first_roll != NULL
    while ok and g < n:
        levels_options(kr, lanes, d, g, &work, first_roll)
        for i in range(d.group_ptr[g], d.group_ptr[g + 1]):
            best_of(d, i)
        g += n_chunks
    free_work(&work)
    free(first_roll)
    return ok


cdef int64_t[::1] option_counts(
    const Rules* kr, const int64_t[::1] used, const int64_t[::1] flag,
    const int64_t[::1] group_ptr, const int64_t[::1] roll, const int64_t[::1] rolls_left,
):
    """The number of options of every decision (rolls and rerolls left already checked)."""
    cdef int64_t m = roll.shape[0]
    cdef int64_t[::1] count = np.zeros(m, dtype=np.int64)
    cdef int64_t[::1] points = np.empty(kr.n_boxes, dtype=np.int64)
    cdef int64_t g, i, c, r
    with nogil:
        for g in range(used.shape[0]):
            for i in range(group_ptr[g], group_ptr[g + 1]):
                r = roll[i]
                if rolls_left[i] > 0:
                    count[i] = kr.roll_keep_ptr[r + 1] - kr.roll_keep_ptr[r]
                    continue
                roll_options(kr, r, used[g], flag[g], &points[0])
                for c in range(kr.n_boxes):
                    count[i] += points[c] >= 0
    return count


cdef check_states(Rules r, LaneTable t, used, upper, flag):
    """Refuse rules, lanes or turn-start states the kernel cannot take (``ValueError``)."""
    if r.saving:
        raise ValueError("decision_options values games without saved rolls only")
    if t.kind != LANES_UPPER or t.n_offset != 0 or t.n_values < r.n_states:
        raise ValueError("lanes must be max-EV lanes over every state of the product layout")
    n = len(used)
    if len(upper) != n or len(flag) != n:
        raise ValueError("used, upper and flag must have one entry per group")
    if n and (used.min() < 0 or used.max() >= (1 << r.n_boxes)):
        raise ValueError(f"used must be used-masks of {r.n_boxes} boxes")
    if n and (upper.min() < 0 or upper.max() > r.upper_cap):
        raise ValueError(f"upper totals must lie in 0..{r.upper_cap}")
    if n and (flag.min() < 0 or flag.max() >= r.flag_size):
        raise ValueError(f"flags must lie in 0..{r.flag_size - 1}")


cdef check_decisions(Rules r, group_ptr, roll, rolls_left, chosen, opt_start, opt_stop):
    """Refuse decisions the kernel cannot take (``ValueError``): ``group_ptr`` splitting
    them among the groups, each group's ordered by rerolls left, rolls and rerolls left in
    range."""
    m = len(roll)
    if len(rolls_left) != m or len(chosen) != m or len(opt_start) != m or len(opt_stop) != m:
        raise ValueError("roll, rolls_left, chosen, opt_start and opt_stop must match")
    heads = group_ptr[: len(group_ptr) - 1]  # each group's first decision
    if group_ptr[0] != 0 or group_ptr[len(heads)] != m or (np.diff(group_ptr) < 0).any():
        raise ValueError(f"group_ptr must be increasing offsets from 0 to {m} decisions")
    if m == 0:
        return
    if roll.min() < 0 or roll.max() >= r.n_rolls:
        raise ValueError(f"rolls must lie in 0..{r.n_rolls - 1}")
    if rolls_left.min() < 0 or rolls_left.max() >= r.rolls:
        raise ValueError(f"rolls_left must lie in 0..{r.rolls - 1}")
    starts = np.zeros(m, dtype=bool)
    starts[heads[heads < m]] = True
    if ((np.diff(rolls_left) < 0) & ~starts[1:]).any():
        raise ValueError("each group's decisions must be ordered by rerolls left")


cdef const int64_t* ints(a) except? NULL:
    """The data of int64 array ``a`` (NULL if empty)."""
    cdef const int64_t[::1] v = a
    return &v[0] if v.shape[0] else NULL


cdef int64_t* out_ints(a) except? NULL:
    """The data of writable int64 array ``a`` (NULL if empty)."""
    cdef int64_t[::1] v = a
    return &v[0] if v.shape[0] else NULL


cdef double* floats(a) except? NULL:
    """The data of writable float64 array ``a`` (NULL if empty)."""
    cdef double[::1] v = a
    return &v[0] if v.shape[0] else NULL


cdef Batch batch_of(used, upper, flag, group_ptr, roll, rolls_left, chosen, opt_start,
                    opt_stop, out):
    """The pointers of one call (the caller keeps the arrays alive)."""
    cdef Batch d
    d.used, d.upper, d.flag = ints(used), ints(upper), ints(flag)
    d.group_ptr = ints(group_ptr)
    d.roll, d.rolls_left = ints(roll), ints(rolls_left)
    d.chosen = ints(chosen)
    d.opt_start, d.opt_stop = ints(opt_start), ints(opt_stop)
    d.opt_action = out_ints(out[0])
    d.opt_value = floats(out[1])
    d.value = floats(out[2])
    d.best_action = out_ints(out[3])
    d.best_value = floats(out[4])
    return d


cdef check_outputs(count, opt_start, opt_stop, out):
    """Refuse option ranges that are not each decision's options, or outputs of the wrong
    size (``ValueError``)."""
    opt_action, opt_value, value, best_action, best_value = out
    m, total = len(count), len(opt_action)
    if len(opt_value) != total:
        raise ValueError("opt_action and opt_value must have one entry per option")
    if len(value) != m or len(best_action) != m or len(best_value) != m:
        raise ValueError("value, best_action and best_value must have one entry per decision")
    if m and (opt_start.min() < 0 or opt_stop.max() > total):
        raise ValueError(f"option ranges must lie in 0..{total}")
    if (opt_stop - opt_start != count).any():
        raise ValueError("opt_stop - opt_start must be each decision's number of options")


def decision_options(
    kr, lanes, used, upper, flag, group_ptr, roll, rolls_left, chosen, opt_start, opt_stop,
    out, int n_threads=1,
):
    """Every legal option of recorded decisions, valued under optimal play afterwards, the
    turn-start states in parallel (the values do not depend on ``n_threads``).

    Parameters
    ----------
    kr : KernelRules
        The rules (a game without saved rolls: a stop is valued with no roll saved).
    lanes : Lanes
        Max-EV lanes over upper totals in the product layout
        (:func:`~yahtzee_sim._kernels.lanes.upper_total_lanes`).
    used, upper, flag : ndarray of int64, shape (n,)
        Group ``g``'s turn-start state (``upper`` capped).
    group_ptr : ndarray of int64, shape (n + 1,)
        Group ``g`` holds decisions ``group_ptr[g] .. group_ptr[g + 1] - 1``, ordered by
        rerolls left.
    roll, rolls_left, chosen : ndarray of int64, shape (m,)
        Each decision's roll, rerolls left and the action taken (a keep index, or
        ``n_keeps + box``).
    opt_start, opt_stop : ndarray of int64, shape (m,)
        Where decision ``i``'s options go (as many as it has: the roll's sub-keeps, or its
        legal boxes), in any order.
    out : tuple of ndarray
        ``(opt_action, opt_value, value, best_action, best_value)``: int64 and float64 per
        option; float64, int64, float64 per decision. Written: every option's action
        (keep index, then ``n_keeps + box``) and value, the value of ``chosen[i]`` (NaN if
        not an option) and the best option (the first of the highest value).
    n_threads : int
        Threads to run on.

    Returns
    -------
    None

    Notes
    -----
    A value is the expected points still to come from the decision on: a keep's is the
    widget's (keeping every die ends the rolling: the roll's best box), a box's its
    points, the bonuses it earns and the next state's value (the advisor's values).
    """
    cdef Rules r = rules_of(kr)
    cdef LaneTable t = lanes_of(lanes)
    cdef int64_t n, chunk, n_chunks
    cdef int failed = 0
    args = [np.asarray(a) for a in (used, upper, flag, group_ptr, roll, rolls_left, chosen,
                                     opt_start, opt_stop)]
    for a in args:
        if a.dtype != np.int64 or a.ndim != 1 or not a.flags.c_contiguous:
            raise ValueError("the state, decision and range arrays must be 1-d int64, C order")
    used, upper, flag, group_ptr, roll, rolls_left, chosen, opt_start, opt_stop = args
    check_states(r, t, used, upper, flag)
    n = len(used)
    if len(group_ptr) != n + 1:
        raise ValueError(f"group_ptr must have n + 1 = {n + 1} entries")
    check_decisions(r, group_ptr, roll, rolls_left, chosen, opt_start, opt_stop)
    if len(out) != 5:
        raise ValueError("out must be (opt_action, opt_value, value, best_action, best_value)")
    count = np.asarray(option_counts(&r, used, flag, group_ptr, roll, rolls_left))
    check_outputs(count, opt_start, opt_stop, out)
    cdef Batch d = batch_of(used, upper, flag, group_ptr, roll, rolls_left, chosen, opt_start,
                            opt_stop, out)
    n_chunks = min(n, MAX_CHUNKS)
    with nogil, parallel(num_threads=max(n_threads, 1)):
        for chunk in prange(n_chunks, schedule="dynamic"):
            if not options_chunk(&r, &t, &d, n, chunk, n_chunks):
                failed += 1
    if failed:
        raise MemoryError("decision_options: out of memory for its work buffers")
