# cython: language_level=3
"""The lanes of a widget run for the compiled core, as a C struct
(:class:`yahtzee_sim._kernels.lanes.Lanes`: :data:`LANES_UPPER`, :data:`LANES_NEED`,
:data:`LANES_EXP`; :func:`yahtzee_sim._core.bundle.lanes_of`)."""

from libc.stdint cimport int64_t

cdef enum:
    LANES_UPPER = 0
    LANES_NEED = 1
    LANES_EXP = 2

cdef struct LaneTable:
    int64_t kind
    const double* values
    const int64_t* offset  # empty (NULL, n_offset 0): the product layout
    const int64_t* length
    const int64_t* first
    const double* scale  # LANES_EXP: scale[q] = exp(-theta q)
    int64_t n_values
    int64_t n_scale
    int64_t n_offset
    int64_t n_first
    double top
    double bottom


cdef inline bint need_lane_live(const LaneTable* lanes, int64_t s, int64_t t) noexcept nogil:
    """Whether need lane ``t`` of state ``s`` still depends on the play: the goal not
    reached (``t > 0``), the lane in the state's row, its value not ``bottom`` (the goal
    out of reach). Score-dependent strategies play max-EV elsewhere."""
    cdef int64_t f = lanes.first[s] if lanes.n_first > 0 else 0
    if t <= 0 or t < f or t >= f + lanes.length[s]:
        return False
    return lanes.values[lanes.offset[s] + t - f] != lanes.bottom
