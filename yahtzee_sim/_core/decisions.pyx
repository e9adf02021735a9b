# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Decisions read off the widget in the compiled core: per-state decision tables of table
strategies (optimal, Glenn's heuristics, target play), lane by lane for exact evaluation,
and every option's value for the advisor.

For a turn-start state, one recorded widget run gives the best box for every roll and the
best keep for every roll and number of rerolls left.
"""

import numpy as np

from cython.parallel cimport parallel, prange
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t

from yahtzee_sim._core.bundle cimport RulesView, lanes_of, view_of
from yahtzee_sim._core.lanes cimport LANES_NEED, LaneTable
from yahtzee_sim._core.rules cimport Rules
from yahtzee_sim._core.widget cimport widget
from yahtzee_sim._core.work cimport Work, free_work, new_work

#: Work buffers are allocated once per chunk of states, not per state.
MAX_CHUNKS = 64

ctypedef fused slot_t:
    int32_t
    int64_t

ctypedef fused decision_t:
    int8_t
    int16_t


# Where fill_lanes writes: ``keep`` (rows x ``keep_layers`` x rolls) and ``cat`` (rows x
# ``cat_layers`` x rolls), lane ``t`` of group ``g`` to row ``lane_row[row0[g] + t]``
# (skipped when -1).
cdef struct Rows:
    const int64_t* row0
    const int64_t* lane_row
    int16_t* keep
    int8_t* cat
    int64_t keep_layers
    int64_t cat_layers


cdef void write_rows(const Rules* kr, const Work* work, const Rows* rows, int64_t g, int64_t m) noexcept nogil:
    """The records of group ``g``'s widget run (``m`` lanes) into its rows."""
    cdef int64_t n_rolls = kr.n_rolls
    cdef int64_t t, row, r, s, j
    cdef int8_t* cat
    cdef int16_t* keep
    for t in range(m):
        row = rows.lane_row[rows.row0[g] + t]
        if row < 0:
            continue
        cat = rows.cat + row * rows.cat_layers * n_rolls
        keep = rows.keep + row * rows.keep_layers * n_rolls
        for r in range(n_rolls):
            cat[r] = <int8_t>work.cat[r * m + t]
            for s in range(1, kr.saved_size):  # scored with s rolls saved
                cat[s * n_rolls + r] = <int8_t>work.cat_levels[(s * n_rolls + r) * m + t]
            for j in range(1, kr.levels):
                keep[(j - 1) * n_rolls + r] = <int16_t>work.keep[(j * n_rolls + r) * m + t]


cdef bint fill_chunk(
    const Rules* kr, const LaneTable* lanes, const int64_t* used, const int64_t* upper,
    const int64_t* flag, const int64_t* lo, const int64_t* nu, const Rows* rows, int64_t n,
    int64_t max_nu, int64_t chunk, int64_t n_chunks,
) noexcept nogil:
    """The groups ``chunk, chunk + n_chunks, ...``; False if out of memory."""
    cdef Work work
    cdef int64_t g = chunk
    if not new_work(kr, max_nu, 1, &work):
        free_work(&work)
        return False
    while g < n:
        widget(kr, lanes, used[g], upper[g], flag[g], lo[g], nu[g], &work, 1)
        write_rows(kr, &work, rows, g, nu[g])
        g += n_chunks
    free_work(&work)
    return True


cdef check_lanes(Rules r, LaneTable t):
    """Refuse lanes whose tables do not cover every state the widget may read."""
    if t.kind == LANES_NEED:
        if t.n_offset < r.n_states:
            raise ValueError("need lanes must hold a row (offset, length) for every state")
    elif t.n_offset == 0 and t.n_values < r.n_states:
        raise ValueError("lanes.values must hold every state of the table")
    elif t.n_offset and t.n_offset < ((<int64_t>1) << r.n_boxes) * r.flag_size:
        raise ValueError("compact lanes must hold an offset for every (used, flag) block")
    if t.kind == 2 and t.n_scale < r.max_points + max(r.upper_bonus, r.yahtzee_bonus) + 1:
        raise ValueError("exponential lanes need scale[q] for every box's points and bonus")


cdef check_outputs(Rules r, keep, cat):
    """Refuse decision rows of the wrong shape (``keep_rows``, ``cat_rows``)."""
    if keep[1] < r.levels - 1 or keep[2] != r.n_rolls:
        raise ValueError(f"keep_rows must be (rows, {max(r.levels - 1, 1)}, {r.n_rolls})")
    if cat[1] < r.saved_size or cat[2] != r.n_rolls:
        raise ValueError(f"cat_rows must be (rows, {r.saved_size}, {r.n_rolls})")
    if keep[0] != cat[0]:
        raise ValueError("keep_rows and cat_rows must have the same rows")


cdef check_groups(Rules r, LaneTable t, used, upper, flag, lo, nu, row0, lane_row, n_rows):
    """Refuse groups outside the rules or the buffers (``ValueError``): the kernel itself
    reads and writes without bounds checks."""
    if len(used) == 0:
        return
    if used.min() < 0 or used.max() >= ((<int64_t>1) << r.n_boxes):
        raise ValueError(f"used must be used-masks of {r.n_boxes} boxes")
    if flag.min() < 0 or flag.max() >= r.flag_size:
        raise ValueError(f"flag must lie in 0..{r.flag_size - 1}")
    if nu.min() < 1:
        raise ValueError("every group needs at least one lane")
    if t.kind != LANES_NEED and lo.min() < 0:
        raise ValueError("lanes over upper totals start at lane 0")
    if upper.min() < 0 or upper.max() > r.upper_cap or (
        t.kind != LANES_NEED and (lo + nu).max() > r.upper_cap + 1
    ):
        raise ValueError(f"upper totals must lie in 0..{r.upper_cap}")
    if row0.min() < 0 or (row0 + nu).max() > len(lane_row):
        raise ValueError("lane_row must hold the lanes row0[g] .. row0[g] + nu[g] - 1")
    if len(lane_row) and lane_row.max() >= n_rows:
        raise ValueError(f"lane_row names rows past the {n_rows} of keep_rows and cat_rows")


def fill_lanes(
    kr, lanes, const int64_t[::1] used, const int64_t[::1] upper, const int64_t[::1] flag,
    const int64_t[::1] lo, const int64_t[::1] nu, const int64_t[::1] row0,
    const int64_t[::1] lane_row, int16_t[:, :, ::1] keep_rows, int8_t[:, :, ::1] cat_rows,
    int n_threads=1,
):
    """Record the best decisions of groups of lanes, one widget run per group, in parallel
    over groups.

    Parameters
    ----------
    kr : KernelRules or RulesView
    lanes : Lanes
        Over upper totals (max-EV, exponential), or need lanes (points still needed).
    used, upper, flag : ndarray of int64
        Group ``g``'s turn-start state (``upper`` is read by need lanes).
    lo, nu : ndarray of int64
        Its lanes ``lo[g] .. lo[g] + nu[g] - 1``.
    row0, lane_row : ndarray of int64
        Lane ``t`` of group ``g`` is written to row ``lane_row[row0[g] + t]`` (skipped when
        -1).
    keep_rows : ndarray of int16, shape (rows, layers, rolls)
        ``keep_rows[row, j - 1, r]``: the best keep at roll ``r`` with ``j`` rerolls left.
    cat_rows : ndarray of int8, shape (rows, saved rolls, rolls)
        ``cat_rows[row, s, r]``: the best box of roll ``r`` when the turn saves ``s`` rolls.
    n_threads : int
        Threads to run on; the decisions do not depend on it.

    Returns
    -------
    None
    """
    cdef RulesView view = view_of(kr)
    cdef Rules r = view.rules
    cdef LaneTable t = lanes_of(lanes)
    cdef Rows rows
    cdef int64_t n = used.shape[0]
    cdef int64_t n_chunks = min(n, MAX_CHUNKS)
    cdef int64_t max_nu = 1
    cdef int64_t chunk
    cdef int failed = 0
    if not upper.shape[0] == flag.shape[0] == lo.shape[0] == nu.shape[0] == row0.shape[0] == n:
            raise ValueError("used, upper, flag, lo, nu and row0 must have one entry per group")
    check_outputs(r, tuple(keep_rows.shape)[:3], tuple(cat_rows.shape)[:3])
    if n == 0:
        return
    check_lanes(r, t)
    a_nu = np.asarray(nu)
    check_groups(r, t, np.asarray(used), np.asarray(upper), np.asarray(flag), np.asarray(lo),
                 a_nu, np.asarray(row0), np.asarray(lane_row), keep_rows.shape[0])
    max_nu = max(1, int(a_nu.max()))
    rows = rows_of(row0, lane_row, keep_rows, cat_rows)
    with nogil, parallel(num_threads=max(n_threads, 1)):
        for chunk in prange(n_chunks, schedule="dynamic"):
            if not fill_chunk(&r, &t, &used[0], &upper[0], &flag[0], &lo[0], &nu[0], &rows, n,
                              max_nu, chunk, n_chunks):
                failed += 1
    if failed:
        raise MemoryError("fill_lanes: out of memory for its work buffers")


cdef Rows rows_of(
    const int64_t[::1] row0, const int64_t[::1] lane_row, int16_t[:, :, ::1] keep_rows,
    int8_t[:, :, ::1] cat_rows,
):
    """The pointers :func:`fill_lanes` writes through (``row0`` non-empty)."""
    cdef Rows rows
    rows.row0 = &row0[0]
    rows.lane_row = &lane_row[0] if lane_row.shape[0] else NULL
    rows.keep = &keep_rows[0, 0, 0] if keep_rows.shape[0] else NULL
    rows.cat = &cat_rows[0, 0, 0] if cat_rows.shape[0] else NULL
    rows.keep_layers = keep_rows.shape[1]
    rows.cat_layers = cat_rows.shape[1]
    return rows


def fill_states(kr, lanes, used, upper, flag, lo, slots, keep_cache, cat_cache, int n_threads=1):
    """Record the best decisions of states ``i`` (one lane ``lo[i]`` each: the upper total for
    max-EV lanes, the points still needed for need lanes), in parallel over states
    (:func:`fill_lanes` with one lane per state).

    Parameters
    ----------
    kr : KernelRules or RulesView
    lanes : Lanes
    used, upper, flag, lo : ndarray of int64
        The states and their lanes.
    slots : array_like of int
        State ``i``'s row of the caches.
    keep_cache : ndarray of int16, shape (rows, layers, rolls)
        ``keep_cache[slots[i], j - 1, r]``: the best keep with ``j`` rerolls left.
    cat_cache : ndarray of int8, shape (rows, saved rolls, rolls) or (rows, rolls)
        ``cat_cache[slots[i], s, r]``: the best box with ``s`` rolls saved (2-d: no roll
        saved).
    n_threads : int
        Threads to run on; the decisions do not depend on it.

    Returns
    -------
    None
    """
    used, upper, flag, lo = (np.ascontiguousarray(a, dtype=np.int64) for a in (used, upper, flag, lo))
    n = len(used)
    if cat_cache.ndim == 2:  # games without saved rolls: one box per roll
        cat_cache = cat_cache[:, None, :]
    fill_lanes(
        kr, lanes, used, upper, flag, lo, np.ones(n, dtype=np.int64),
        np.arange(n, dtype=np.int64), np.asarray(slots, dtype=np.int64), keep_cache, cat_cache,
        n_threads,
    )


def position_values(kr, lanes, int64_t used, int64_t upper, int64_t flag):
    """Values of every keep (per rerolls left) and the best decisions at one state.

    Parameters
    ----------
    kr : KernelRules or RulesView
    lanes : Lanes
        Max-EV lanes over upper totals (a value table's).
    used, upper, flag : int
        The turn-start state.

    Returns
    -------
    keep_vals : ndarray of float64, shape (levels, keeps)
        ``keep_vals[j, k]``: the expected points still to come after keeping ``k`` with
        ``j`` rerolls left.
    cat_choice : ndarray of int64, shape (rolls,)
        The best box of each final roll.
    keep_choice : ndarray of int64, shape (levels, rolls)
        ``keep_choice[j, r]``: the best keep at roll ``r`` with ``j`` rerolls left.
    """
    cdef RulesView view = view_of(kr)
    cdef Rules r = view.rules
    cdef LaneTable t = lanes_of(lanes)
    cdef Work work
    cdef bint ok
    if t.kind == LANES_NEED:
        raise ValueError("position_values takes lanes over upper totals")
    if not (0 <= used < ((<int64_t>1) << r.n_boxes) and 0 <= upper <= r.upper_cap and 0 <= flag < r.flag_size):
        raise ValueError(f"no state (used={used}, upper={upper}, flag={flag}) in these rules")
    check_lanes(r, t)
    keep_vals = np.empty((r.levels, r.n_keeps))
    cat = np.empty(r.n_rolls, dtype=np.int64)
    keep = np.empty((r.levels, r.n_rolls), dtype=np.int64)
    cdef double[:, ::1] kv = keep_vals
    cdef int64_t[::1] c = cat
    cdef int64_t[:, ::1] k = keep
    with nogil:
        ok = new_work(&r, 1, 2, &work)
        if ok:
            widget(&r, &t, used, upper, flag, upper, 1, &work, 2)
            copy_records(&r, &work, &kv[0, 0], &c[0], &k[0, 0])
        free_work(&work)
    if not ok:
        raise MemoryError("position_values: out of memory for its work buffers")
    return keep_vals, cat, keep


cdef void copy_records(const Rules* kr, const Work* work, double* kv, int64_t* cat, int64_t* keep) noexcept nogil:
    """A one-lane run's records: keep values, best boxes, best keeps."""
    cdef int64_t i
    for i in range(kr.levels * kr.n_keeps):
        kv[i] = work.keep_vals[i]
    for i in range(kr.n_rolls):
        cat[i] = work.cat[i]
    for i in range(kr.levels * kr.n_rolls):
        keep[i] = work.keep[i]


def gather_decisions(
    const slot_t[::1] slot_of_state, states, roll_idx, const decision_t[:, :, ::1] table,
    int64_t layer,
):
    """``table[slot_of_state[states[i]], layer, roll_idx[i]]`` as int64, one pass.

    Parameters
    ----------
    slot_of_state : ndarray of int32 or int64
    states, roll_idx : array_like of int
    table : ndarray of int8 or int16, shape (slots, layers, rolls)
    layer : int

    Returns
    -------
    ndarray of int64
    """
    cdef const int64_t[::1] s = np.ascontiguousarray(states, dtype=np.int64)
    cdef const int64_t[::1] ri = np.ascontiguousarray(roll_idx, dtype=np.int64)
    cdef int64_t n = s.shape[0]
    cdef int64_t bad = -1
    if ri.shape[0] != n:
        raise ValueError("states and roll_idx must have one entry per decision")
    if not 0 <= layer < table.shape[1]:
        raise ValueError(f"layer must lie in 0..{table.shape[1] - 1}, got {layer}")
    out = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] o = out
    if n:
        with nogil:
            bad = gather(&slot_of_state[0], slot_of_state.shape[0], &s[0], &ri[0], table, layer,
                         &o[0], n)
    if bad >= 0:
        raise ValueError(f"decision {bad}: state, slot or roll outside the table")
    return out


cdef int64_t gather(
    const slot_t* slot, int64_t n_slot, const int64_t* states, const int64_t* roll_idx,
    const decision_t[:, :, ::1] table, int64_t layer, int64_t* out, int64_t n,
) noexcept nogil:
    """The gather's loop; the first decision out of bounds, or -1."""
    cdef int64_t i, st, sl, ro
    for i in range(n):
        st = states[i]
        if st < 0 or st >= n_slot:
            return i
        sl = slot[st]
        ro = roll_idx[i]
        if sl < 0 or sl >= table.shape[0] or ro < 0 or ro >= table.shape[2]:
            return i
        out[i] = table[sl, layer, ro]
    return -1


def keep_codes(kr, keeps, dice, out):
    """Keep index of every row of face counts ``keeps`` (checked against ``dice``).

    Parameters
    ----------
    kr : KernelRules
    keeps, dice : ndarray of int, shape (rows, faces)
        The kept counts and the counts showing.
    out : ndarray of int16, int32 or int64
        Receives each row's keep index.

    Returns
    -------
    int
        -1, or the first row that keeps a face more often than it shows (or a negative
        count); rows from it on are not written.
    """
    cdef const int64_t[::1] weights = kr.code_weights
    cdef const int32_t[::1] to_keep = kr.code_to_keep
    cdef const int8_t[:, ::1] k8
    cdef const int8_t[:, ::1] d8
    cdef const int64_t[:, ::1] k
    cdef const int64_t[:, ::1] d
    narrow = np.asarray(keeps).dtype == np.int8 and np.asarray(dice).dtype == np.int8
    if narrow:  # the engine's counts: read as they are, no widening copy
        k8 = np.ascontiguousarray(keeps)
        d8 = np.ascontiguousarray(dice)
        shape = (k8.shape[0], k8.shape[1], d8.shape[0], d8.shape[1])
    else:
        k = np.ascontiguousarray(keeps, dtype=np.int64)
        d = np.ascontiguousarray(dice, dtype=np.int64)
        shape = (k.shape[0], k.shape[1], d.shape[0], d.shape[1])
    cdef int64_t m = shape[0]
    cdef int64_t F = shape[1]
    if shape[2] != m or shape[3] != F or F != weights.shape[0]:
        raise ValueError(f"keeps and dice must both be (rows, {weights.shape[0]}) face counts")
    if out.shape[0] < m:
        raise ValueError(f"out must hold {m} keep indices")
    codes = np.empty(m, dtype=np.int64)
    cdef int64_t[::1] c = codes
    cdef int64_t bad = -1
    if m and narrow:
        with nogil:
            bad = encode_keeps(&k8[0, 0], &d8[0, 0], &weights[0], to_keep.shape[0], m, F, &c[0])
    elif m:
        with nogil:
            bad = encode_keeps(&k[0, 0], &d[0, 0], &weights[0], to_keep.shape[0], m, F, &c[0])
    if bad == -2:
        raise ValueError("dice: face counts outside the rules' rolls")
    done = m if bad < 0 else bad
    out[:done] = np.asarray(to_keep)[codes[:done]]
    return int(bad if bad >= 0 else -1)


ctypedef fused count_t:
    int8_t
    int64_t


cdef int64_t encode_keeps(
    const count_t* keeps, const count_t* dice, const int64_t* weights, int64_t n_codes,
    int64_t m, int64_t F, int64_t* codes,
) noexcept nogil:
    """Each row's multiset code; the first row keeping more than it shows, -2 for a code
    outside the table, or -1."""
    cdef int64_t i, f, a, code
    for i in range(m):
        code = 0
        for f in range(F):
            a = keeps[i * F + f]
            if a < 0 or a > dice[i * F + f]:
                return i
            code += a * weights[f]
        if code >= n_codes:
            return -2
        codes[i] = code
    return -1
