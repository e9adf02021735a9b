# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Backward induction over one level in the compiled core: every state of the level
through the widget, in parallel (the states of equal used-count are independent given
the level above). The port of :func:`yahtzee_sim._kernels.solve.solve_level`."""

import numpy as np

from cython.parallel cimport parallel, prange
from libc.stdint cimport int64_t

from yahtzee_sim._core.bundle cimport lanes_of, rules_of
from yahtzee_sim._core.lanes cimport LaneTable
from yahtzee_sim._core.rules cimport Rules, filled_boxes, saved_state_index
from yahtzee_sim._core.widget cimport widget
from yahtzee_sim._core.work cimport Work, free_work, new_work

#: Work buffers are allocated once per chunk of states, not per state.
MAX_CHUNKS = 64


cdef bint solve_chunk(
    const Rules* kr, const LaneTable* lanes, double* out, int64_t out_shift,
    const int64_t* masks, const int64_t* u_start, const int64_t* n_upper, int64_t n_masks,
    int64_t chunk, int64_t n_chunks,
) noexcept nogil:
    """The masks ``chunk, chunk + n_chunks, ...`` of the level; False if out of memory."""
    cdef Work work
    cdef bint compact = lanes.n_offset > 0
    cdef int64_t i, used, n_flags, nu, u0, n_saved, flag, saved, base, t, u
    cdef const double* top
    cdef double* W
    if not new_work(kr, kr.upper_cap + 1, 0, &work):
        free_work(&work)
        return False
    i = chunk
    while i < n_masks:
        used = masks[i]
        n_flags = 1  # flags above 0 need the Yahtzee box filled
        if kr.yahtzee_index >= 0 and ((used >> kr.yahtzee_index) & 1):
            n_flags = kr.flag_size
        nu = n_upper[i]
        u0 = u_start[i]
        n_saved = kr.saved_size
        if compact:  # the saved counts a turn can start with, k boxes filled
            n_saved = min((kr.rolls - 1) * filled_boxes(used), kr.saved_roll_cap) + 1
        for flag in range(n_flags):
            W = widget(kr, lanes, used, 0, flag, u0, nu, &work, 0)
            for saved in range(n_saved):
                top = work.tops + saved * nu if kr.saved_size > 1 else W
                if compact:
                    base = lanes.offset[used * kr.flag_size + flag]
                    base += saved * lanes.length[used] - out_shift
                else:
                    base = saved_state_index(kr, used, 0, flag, saved) - out_shift
                for t in range(nu):
                    out[base + u0 + t] = top[t]
                for u in range(u0):
                    out[base + u] = top[0]
        i += n_chunks
    free_work(&work)
    return True


cdef check_level(Rules r, LaneTable t, n_out, out_shift, masks, u_start, n_upper):
    """Refuse a level whose lanes or states fall outside the buffers (``ValueError``): the
    kernel itself reads and writes without bounds checks."""
    if masks.min() < 0 or masks.max() >= (1 << r.n_boxes):
        raise ValueError(f"masks must be used-masks of {r.n_boxes} boxes")
    if u_start.min() < 0 or n_upper.min() < 1 or (u_start + n_upper).max() > r.upper_cap + 1:
        raise ValueError(f"upper totals must lie in 0..{r.upper_cap}, at least one per mask")
    if t.kind == 2 and t.n_values and len_scale_needed(r) > t.n_scale:
        raise ValueError(f"exponential lanes need scale[q] for q up to {len_scale_needed(r) - 1}")
    if t.n_offset == 0:  # product layout: the last state this level writes
        last = ((masks.max() * r.flag_size + r.flag_size - 1) * r.saved_size + r.saved_size)
        if last * (r.upper_cap + 1) - out_shift > n_out or t.n_values < r.n_states:
            raise ValueError("out and lanes.values must hold every state of the table")


cdef int64_t len_scale_needed(Rules r):
    """Entries an exponential lane's ``scale`` needs: every box's points plus a bonus."""
    return r.max_points + max(r.upper_bonus, r.yahtzee_bonus) + 1


def solve_level(
    kr, lanes, double[::1] out, int64_t out_shift, const int64_t[::1] masks,
    const int64_t[::1] u_start, const int64_t[::1] n_upper, int n_threads=1,
):
    """Fill, for every state whose used-mask is in ``masks`` (one level), its value
    ``out[index - out_shift]`` (``index`` in the layout ``lanes`` read: the product layout,
    or the compact one of :func:`~yahtzee_sim._kernels.lanes.compact_upper_lanes`;
    ``out`` may be ``lanes.values`` itself, ``out_shift`` 0), on ``n_threads`` threads.

    Lanes over upper totals (max-EV or exponential utility). Upper totals ``u_start[i]
    .. u_start[i] + n_upper[i] - 1`` are solved for ``masks[i]``; the totals below
    ``u_start[i]`` cannot reach the bonus any more and get the value of ``u_start[i]``;
    larger ones are unreachable (left as they are). The values do not depend on
    ``n_threads``.
    """
    cdef Rules r = rules_of(kr)
    cdef LaneTable t = lanes_of(lanes)
    cdef int64_t n_masks = masks.shape[0]
    cdef int64_t n_chunks = min(n_masks, MAX_CHUNKS)
    cdef int64_t chunk
    cdef int failed = 0
    if t.kind not in (0, 2):
        raise ValueError("solve_level takes lanes over upper totals (max-EV or exponential)")
    if u_start.shape[0] != n_masks or n_upper.shape[0] != n_masks:
        raise ValueError("masks, u_start and n_upper must have one entry per mask")
    if n_masks == 0:
        return
    check_level(r, t, out.shape[0], out_shift, np.asarray(masks), np.asarray(u_start),
                np.asarray(n_upper))
    with nogil, parallel(num_threads=max(n_threads, 1)):
        for chunk in prange(n_chunks, schedule="dynamic"):
            if not solve_chunk(
                &r, &t, &out[0], out_shift, &masks[0], &u_start[0], &n_upper[0], n_masks,
                chunk, n_chunks,
            ):
                failed += 1
    if failed:
        raise MemoryError("solve_level: out of memory for its work buffers")


cdef bint need_chunk(
    const Rules* kr, const LaneTable* lanes, double* probs, const int64_t* items,
    int64_t n, int64_t tile, int64_t chunk, int64_t n_chunks,
) noexcept nogil:
    """The items ``chunk, chunk + n_chunks, ...`` of a need-lane level, ``tile`` lanes at a
    time; False if out of memory."""
    cdef Work work
    cdef bint target = lanes.n_first == 0
    cdef int64_t k, s, o, f, lo, nu, i, length
    cdef const int64_t* item
    cdef double* W
    if not new_work(kr, tile, 0, &work):
        free_work(&work)
        return False
    k = chunk
    while k < n:
        item = items + 4 * k
        s = item[3]
        o = lanes.offset[s]
        f = lanes.first[s] if lanes.n_first > 0 else 0
        length = lanes.length[s]
        lo = 0
        while lo < length:
            nu = min(tile, length - lo)
            W = widget(kr, lanes, item[0], item[1], item[2], f + lo, nu, &work, 0)
            for i in range(nu):
                probs[o + lo + i] = W[i]
            lo += tile
        if target and length > 0:
            probs[o] = 1.0  # P(at least 0 more) is exactly 1
        k += n_chunks
    free_work(&work)
    return True


def solve_need_level(kr, lanes, const int64_t[:, ::1] items, int64_t tile, int n_threads=1):
    """Fill the need-lane rows (target or utility table, ``lanes.values``) of the states
    ``items[:, 3]`` (used, upper, flag, state index in columns 0..3) of one level, on
    ``n_threads`` threads, ``tile`` lanes at a time (the work array of a tile stays in the
    core's cache). The values do not depend on ``n_threads``."""
    cdef Rules r = rules_of(kr)
    cdef LaneTable t = lanes_of(lanes)
    cdef double[::1] probs = lanes.values
    cdef int64_t n = items.shape[0]
    cdef int64_t n_chunks = min(n, MAX_CHUNKS)
    cdef int64_t chunk
    cdef int failed = 0
    if t.kind != 1:
        raise ValueError("solve_need_level takes need lanes (points still needed)")
    if r.saving:
        raise ValueError("need lanes take games without saved rolls")
    if n and (t.n_offset == 0 or np.asarray(items)[:, 3].max() >= t.n_offset):
        raise ValueError("need lanes must hold a row (offset, length) for every state")
    if items.shape[1] != 4:
        raise ValueError(f"items must have 4 columns (used, upper, flag, state), got {items.shape[1]}")
    if tile < 1:
        raise ValueError(f"tile must be at least 1, got {tile}")
    if n == 0:
        return
    with nogil, parallel(num_threads=max(n_threads, 1)):
        for chunk in prange(n_chunks, schedule="dynamic"):
            if not need_chunk(&r, &t, &probs[0], &items[0, 0], n, tile, chunk, n_chunks):
                failed += 1
    if failed:
        raise MemoryError("solve_need_level: out of memory for its work buffers")
