# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The decision fills of max-EV table play in the compiled core: states of any used-masks
run ``TILE`` at a time as the lanes of one :func:`.widget.widget_mixed` call, their box
values read off max-EV lanes over upper totals (:func:`upper_lane_decisions`, its serial
chunks :func:`upper_lane_chunks`). One widget run per used-mask costs its fixed work (every
keep, every roll) even when few of its upper totals are asked for, as is the rule for the
states games reach turn by turn. The
same decisions bit for bit as :func:`.decisions.fill_lanes`, which records them too."""

from cython.parallel cimport parallel, prange
from libc.stdint cimport int8_t, int16_t, int64_t, uint8_t
from libc.stdlib cimport free, malloc

from yahtzee_sim._core.batched cimport (
    SPAN,
    TILE,
    check_states,
    copy_box_values,
    n_of_a_kind_slots,
    tile_plan,
    tile_width,
)
from yahtzee_sim._core.box_step cimport bonus_moves_flag, box_values
from yahtzee_sim._core.bundle cimport RulesView, lanes_of, view_of
from yahtzee_sim._core.lanes cimport LANES_UPPER, LaneTable
from yahtzee_sim._core.rules cimport Rules, flag_after_roll, yahtzee_bonus_points
from yahtzee_sim._core.widget cimport widget_mixed
from yahtzee_sim._core.work cimport Work, free_work, new_work

import numpy as np


cdef struct Rows:
    const int64_t* used  # n states, sorted by state index
    const int64_t* upper
    const int64_t* flag
    const int64_t* out_rows  # each state's output row
    int16_t* keep  # rows x keep_layers x rolls
    int8_t* cat  # rows x cat_layers x rolls (layer 0 written)
    int64_t keep_layers
    int64_t cat_layers
    int64_t n


cdef inline int64_t upper_run_column(
    const Rules* kr, const LaneTable* lanes, int64_t used, int64_t flag, int64_t upper,
    int64_t lo, bint per_state, double* tmp, const uint8_t* only,
) noexcept nogil:
    """The column of ``tmp`` holding the box values of state ``(used, upper, flag)`` in a
    run of :func:`fill_upper_run`: its own fill into column 0 (``per_state``), else column
    ``upper - lo`` of the run's one fill."""
    if per_state:
        box_values(kr, lanes, used, upper, flag, upper, 1, tmp, 0, only)
        return 0
    return upper - lo


cdef void fill_upper_run(
    const Rules* kr, const LaneTable* lanes, int64_t used, int64_t flag, const int64_t* upper,
    int64_t t0, int64_t t1, int64_t nu, Work* work, double* buf, const uint8_t* bonus_slots,
) noexcept nogil:
    """Lanes ``t0 .. t1 - 1`` of a tile, states ``(used, upper[t], flag)`` of one used-mask
    and flag (``upper`` ascending): their max-EV box values into ``work.val`` (slots x
    ``nu``), filled boxes ``NEG``, and into ``work.val_bonus`` those with a roll's Yahtzee
    bonus paid (only ``bonus_slots``) — the values :func:`.box_step.box_step` compares,
    ``x * 1.0 + yb`` bit for bit. One :func:`.box_step.box_values` call covers the run when
    its upper totals span fewer than ``SPAN`` (``buf``: ``n_slots * SPAN`` doubles)."""
    cdef int64_t lo = upper[t0]
    cdef int64_t hi = upper[t1 - 1]
    cdef bint per_state = hi - lo >= SPAN
    cdef int64_t span = 1 if per_state else hi - lo + 1
    cdef int64_t t, col, r, s, f2
    cdef int64_t yb = 0
    cdef double add
    if not per_state:
        box_values(kr, lanes, used, lo, flag, lo, span, buf, 0, NULL)
    for t in range(t0, t1):
        col = upper_run_column(kr, lanes, used, flag, upper[t], lo, per_state, buf, NULL)
        copy_box_values(kr, used, buf, span, col, work.val, nu, t)
    for r in range(kr.n_rolls):  # the bonus of an n-of-a-kind roll here
        if kr.yahtzee_face[r] >= 0:
            yb = yahtzee_bonus_points(kr, r, used, flag)
            break
    if yb == 0:
        return
    add = <double>yb
    if bonus_moves_flag(kr, used, flag):  # the boxes valued at the next flag
        f2 = flag_after_roll(kr, flag, 1)
        if not per_state:
            box_values(kr, lanes, used, lo, f2, lo, span, buf, 0, bonus_slots)
        for t in range(t0, t1):
            col = upper_run_column(kr, lanes, used, f2, upper[t], lo, per_state, buf, bonus_slots)
            for s in range(kr.n_slots):
                if bonus_slots[s]:
                    work.val_bonus[s * nu + t] = buf[s * span + col] * 1.0 + add
        return
    for t in range(t0, t1):
        for s in range(kr.n_slots):
            if bonus_slots[s]:
                work.val_bonus[s * nu + t] = work.val[s * nu + t] * 1.0 + add


cdef void write_tile(
    const Rules* kr, const Work* work, Rows* g, int64_t a, int64_t nu
) noexcept nogil:
    """The decisions the widget recorded for states ``a .. a + nu - 1`` into their rows."""
    cdef int64_t t, r, j, row
    for t in range(nu):
        row = g.out_rows[a + t]
        for r in range(kr.n_rolls):
            g.cat[row * g.cat_layers * kr.n_rolls + r] = <int8_t>work.cat[r * nu + t]
            for j in range(1, kr.rolls):
                g.keep[(row * g.keep_layers + j - 1) * kr.n_rolls + r] = (
                    <int16_t>work.keep[(j * kr.n_rolls + r) * nu + t]
                )


cdef bint upper_chunk(
    const Rules* kr, const LaneTable* lanes, Rows* g, const uint8_t* bonus_slots,
    int64_t chunk, int64_t n_chunks,
) noexcept nogil:
    """The tiles ``chunk, chunk + n_chunks, ...`` of :func:`upper_lane_decisions`; False if
    out of memory."""
    cdef Work work
    cdef int64_t tu[TILE]  # the tile's used-masks, flags and upper totals
    cdef int64_t tf[TILE]
    cdef int64_t tup[TILE]
    cdef int64_t n_tiles, unused, k, a, nu, t, t0, t1
    cdef double* buf = <double*>malloc((kr.n_slots * SPAN + 1) * sizeof(double))
    cdef bint ok = new_work(kr, TILE, 1, &work) and buf != NULL
    tile_plan(g.n, &n_tiles, &unused)
    k = chunk
    while ok and k < n_tiles:
        a = k * TILE
        nu = tile_width(g.n, k)
        for t in range(nu):
            tu[t], tf[t], tup[t] = g.used[a + t], g.flag[a + t], g.upper[a + t]
        t0 = 0
        while t0 < nu:  # runs of one used-mask and flag
            t1 = t0 + 1
            while t1 < nu and tu[t1] == tu[t0] and tf[t1] == tf[t0]:
                t1 += 1
            fill_upper_run(kr, lanes, tu[t0], tf[t0], tup, t0, t1, nu, &work, buf, bonus_slots)
            t0 = t1
        widget_mixed(kr, tu, tf, nu, &work, True)
        write_tile(kr, &work, g, a, nu)
        k += n_chunks
    free_work(&work)
    free(buf)
    return ok


cdef class Fill:
    """The checked arguments of one decision fill: the C views of the rules, the lanes
    and the states, and the arrays they point into (kept alive with them)."""

    cdef Rules rules
    cdef LaneTable lanes
    cdef Rows rows
    cdef object keep  # what the views point into
    cdef uint8_t[::1] bonus_slots
    cdef RulesView view
    cdef const int64_t[::1] used, upper, flag, out_rows
    cdef int64_t n_chunks

    def __init__(self, kr, lanes, used, upper, flag, out_rows, keep_rows, cat_rows):
        self.view = view_of(kr)
        self.rules = self.view.rules
        self.lanes = lanes_of(lanes)
        self.keep = (lanes, keep_rows, cat_rows)
        cdef Rules r = self.rules
        cdef int16_t[:, :, ::1] keep = keep_rows
        cdef int8_t[:, :, ::1] cat = cat_rows
        cdef int64_t n_tiles
        if self.lanes.kind != LANES_UPPER or self.lanes.n_offset or r.saving:
            raise ValueError("max-EV lanes over upper totals (product layout, no saved rolls)")
        if self.lanes.n_values < r.n_states:
            raise ValueError(f"lanes.values must hold every state ({r.n_states})")
        check_states(r, used, upper, flag)
        self.used, self.upper, self.flag, self.out_rows = used, upper, flag, out_rows
        n = len(used)
        if len(out_rows) != n:
            raise ValueError("out_rows must have one entry per state")
        if keep.shape[2] != r.n_rolls or cat.shape[2] != r.n_rolls or cat.shape[1] < 1:
            raise ValueError(f"keep_rows, cat_rows must have shape (rows, layers, {r.n_rolls})")
        if keep.shape[1] < r.rolls - 1:
            raise ValueError(f"keep_rows must hold {r.rolls - 1} layers")
        if n and (np.min(out_rows) < 0 or np.max(out_rows) >= min(keep.shape[0], cat.shape[0])):
            raise ValueError("out_rows must be rows of keep_rows and cat_rows")
        self.bonus_slots = np.empty(r.n_slots + 1, dtype=np.uint8)
        n_of_a_kind_slots(&self.rules, &self.bonus_slots[0])
        tile_plan(n, &n_tiles, &self.n_chunks)
        self.rows.n = n
        if n:
            self.rows.used, self.rows.upper = &self.used[0], &self.upper[0]
            self.rows.flag, self.rows.out_rows = &self.flag[0], &self.out_rows[0]
            self.rows.keep, self.rows.cat = &keep[0, 0, 0], &cat[0, 0, 0]
        self.rows.keep_layers, self.rows.cat_layers = keep.shape[1], cat.shape[1]


def upper_lane_decisions(
    kr, lanes, used, upper, flag, out_rows, keep_rows, cat_rows, int n_threads=1
):
    """The decisions of states ``(used[i], upper[i], flag[i])`` at every roll, read off
    max-EV lanes, on ``n_threads`` threads (the decisions do not depend on it).

    Parameters
    ----------
    kr : KernelRules or RulesView
        The rules (a game without saved rolls).
    lanes : Lanes
        Max-EV lanes over upper totals (:func:`.lanes.upper_total_lanes`).
    used, upper, flag : numpy.ndarray
        int64, the states, sorted by state index (a used-mask and flag's states adjacent,
        ascending upper totals).
    out_rows : numpy.ndarray
        int64, each state's output row.
    keep_rows, cat_rows : numpy.ndarray
        The outputs: ``keep_rows[out_rows[i], j - 1, r]`` (int16) the best keep with ``j``
        rerolls left at roll ``r``, ``cat_rows[out_rows[i], 0, r]`` (int8) the best box.
    n_threads : int
        Threads.

    Returns
    -------
    None
    """
    cdef Fill f = Fill(kr, lanes, used, upper, flag, out_rows, keep_rows, cat_rows)
    cdef int64_t chunk
    cdef int failed = 0
    if f.rows.n == 0:
        return
    with nogil, parallel(num_threads=max(n_threads, 1)):
        for chunk in prange(f.n_chunks, schedule="dynamic"):
            if not upper_chunk(
                &f.rules, &f.lanes, &f.rows, &f.bonus_slots[0], chunk, f.n_chunks
            ):
                failed += 1
    if failed:
        raise MemoryError("upper_lane_decisions: out of memory for its work buffers")


def upper_lane_chunks(
    kr, lanes, used, upper, flag, out_rows, keep_rows, cat_rows, int64_t first, int64_t step
):
    """Chunks ``first, first + step, ...`` of :func:`upper_lane_decisions` (same arguments),
    serially, without the GIL: threads that share the chunks out among them write what it
    writes.

    Parameters
    ----------
    kr, lanes, used, upper, flag, out_rows, keep_rows, cat_rows
        As :func:`upper_lane_decisions` takes them.
    first : int
        The first chunk.
    step : int
        The step between chunks (the number of callers sharing them).

    Returns
    -------
    None
    """
    cdef Fill f = Fill(kr, lanes, used, upper, flag, out_rows, keep_rows, cat_rows)
    cdef int64_t chunk = first
    cdef bint ok = True
    if first < 0 or step < 1:
        raise ValueError(f"first must be >= 0 and step >= 1, got {first} and {step}")
    with nogil:
        while ok and chunk < f.n_chunks:
            ok = upper_chunk(&f.rules, &f.lanes, &f.rows, &f.bonus_slots[0], chunk, f.n_chunks)
            chunk += step
    if not ok:
        raise MemoryError("upper_lane_chunks: out of memory for its work buffers")
