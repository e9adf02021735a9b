# cython: language_level=3
"""Memory hints for the compiled kernels: :func:`prefetch` asks the processor to start
loading a cache line without waiting for it (``__builtin_prefetch``: a read, kept in every
cache level). A prefetch never faults and changes no value.

:func:`prefetch_box_rows` names the entries the box values of need lanes read for a state
(:func:`.box_step.box_values`): the rows of a need-lane table lie scattered over a GB or
more, so a box-value fill waits on memory for most of its time unless they are asked for
ahead.
"""

from libc.stdint cimport int64_t

from yahtzee_sim._core.lanes cimport LaneTable
from yahtzee_sim._core.rules cimport Rules, box_open, next_state_depends_on_points, scored_state

cdef extern from *:
    """
    #define YS_PREFETCH(p) __builtin_prefetch((p), 0, 3)
    """
    void prefetch "YS_PREFETCH"(const void* p) noexcept nogil


cdef inline void prefetch_row_lanes(
    const double* V, int64_t offset, int64_t first, int64_t length, int64_t lo, int64_t hi
) noexcept nogil:
    """Prefetch lanes ``lo .. hi`` of the row at ``V[offset:]`` holding lanes ``first ..
    first + length - 1``, one entry per 64-byte line (the entries lanes outside the row
    would read are ``top`` or ``bottom``, not the row's)."""
    cdef int64_t a = max(lo - first, 0)
    cdef int64_t b = min(hi - first, length - 1)
    cdef int64_t i = a
    while i <= b:
        prefetch(V + offset + i)
        i += 8
    if a <= b:
        prefetch(V + offset + b)


cdef inline void prefetch_box_rows(
    const Rules* kr, const LaneTable* lanes, int64_t used, int64_t upper, int64_t flag,
    int64_t lo, int64_t hi,
) noexcept nogil:
    """Start loading the entries :func:`.box_step.box_values` of need lanes ``lanes`` reads
    for lanes ``lo .. hi`` of state ``(used, upper, flag)``: for each open box, the part of
    its next states' rows those lanes reach."""
    cdef int64_t c, s, s2, q, f2, bonus, p_min, p_max
    for c in range(kr.n_boxes):
        if not box_open(kr, used, c):
            continue
        if not next_state_depends_on_points(kr, c):  # one next state: one stretch
            s2 = scored_state(kr, used, upper, flag, c, 0, &bonus)
            p_min = kr.slot_points[kr.slot_ptr[c]]
            p_max = kr.slot_points[kr.slot_ptr[c + 1] - 1]
            f2 = lanes.first[s2] if lanes.n_first > 0 else 0
            prefetch_row_lanes(
                lanes.values, lanes.offset[s2], f2, lanes.length[s2], lo - p_max, hi - p_min
            )
            continue
        for s in range(kr.slot_ptr[c], kr.slot_ptr[c + 1]):
            s2 = scored_state(kr, used, upper, flag, c, kr.slot_points[s], &bonus)
            q = kr.slot_points[s] + bonus
            f2 = lanes.first[s2] if lanes.n_first > 0 else 0
            prefetch_row_lanes(
                lanes.values, lanes.offset[s2], f2, lanes.length[s2], lo - q, hi - q
            )
